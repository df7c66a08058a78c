"""The listener's inbox writes (pbem.mail.smtpd.store_batch) on SQLite and PostgreSQL: each Message-ID stored once."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from sqlmodel import select

import pbem.mail.smtpd
from pbem.mail.smtpd import MAX_GROUP, Arrival, store_batch
from pbem.store.db import Database
from pbem.store.models import InboxItem
from pbem.store.vocabulary import InboxStatus


def arrival(number: int, recipients: tuple[str, ...] = ("pbem@pbem.localhost",)) -> Arrival:
    raw = f"From: p{number}@players.example\r\nMessage-ID: <m{number}@players.example>\r\n\r\nhelp\r\n".encode()
    return Arrival(raw, f"p{number}@players.example", list(recipients), f"<m{number}@players.example>")


def stored(db: Database) -> list[dict[str, Any]]:
    with db.read() as session:
        return [row.model_dump() for row in session.exec(select(InboxItem).order_by(InboxItem.id))]  # type: ignore[arg-type]


def test_a_batch_stores_each_new_message_id_once_and_absorbs_the_rest(db: Database) -> None:
    assert store_batch(db, [arrival(1)]) == [True]
    two = arrival(2, ("pbem+u1.abc@pbem.localhost", "pbem@pbem.localhost"))
    assert store_batch(db, [two, arrival(1), arrival(3), two]) == [True, False, True, False]
    rows = stored(db)
    assert [row["message_id"] for row in rows] == [f"<m{n}@players.example>" for n in (1, 2, 3)]
    second = rows[1]
    assert {name: second[name] for name in ("envelope_from", "recipients", "raw", "status", "error")} == {
        "envelope_from": two.envelope_from, "recipients": two.recipients, "raw": two.raw, "status": InboxStatus.NEW,
        "error": ""}
    assert isinstance(second["received_at"], datetime) and second["processed_at"] is None


#: The look-up for stored Message-IDs made before another instance committed the same mail: it finds nothing.
_LOOKS_TOO_EARLY = "SELECT message_id FROM inboxitem WHERE message_id IN ({rows}) AND 0 = 1"


def test_a_copy_stored_by_another_instance_after_the_check_is_absorbed(db: Database,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    other = Database(db.url)  # a second instance on the same database, as in a scale-out
    try:
        assert store_batch(other, [arrival(1)]) == [True]
    finally:
        other.dispose()
    monkeypatch.setattr(pbem.mail.smtpd, "_STORED", _LOOKS_TOO_EARLY)
    # The unique index refuses the copy (the driver's own error): the batch is rolled back and its mails settled
    # one by one, the copy absorbed and the new mail stored.
    assert store_batch(db, [arrival(1), arrival(2)]) == [False, True]
    assert [row["message_id"] for row in stored(db)] == ["<m1@players.example>", "<m2@players.example>"]


def test_a_batch_larger_than_a_group_is_stored_in_parts_each_message_id_once(db: Database) -> None:
    many = [arrival(number) for number in range(MAX_GROUP + 5)]
    assert store_batch(db, [*many, many[0], many[-1]]) == [True] * len(many) + [False, False]
    assert len(stored(db)) == len(many)


def test_a_row_the_inbox_refuses_for_another_reason_is_not_taken_for_a_duplicate(db: Database) -> None:
    """Only the Message-ID's unique index makes a duplicate: any other refusal is raised (the listener answers 451
    and the client keeps the mail), never answered 250 as if the mail were stored."""
    broken = Arrival(None, "ann@players.example", ["pbem@pbem.localhost"], "<broken@players.example>")  # type: ignore[arg-type]
    with pytest.raises(db.integrity_errors):
        store_batch(db, [broken])
    with pytest.raises(db.integrity_errors):
        store_batch(db, [arrival(1), broken])
    assert stored(db) == []
