"""Commits are on disk when they return, synced outside the writers' lock; the worker's are not waited
for, and nothing leaves the server before what it reports is on disk."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import text

from pbem.mail.delivery import Deliverer
from pbem.mail.smtpd import store_inbound
from pbem.store.db import Database
from pbem.store.models import Setting
from tests.helpers.harness import SinkHandler
from tests.helpers.pipeline import Pipeline, drop_postgres, fresh_postgres_url, postgres_available
from tests.helpers.serving import free_port
from tests.store.test_writer_lock import other_process_can_take

NORMAL = 1  # what PRAGMA synchronous reports
MEMORY = 2  # what PRAGMA temp_store reports


class Syncs:
    """Counts Database.sync_to_disk calls (the real one runs) and whether the writers' lock was free then."""

    def __init__(self, db: Database, lock: Path) -> None:
        self.calls: list[bool] = []
        real = db.sync_to_disk

        def sync() -> None:
            self.calls.append(other_process_can_take(lock))
            real()

        db.sync_to_disk = sync  # type: ignore[method-assign]


def test_commits_are_synced_after_the_writers_lock_is_let_go_and_only_when_they_wrote(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    syncs = Syncs(db, tmp_path / "pbem.sqlite3.writer-lock")
    try:
        with db.transaction() as session:
            assert int(session.connection().exec_driver_sql("PRAGMA synchronous").scalar()) == NORMAL
            # the savepoints' sub-journals in memory, not in temporary files (0.3 ms a move)
            assert int(session.connection().exec_driver_sql("PRAGMA temp_store").scalar()) == MEMORY
            session.add(Setting(key="durable", value="1"))
        assert syncs.calls == [True]  # synced once, the lock already free for the next writer
        with db.transaction() as session:
            session.exec(text("SELECT count(*) FROM setting")).one()
        assert syncs.calls == [True]  # it only read: nothing to sync
        with db.transaction(durable=False) as session:
            session.add(Setting(key="lazy", value="1"))
        assert syncs.calls == [True]  # the caller's promise: its effects leave by mail alone
        db.write(text("UPDATE setting SET value = '2' WHERE key = 'durable'"))
        assert syncs.calls == [True, True]
        with db.writing() as connection:  # Core statements without the ORM's session (the listener's inbox rows)
            connection.execute(text("INSERT INTO setting (key, value) VALUES ('core', '1')"))
        assert syncs.calls == [True, True, True]
        with db.writing() as connection:
            connection.execute(text("SELECT count(*) FROM setting")).one()
        assert syncs.calls == [True, True, True]  # it only read
        with db.read() as session:
            keys = {row.key for row in session.exec(text("SELECT key FROM setting")).all()}
            assert {"durable", "lazy", "core"} <= keys
    finally:
        db.dispose()


def test_the_listener_stores_durably_and_the_worker_does_not_wait_for_the_disk(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    syncs = Syncs(pipe.db, tmp_path / "pbem.sqlite3.writer-lock")
    try:
        store_inbound(pipe.db, b"From: x@players.example\r\nMessage-ID: <one@players.example>\r\n\r\nhelp\r\n",
                      "x@players.example", [pipe.addresses.public], pipe.addresses.domain)
        assert syncs.calls == [True]  # on disk before the 250 the caller answers next
        assert pipe.worker.process_next()
        assert syncs.calls == [True]  # the reply is queued, not yet synced: the deliverer syncs before sending
    finally:
        pipe.close()


def test_the_deliverer_syncs_the_database_before_the_first_mail_leaves(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    events: list[tuple[str, float]] = []
    sink = SinkHandler()
    original_data = sink.handle_DATA

    async def received(*args: Any) -> str:
        events.append(("relay", time.monotonic()))
        return await original_data(*args)

    sink.handle_DATA = received  # type: ignore[method-assign]
    real_sync = pipe.db.sync_to_disk

    journal = tmp_path / "pbem.sqlite3.sent"

    def sync() -> None:
        real_sync()  # the real fsync of the log; only the moment is recorded, and the marks not yet folded
        marks = journal.read_text().count("\n") if journal.exists() else 0
        events.append((f"sync with {marks} marks in the journal", time.monotonic()))

    port = free_port()
    relay = Controller(sink, hostname="127.0.0.1", port=port)
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
    try:
        for number in range(3):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        assert (tmp_path / "pbem.sqlite3-wal").exists()
        pipe.db.sync_to_disk = sync  # type: ignore[method-assign]
        assert deliverer.deliver_due() == 3
        # Before the first mail leaves; then the round's marks, folded without waiting for the disk, are
        # synced before the journal that holds them is emptied.
        assert [name for name, _ in events] == ["sync with 0 marks in the journal", "relay", "relay", "relay",
                                                "sync with 3 marks in the journal"]
        assert journal.read_text() == ""
        events.clear()
        assert deliverer.deliver_due() == 0
        assert events == []  # nothing to send or fold: no sync either
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


def test_syncing_works_with_and_without_a_log_and_in_memory(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    with db.transaction(durable=False) as session:
        session.add(Setting(key="k", value="v"))
    assert (tmp_path / "pbem.sqlite3-wal").exists()
    db.sync_to_disk()
    db.dispose()  # the last connection checkpoints and removes the log
    assert not (tmp_path / "pbem.sqlite3-wal").exists()
    db.sync_to_disk()
    memory = Database("sqlite://")
    memory.sync_to_disk()
    memory.dispose()


def test_postgresql_the_worker_commits_asynchronously_and_the_rest_synchronously() -> None:
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    url = fresh_postgres_url()
    db = Database(url)
    try:
        db.create_all()

        def setting(session: Any) -> str:
            return str(session.connection().exec_driver_sql("SHOW synchronous_commit").scalar())

        with db.transaction(durable=False) as session:
            assert setting(session) == "off"
            session.add(Setting(key="lazy", value="1"))
        with db.transaction() as session:  # SET LOCAL ended with the transaction: the pool's connection is back
            assert setting(session) == "on"
        with db.read() as session:
            assert session.exec(text("SELECT value FROM setting WHERE key = 'lazy'")).scalar() == "1"
        db.sync_to_disk()  # nothing to do there: the deliverer's claim is a synchronous commit
    finally:
        db.dispose()
        drop_postgres(url)
