"""The listener's reading of a mail, kept for the worker (pbem.mail.inbound.reading, pbem.mail.smtpd.GroupCommit)."""

from __future__ import annotations

import asyncio
import dataclasses
import smtplib
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlmodel import select

from pbem.commands.registry import looks_like_command
from pbem.mail.inbound.parse import InboundMail, parse_mail
from pbem.mail.inbound.reading import READING_FORMAT, reading_from_text, reading_text
from pbem.mail.smtpd import InboundHandler, make_smtp_factory
from pbem.store import json_text
from pbem.store.models import InboxItem
from pbem.worker import read_ahead
from tests.helpers.pipeline import Pipeline
from tests.mail.test_parse import SAMPLE_MAILS, mutated_mails


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.sampled_from(SAMPLE_MAILS), mutated_mails(), st.binary(max_size=2000)),
       st.one_of(st.none(), st.sampled_from(["", "<>", "ann@players.example"]), st.text(max_size=20)))
@example(b"From: a@b.example\r\nSubject: \xed\xa0\x80\r\n\r\nPe2-e4\r\n", "a@b.example")
def test_a_kept_reading_is_the_worker_s_own(raw: bytes, envelope: str | None) -> None:
    """Whatever the bytes: the reading kept as text is read back as the parser gave it, or not kept at all."""
    mail = parse_mail(raw, envelope, looks_like_command)
    text = reading_text(mail)
    assert reading_from_text(text) == (mail if text else None)


def _a_reading(**changes: object) -> InboundMail:
    return dataclasses.replace(parse_mail(b"From: ann@players.example\r\n\r\nPe2-e4\r\n", None, looks_like_command),
                               **changes)


def test_a_lone_surrogate_is_not_kept() -> None:
    assert reading_text(_a_reading(body="a \udcff b")) == ""


@pytest.mark.parametrize("text", [
    "", "not json", "[]", '{"format": "0/0"}', json_text.dumps({"format": READING_FORMAT}),
    json_text.dumps({**dataclasses.asdict(_a_reading()), "format": "1/0.0.0"}),  # another release's
    json_text.dumps({**dataclasses.asdict(_a_reading()), "format": READING_FORMAT, "body": 3}),
    json_text.dumps({**dataclasses.asdict(_a_reading()), "format": READING_FORMAT, "commands": [["x"]]}),
    json_text.dumps({**dataclasses.asdict(_a_reading()), "format": READING_FORMAT, "automatic": 1}),
    json_text.dumps({**dataclasses.asdict(_a_reading()), "format": READING_FORMAT, "references": 5}),
])
def test_a_reading_of_another_format_or_shape_is_not_used(text: str) -> None:
    assert reading_from_text(text) is None


def test_the_format_names_the_release() -> None:
    import pbem

    assert READING_FORMAT.endswith(f"/{pbem.__version__}")


def _mail(sender: str, to: str, body: str) -> bytes:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = sender, to, "pbem"
    message["Message-ID"] = make_msgid(domain="players.example")
    message.set_content(body)
    return message.as_bytes()


