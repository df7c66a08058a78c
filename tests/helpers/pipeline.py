"""The pipeline without sockets: store a mail as the listener does, run the worker, drain the outbox."""

from __future__ import annotations

import email
import os
import uuid
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path

from sqlmodel import col, select

from pbem.config import load_config
from pbem.mail.later_pictures import finished
from pbem.mail.smtpd import store_inbound
from pbem.startup import build_services
from pbem.store.db import Database
from pbem.store.models import OutboxItem
from pbem.sweep import Sweeper
from pbem.worker import Worker, read_ahead

POSTGRES_URL = os.environ.get("PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def postgres_available() -> str | None:
    """None when the test PostgreSQL answers, else the reason to skip."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), connect_timeout=3):
            return None
    except Exception as error:  # any failure to connect means: no server here
        return f"no PostgreSQL at {POSTGRES_URL}: {error}"


def fresh_postgres_url() -> str:
    """A new empty schema-less database on the test server, so tests never share tables."""
    import psycopg

    name = f"pbem_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return POSTGRES_URL.rsplit("/", 1)[0] + f"/{name}"


def drop_postgres(url: str) -> None:
    """Remove a database made by :func:`fresh_postgres_url`."""
    import psycopg

    name = url.rsplit("/", 1)[1]
    with psycopg.connect(POSTGRES_URL.replace("+psycopg", ""), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Pipeline:
    """Worker and outbox on a real database; mails go in as bytes and come out parsed."""

    def __init__(self, tmp_path: Path, database_url: str | None = None,
                 now: Callable[[], datetime] | None = None, **settings: str) -> None:
        environ = {"PBEM_SERVER_SECRET_KEY": "pipeline-key", **settings}
        self.config = load_config(_empty_config(tmp_path), environ=environ)
        self.db = Database(database_url or f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
        self.db.create_all()
        self.services = build_services(self.config, self.db)
        self.addresses = self.services.addresses
        if now is not None:
            self.services.now = now
        self.worker = Worker(self.db, self.services)

    def close(self) -> None:
        self.db.dispose()

    def send(self, sender: str, to: str, body: str, subject: str = "pbem",
             headers: dict[str, str] | None = None) -> str:
        """Store one mail and let the worker apply everything waiting; returns its Message-ID."""
        message_id = self.queue(sender, to, body, subject, headers)
        self.worker.drain()
        return message_id

    def queue(self, sender: str, to: str, body: str, subject: str = "pbem",
              headers: dict[str, str] | None = None) -> str:
        """Store one mail in the inbox as the listener would, without applying it."""
        message = EmailMessage()
        message["From"], message["To"], message["Subject"] = sender, to, subject
        message["Message-ID"] = make_msgid(domain="players.example")
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(body)
        store_inbound(self.db, message.as_bytes(), sender, [to], self.addresses.domain, read=read_ahead)
        return str(message["Message-ID"])

    def sweep(self) -> int:
        """One sweep as the server runs it, then the worker writes the mails of the notices it left."""
        changed = Sweeper(self.db, self.services).sweep()
        self.worker.drain()
        return changed

    def drain_outbox(self) -> list[tuple[str, EmailMessage]]:
        """Every queued mail (recipient, message), marked sent, in queue order."""
        with self.db.transaction() as session:
            rows = session.exec(select(OutboxItem).where(OutboxItem.status == "pending")
                                .order_by(col(OutboxItem.id))).all()
            mails = []
            for row in rows:
                message = email.message_from_bytes(finished(row.raw, row.pictures), policy=default_policy)
                assert isinstance(message, EmailMessage)
                mails.append((row.recipient, message))
                row.status = "sent"
                session.add(row)
        return mails


def _empty_config(tmp_path: Path) -> Path:
    path = tmp_path / "pipeline.toml"
    path.write_text("")
    return path
