"""Prepared statements write and read exactly what SQLAlchemy's own execution does, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import bindparam, event, insert, select, update
from sqlmodel import col

from pbem.store.db import Database
from pbem.store.models import InboxItem
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import InboxStatus

_INBOX: Any = InboxItem.__table__  # type: ignore[attr-defined]
_COLUMNS = ("message_id", "envelope_from", "recipients", "raw", "status", "error", "received_at", "processed_at")


def random_row(rng: random.Random, number: int) -> dict[str, Any]:
    """An inbox row with awkward values: non-ASCII text, quotes, NUL and high bytes, None, aware datetimes."""
    words = ["Zoë", "O'Brien", '"quoted"', "ünïcode", "%(x)s", "?", "", "a;b", "\\"]
    stamp = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=rng.randrange(10**8),
                                                         microseconds=rng.randrange(10**6))
    return {"message_id": f"<{number}.{rng.random()}@example.org>",
            "envelope_from": rng.choice(words) + "@example.org",
            "recipients": [rng.choice(words) for _ in range(rng.randrange(4))],
            "raw": bytes(rng.randrange(256) for _ in range(rng.randrange(64))),
            "status": rng.choice(list(InboxStatus)), "error": rng.choice(words),
            "received_at": stamp, "processed_at": rng.choice([None, stamp + timedelta(minutes=3)])}


def read_back(db: Database, statement: Any) -> list[tuple[Any, ...]]:
    with db.read() as session:
        return [tuple(row) for row in session.connection().execute(statement)]


def test_a_prepared_insert_stores_what_sqlalchemys_insert_stores(db: Database) -> None:
    rng = random.Random()
    rows = [random_row(rng, number) for number in range(40)]
    prepared = Prepared.insert(_INBOX, _COLUMNS)
    with db.transaction() as session:
        for row in rows[:20]:
            session.connection().execute(insert(_INBOX), row)
        for row in rows[20:]:
            prepared.execute(session, row)
    stored = read_back(db, select(*(_INBOX.c[name] for name in _COLUMNS)).order_by(_INBOX.c.id))
    assert stored == [tuple(row[name] for name in _COLUMNS) for row in rows]


def test_a_prepared_select_reads_what_sqlalchemys_select_reads(db: Database) -> None:
    rng = random.Random()
    with db.transaction() as session:
        session.connection().execute(insert(_INBOX), [random_row(rng, number) for number in range(30)])
    query = (select(_INBOX.c.id, *(_INBOX.c[name] for name in _COLUMNS))
             .where(_INBOX.c.id > bindparam("after")).order_by(_INBOX.c.id).limit(12))
    prepared = Prepared(query)
    with db.transaction() as session:
        ours = prepared.rows(session, {"after": 5})
        theirs = session.connection().execute(query, {"after": 5}).all()
    assert [tuple(row) for row in ours] == [tuple(row) for row in theirs] and len(ours) == 12
    assert [row.message_id for row in ours] == [row.message_id for row in theirs]  # columns by name


def test_a_prepared_update_changes_only_its_row(db: Database) -> None:
    rng = random.Random()
    with db.transaction() as session:
        session.connection().execute(insert(_INBOX), [random_row(rng, number) for number in range(5)])
    mark = Prepared(update(_INBOX).where(_INBOX.c.id == bindparam("item_id"))
                    .values(status=bindparam("status"), error=bindparam("error")))
    before = read_back(db, select(_INBOX).order_by(_INBOX.c.id))
    with db.transaction() as session:
        assert mark.execute(session, {"item_id": 3, "status": InboxStatus.DONE, "error": "fine"}).rowcount == 1
    after = read_back(db, select(_INBOX).order_by(_INBOX.c.id))
    status, error = list(_INBOX.c.keys()).index("status"), list(_INBOX.c.keys()).index("error")
    assert [row for row in after if row[0] != 3] == [row for row in before if row[0] != 3]
    assert [(row[status], row[error]) for row in after if row[0] == 3] == [("done", "fine")]


def test_a_prepared_statement_runs_in_the_callers_transaction(db: Database) -> None:
    prepared = Prepared.insert(_INBOX, _COLUMNS)
    rng = random.Random()
    with pytest.raises(RuntimeError), db.transaction() as session:
        prepared.execute(session, random_row(rng, 1))
        assert len(session.connection().execute(select(_INBOX.c.id)).all()) == 1  # seen inside it
        raise RuntimeError("rolled back")
    assert read_back(db, select(_INBOX.c.id)) == []


def test_the_engines_statement_listeners_see_prepared_statements(db: Database) -> None:
    seen: list[str] = []

    def listener(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        seen.append(statement)

    prepared = Prepared(select(col(InboxItem.id)).where(col(InboxItem.status) == bindparam("status")))
    event.listen(db.engine, "before_cursor_execute", listener)
    try:
        with db.read() as session:
            assert prepared.rows(session, {"status": "new"}) == []
    finally:
        event.remove(db.engine, "before_cursor_execute", listener)
    assert any(statement.startswith("SELECT inboxitem.id") for statement in seen)


def test_an_expanding_in_list_is_refused(db: Database) -> None:
    prepared = Prepared(select(_INBOX.c.id).where(_INBOX.c.id.in_(bindparam("ids", expanding=True))))
    with db.read() as session, pytest.raises(ValueError, match="expanding"):
        prepared.rows(session, {"ids": [1, 2]})
