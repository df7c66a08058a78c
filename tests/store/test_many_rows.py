"""Many rows in one statement (pbem.store.many_rows): placeholders in the driver's style, values through the columns'
types, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import select

from pbem.store.db import Database
from pbem.store.many_rows import ManyRows, converted, converters
from pbem.store.models import InboxItem
from pbem.store.vocabulary import InboxStatus

_INBOX = InboxItem.__table__  # type: ignore[attr-defined]
T0 = datetime(2026, 11, 30, 6, 0, 0, 123456, tzinfo=UTC)


def test_placeholders_follow_the_driver_and_marks_come_after_the_rows() -> None:
    template = "WITH v (k, b) AS (VALUES {rows}) UPDATE t SET a = {mark} FROM v WHERE t.b = {mark}"
    made = ManyRows.make(sqlite.dialect(), template, [(1, "x"), (2, "y")], after=("a", "b"))
    assert made.sql == "WITH v (k, b) AS (VALUES (?, ?), (?, ?)) UPDATE t SET a = ? FROM v WHERE t.b = ?"
    assert made.arguments == (1, "x", 2, "y", "a", "b")
    made = ManyRows.make(postgresql.psycopg.dialect(), template, [(1, "x")], after=("a", "b"))
    assert made.sql == "WITH v (k, b) AS (VALUES (%s, %s)) UPDATE t SET a = %s FROM v WHERE t.b = %s"


def test_values_go_through_their_columns_types() -> None:
    dialect = sqlite.dialect()
    convert = converters(dialect, (_INBOX.c.recipients, _INBOX.c.received_at))
    # As SQLAlchemy stores them: JSON text, and the time in UTC without its zone.
    assert converted(convert, (["a@b"], T0)) == ('["a@b"]', "2026-11-30 06:00:00.123456")
    made = ManyRows.make(dialect, "VALUES {rows}", [(["a@b"], T0)], convert)
    assert made.arguments == ('["a@b"]', "2026-11-30 06:00:00.123456")


@pytest.mark.parametrize("rows, error", [
    ([], "no rows"), ([(1, 2), (3,)], "different lengths")])
def test_no_rows_and_rows_of_different_lengths_are_refused(rows: list[tuple[int, ...]], error: str) -> None:
    with pytest.raises(ValueError, match=error):
        ManyRows.make(sqlite.dialect(), "VALUES {rows}", rows)


def test_a_mark_before_the_rows_is_refused() -> None:
    with pytest.raises(ValueError, match="before"):
        ManyRows.make(sqlite.dialect(), "SELECT {mark} FROM (VALUES {rows})", [(1,)], after=(2,))


def test_an_insert_and_a_select_of_many_rows_run_in_a_transaction(db: Database) -> None:
    dialect = db.engine.dialect
    columns = ("message_id", "envelope_from", "recipients", "raw", "status", "error", "received_at")
    convert = converters(dialect, (_INBOX.c[name] for name in columns))
    rows = [(f"<m{number}@x>", "p@x", [f"r{number}@x"], b"raw", InboxStatus.NEW, "", T0) for number in range(3)]
    with db.transaction() as session:
        ManyRows.make(dialect, f"INSERT INTO inboxitem ({', '.join(columns)}) VALUES {{rows}}", rows, convert
                      ).run(session)
        found = ManyRows.make(dialect, "SELECT message_id FROM inboxitem WHERE message_id IN ({rows}) "
                              "ORDER BY message_id", [("<m0@x>",), ("<m2@x>",), ("<nothing@x>",)]).rows(session)
    assert found == [("<m0@x>",), ("<m2@x>",)]
    with db.read() as session:
        stored = [tuple(getattr(row, name) for name in columns)
                  for row in session.exec(select(InboxItem).order_by(InboxItem.id))]  # type: ignore[arg-type]
    assert stored == rows
