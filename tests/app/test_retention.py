"""Retention through the sweep on an injected clock: old bodies emptied, Message-IDs still absorb duplicates,
games intact."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.mail.smtpd import store_inbound
from pbem.store.models import Game, InboxItem, MoveRecord, OutboxItem
from tests.helpers.clock import FakeTime
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, now=time, PBEM_RETENTION_INBOUND_DAYS="30", PBEM_RETENTION_OUTBOUND_DAYS="10")
    yield p
    p.close()


def bodies(pipe: Pipeline) -> tuple[list[int], list[int]]:
    with pipe.db.read() as session:
        inbox = [len(row.raw) for row in session.exec(select(InboxItem).order_by(col(InboxItem.id)))]
        outbox = [len(row.raw) for row in session.exec(select(OutboxItem).order_by(col(OutboxItem.id)))]
    return inbox, outbox


def test_the_sweep_empties_old_bodies_and_keeps_ids_and_games(pipe: Pipeline, time: FakeTime) -> None:
    start = time.now = datetime.now(UTC)  # the listener stamps arrivals with the real clock
    _, _, alice_seat, bob_seat = begin_game(pipe, "days 300")
    moved = pipe.send(ALICE, alice_seat, "Pe2-e4")
    pipe.drain_outbox()
    with pipe.db.read() as session:
        raw_move = session.exec(select(InboxItem).where(InboxItem.message_id == moved)).one().raw
    inbox, outbox = bodies(pipe)
    assert all(inbox) and all(outbox)
    time.now = start + timedelta(days=5)
    pipe.sweep()
    assert bodies(pipe) == (inbox, outbox)  # nothing is old enough yet
    time.now = start + timedelta(days=11)
    pipe.sweep()
    inbox_after, outbox_after = bodies(pipe)
    assert inbox_after == inbox and set(outbox_after) == {0}  # sent mails first: 10 days
    time.now = start + timedelta(days=11)
    pipe.send(BOB, bob_seat, "Pe7-e5")  # a fresh mail on day 11
    with pipe.db.transaction() as session:  # the listener's own clock is real: date the arrival as day 11
        latest = session.exec(select(InboxItem).order_by(col(InboxItem.id).desc())).first()
        assert latest is not None
        latest.received_at = time.now
        session.add(latest)
    time.now = start + timedelta(days=31)
    pipe.sweep()
    inbox_after, _ = bodies(pipe)
    assert inbox_after[:-1] == [0] * (len(inbox_after) - 1) and inbox_after[-1] > 0  # day 11's stays
    # The Message-ID still absorbs a late copy of the first move, which is not played twice.
    assert store_inbound(pipe.db, raw_move, ALICE, [alice_seat], pipe.addresses.domain) is False
    pipe.worker.drain()
    with pipe.db.read() as session:
        ply = session.exec(select(Game.ply)).one()
        records = [r.record for r in session.exec(select(MoveRecord).order_by(col(MoveRecord.ply)))]
    assert ply == 2 and records == ["Pe2-e4", "Pe7-e5"]
