"""Database.waiting: a plain connection per thread (SQLite in a file, PostgreSQL) that sees every commit, holds
no transaction between polls and never writes."""

from __future__ import annotations

import os
import random
import sqlite3
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from sqlalchemy import delete, insert
from sqlmodel import func, select

from pbem.store.db import Database
from pbem.store.models import Account, Setting
from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available

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


# -- PostgreSQL: kept autocommit connections outside the pool ----------------------------------------------


@pytest.fixture
def postgres() -> Iterator[Database]:
    reason = postgres_available()
    if reason is not None:
        pytest.skip(reason)
    url = fresh_postgres_url()
    db = Database(url)
    db.create_all()
    try:
        yield db
    finally:
        db.dispose()
        drop_postgres(url)


def _polls(db: Database) -> list[tuple[int, str]]:
    """(pid, state) of the sessions on ``db``'s database whose last statement was one of the tests' polls."""
    with psycopg.connect(db.url.replace("+psycopg", ""), autocommit=True) as connection:
        return [(int(pid), str(state)) for pid, state in connection.execute(
            "SELECT pid, state FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND query LIKE 'SELECT setting.key%'").fetchall()]


def test_a_postgres_poll_sees_each_commit_and_leaves_no_transaction_open(postgres: Database) -> None:
    assert not postgres.waiting(WAITING)
    put(postgres, "a")
    assert postgres.waiting(WAITING)
    seen: list[bool] = []
    for _ in range(3):  # other threads, one after the other (the server's executor)
        poller = threading.Thread(target=lambda: seen.append(postgres.waiting(WAITING)))
        poller.start()
        poller.join()
    assert seen == [True, True, True]
    polls = _polls(postgres)
    assert len(polls) == 1, polls  # one poll at a time: one connection, whichever thread polls
    assert polls[0][1] == "idle"  # not "idle in transaction"


def test_polls_at_once_each_have_a_connection(postgres: Database) -> None:
    first = postgres._polls._take()  # type: ignore[union-attr]  # a poll under way in another thread
    assert not postgres.waiting(WAITING)
    second = postgres._polls._take()  # type: ignore[union-attr]
    assert second is not first  # the one the poll above used, given back; the first is still out
    assert len(_polls(postgres)) == 1  # the first one never polled


def test_a_postgres_poll_never_writes(postgres: Database) -> None:
    assert not postgres.waiting(WAITING)
    connection = postgres._polls._take()  # type: ignore[union-attr]
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction), connection.cursor() as cursor:
        cursor.execute("INSERT INTO setting (key, value) VALUES ('x', 'y')")


def test_a_postgres_poll_survives_its_connection_dropped(postgres: Database) -> None:
    """A server restart or an idle timeout ends the kept connection: the next poll opens another."""
    assert not postgres.waiting(WAITING)
    ((poll, _state),) = _polls(postgres)
    with psycopg.connect(postgres.url.replace("+psycopg", ""), autocommit=True) as connection:
        connection.execute("SELECT pg_terminate_backend(%s)", (poll,))
    put(postgres, "a")
    assert postgres.waiting(WAITING)
    polls = [pid for pid, _state in _polls(postgres)]
    assert len(polls) == 1 and poll not in polls


def test_dispose_closes_the_postgres_poll_connections(postgres: Database) -> None:
    assert not postgres.waiting(WAITING)
    assert _polls(postgres)
    postgres.dispose()
    assert not _polls(postgres)


def test_a_forked_process_polls_postgres_on_its_own_connection(postgres: Database) -> None:
    assert not postgres.waiting(WAITING)  # this process's connection exists before the fork
    put(postgres, "a")
    ((parent, _state),) = _polls(postgres)
    child = os.fork()
    if child == 0:
        found = postgres.waiting(WAITING) and len(_polls(postgres)) == 2  # the parent's, and one of its own
        postgres.dispose()  # closes the child's own connection, never the parent's
        os._exit(0 if found else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert postgres.waiting(WAITING)  # the parent's connection still works
    assert [pid for pid, _state in _polls(postgres)] == [parent]


#: A polled row of the kind the worker asks for after every round: scalar subqueries, dates, a count, a NULL.
ROW = select(select(func.min(Account.vacation_until)).scalar_subquery(),
             select(func.min(Account.next_digest_at)).scalar_subquery(),
             select(func.count(Account.id)).scalar_subquery(), select(Account.handle).limit(1).scalar_subquery())


def polled_rows_match_the_sessions(db: Database) -> None:
    rng = random.Random()
    for round_number in range(4):
        with db.read() as session:
            expected = tuple(session.exec(ROW).one())
        assert db.polled_row(ROW) == expected, round_number
        with db.transaction() as session:
            session.add(Account(handle=f"p{round_number}", email=f"p{round_number}@example.org",
                                vacation_until=rng.choice([None, datetime(2026, 12, 1, rng.randrange(24),
                                                                          rng.randrange(60), rng.randrange(60),
                                                                          rng.randrange(10**6), tzinfo=UTC)]),
                                next_digest_at=rng.choice([None, datetime(2026, 12, 2, 7, 30, tzinfo=UTC)])))
    with db.read() as session:
        assert db.polled_row(ROW) == tuple(session.exec(ROW).one())
    assert db.polled_row(select(Account.id).where(Account.handle == "nobody")) is None


def test_a_polled_row_is_converted_as_the_session_converts_it(tmp_path: Path) -> None:
    polled_rows_match_the_sessions(make(tmp_path))


def test_a_polled_row_on_postgres_is_converted_as_the_session_converts_it(postgres: Database) -> None:
    polled_rows_match_the_sessions(postgres)


def test_a_polled_row_of_sqlite_in_memory_goes_through_sqlalchemy() -> None:
    db = Database("sqlite://")
    db.create_all()
    polled_rows_match_the_sessions(db)
