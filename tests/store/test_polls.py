"""Database.waiting on SQLite: a plain connection per thread that sees every commit and holds no snapshot."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from sqlalchemy import delete, insert
from sqlmodel import select

from pbem.store.db import Database
from pbem.store.models import Setting

WAITING = select(Setting.key).where(Setting.value == "waiting").limit(1)


def make(tmp_path: Path) -> Database:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    return db


def put(db: Database, key: str) -> None:
    with db.transaction() as session:
        session.execute(insert(Setting).values(key=key, value="waiting"))


def test_a_poll_sees_each_commit_as_it_lands(tmp_path: Path) -> None:
    db = make(tmp_path)
    assert not db.waiting(WAITING)
    put(db, "a")
    assert db.waiting(WAITING)
    with db.transaction() as session:
        session.execute(delete(Setting))
    assert not db.waiting(WAITING)
    seen: list[bool] = []
    writer = threading.Thread(target=put, args=(db, "b"))
    writer.start()
    writer.join()
    poller = threading.Thread(target=lambda: seen.append(db.waiting(WAITING)))  # a thread of its own connection
    poller.start()
    poller.join()
    assert seen == [True] and db.waiting(WAITING)


def test_a_poll_leaves_no_read_transaction_open(tmp_path: Path) -> None:
    """A snapshot kept between polls would stop checkpoints from emptying the log (and grow it for ever)."""
    db = make(tmp_path)
    for key in "abc":
        put(db, key)
    assert db.waiting(WAITING)
    check = sqlite3.connect(tmp_path / "pbem.sqlite3", isolation_level=None)
    busy, _log, _copied = check.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    assert busy == 0


def test_a_poll_never_writes(tmp_path: Path) -> None:
    db = make(tmp_path)
    writes = select(Setting.key).where(Setting.key.in_(["x"]))  # type: ignore[attr-defined]
    assert not db.waiting(writes)
    connection = db._polls._connection()  # type: ignore[union-attr]
    try:
        connection.execute("INSERT INTO setting (key, value) VALUES ('x', 'y')")
        raise AssertionError("the poll connection wrote")
    except sqlite3.OperationalError as error:
        assert "readonly" in str(error)


def test_a_forked_process_polls_on_its_own_connection(tmp_path: Path) -> None:
    db = make(tmp_path)
    assert not db.waiting(WAITING)  # this process's connection exists before the fork
    put(db, "a")
    child = os.fork()
    if child == 0:
        code = 0 if db.waiting(WAITING) and db._polls._connection() is not None else 1  # type: ignore[union-attr]
        os._exit(code)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