def _listen_and_send(pipe: Pipeline, mails: list[tuple[str, str, bytes]], read: object) -> None:
    """A real SMTP session over loopback into the listener's handler, reading each mail with ``read``."""
    handler = InboundHandler(pipe.db, pipe.addresses, read=read)  # type: ignore[arg-type]

    async def session() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(make_smtp_factory(handler, 1 << 20, pipe.addresses.domain),
                                          "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]

        def send() -> None:
            with smtplib.SMTP("127.0.0.1", port) as client:
                for sender, to, raw in mails:
                    client.sendmail(sender, [to], raw)

        await asyncio.to_thread(send)
        server.close()
        await server.wait_closed()

    asyncio.run(session())


def test_the_listener_stores_the_worker_s_reading_with_each_mail(tmp_path: Path, database_url: str | None) -> None:
    pipe = Pipeline(tmp_path, database_url)
    try:
        public = pipe.addresses.public
        mails = [("ann@players.example", public, _mail("ann@players.example", public, "register ann")),
                 ("", public, _mail("mailer-daemon@players.example", public, "Delivery failed"))]
        _listen_and_send(pipe, mails, read_ahead)
        with pipe.db.read() as session:
            rows = list(session.exec(select(InboxItem.parsed, InboxItem.raw, InboxItem.envelope_from)
                                     .order_by(InboxItem.id)))  # type: ignore[arg-type]
        assert [envelope for _, _, envelope in rows] == ["ann@players.example", "<>"]
        kept = [parsed for parsed, _, _ in rows]
        assert kept == [reading_text(parse_mail(raw, envelope, looks_like_command)) for _, raw, envelope in rows]
        first = reading_from_text(kept[0])
        assert first is not None and first.commands == ("register ann",)
        assert pipe.worker.drain() == 2  # both applied: the welcome mail, the bounce left unanswered
        assert any("Welcome" in str(message.get_body(("plain",)).get_content()) for _, message in pipe.drain_outbox())
    finally:
        pipe.close()


def test_a_reading_that_fails_leaves_the_mail_to_the_worker(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def failing(raw: bytes, envelope_from: str) -> str:
        raise RuntimeError("a reading that fails")

    pipe = Pipeline(tmp_path)
    try:
        public = pipe.addresses.public
        _listen_and_send(pipe, [("ann@players.example", public, _mail("ann@players.example", public, "register ann"))],
                         failing)
        with pipe.db.read() as session:
            parsed, raw = session.exec(select(InboxItem.parsed, InboxItem.raw)).one()
        assert parsed == "" and b"register ann" in raw
        assert "could not read" in caplog.text
        assert pipe.worker.drain() == 1
        assert any("Welcome" in str(message.get_body(("plain",)).get_content()) for _, message in pipe.drain_outbox())
    finally:
        pipe.close()


def test_the_worker_answers_the_kept_reading_and_reads_the_mail_when_there_is_none(tmp_path: Path,
                                                                                   database_url: str | None) -> None:
    """The kept reading stands for the mail's bytes (here it says "help" where the bytes say "register"); one of
    another release is passed over and the bytes are read."""
    pipe = Pipeline(tmp_path, database_url)
    try:
        public = pipe.addresses.public
        for body in ("register ann", "register bob"):
            pipe.queue(f"{body.split()[1]}@players.example", public, body)
        with pipe.db.transaction() as session:
            first, second = session.exec(select(InboxItem).order_by(InboxItem.id)).all()  # type: ignore[arg-type]
            kept = reading_from_text(read_ahead(first.raw, first.envelope_from))
            assert kept is not None
            first.parsed = reading_text(dataclasses.replace(kept, commands=("help",)))
            second.parsed = first.parsed.replace(READING_FORMAT, "1/0.0.0")
        assert pipe.worker.drain() == 2
        texts = {to: str(message.get_body(("plain",)).get_content()) for to, message in pipe.drain_outbox()}
        assert "Welcome" not in texts["ann@players.example"] and "help" in texts["ann@players.example"].lower()
        assert "Welcome" in texts["bob@players.example"]
    finally:
        pipe.close()


def test_the_reading_is_made_outside_the_writers_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The reading runs before the commit's transaction: the worker's batch is not kept waiting by it."""
    pipe = Pipeline(tmp_path)
    held: list[bool] = []
    try:
        def watching(raw: bytes, envelope_from: str) -> str:
            held.append(_holding(pipe))
            return read_ahead(raw, envelope_from)

        public = pipe.addresses.public
        _listen_and_send(pipe, [("ann@players.example", public, _mail("ann@players.example", public, "help"))],
                         watching)
        assert held == [False]
    finally:
        pipe.close()


def _holding(pipe: Pipeline) -> bool:
    """Whether some transaction holds the writers' lock now (a non-blocking try of another connection's write)."""
    import sqlite3

    connection = sqlite3.connect(str(pipe.db.engine.url.database), timeout=0)
    try:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        connection.close()

