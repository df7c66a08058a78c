"""Deadline notices: the sweep decides and records, the worker writes the mails, each exactly once."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.models import Game, GameNotice, OutboxItem
from pbem.sweep import Sweeper
from tests.helpers.clock import FakeTime, make_pipe
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    yield from make_pipe(tmp_path, time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false")


def notices(pipe: Pipeline) -> list[GameNotice]:
    with pipe.db.transaction() as session:  # committed, not rolled back: the rows stay readable
        return list(session.exec(select(GameNotice)).all())


def queued(pipe: Pipeline) -> int:
    with pipe.db.read() as session:
        return len(session.exec(select(OutboxItem).where(OutboxItem.status == "pending")).all())


def game(pipe: Pipeline) -> Game:
    with pipe.db.transaction() as session:
        return session.exec(select(Game)).one()


def test_the_sweep_ends_the_game_and_the_worker_writes_its_mails(pipe: Pipeline, time: FakeTime) -> None:
    begin_game(pipe, "days 2")
    pipe.drain_outbox()
    time.at(2.0)
    assert Sweeper(pipe.db, pipe.services).sweep() == 1
    over = game(pipe)
    assert over.status == "finished" and over.result == "0-1"  # decided at once, in the sweep's transaction
    assert queued(pipe) == 0
    [notice] = notices(pipe)
    assert (notice.kind, notice.seat, notice.details["result"]) == ("ended", "white", "0-1")
    assert pipe.worker.process_next() and not pipe.worker.process_next()
    mails = pipe.drain_outbox()
    assert sorted(r for r, _ in mails) == [ALICE, BOB]
    assert all("alice lost on time" in body_of(m) for _, m in mails)
    assert all(m.get_content_type() == "multipart/mixed" for _, m in mails)  # the record and the GIF
    assert notices(pipe) == []


def test_a_restart_between_the_sweep_and_the_worker_sends_the_mails_once(tmp_path: Path, time: FakeTime) -> None:
    for first in make_pipe(tmp_path, time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false"):
        begin_game(first, "days 2")
        first.drain_outbox()
        time.at(2.0)
        Sweeper(first.db, first.services).sweep()  # committed; the server dies before its worker runs
    for second in make_pipe(tmp_path, time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false"):
        assert second.sweep() == 0  # nothing left to decide: the game is over
        mails = second.drain_outbox()
        assert sorted(r for r, _ in mails) == [ALICE, BOB]
        second.sweep()
        second.worker.drain()
        assert second.drain_outbox() == [] and notices(second) == []


def test_a_reminder_for_a_turn_played_since_is_dropped(pipe: Pipeline, time: FakeTime) -> None:
    _, _, seat_a, _ = begin_game(pipe, "days 10")
    pipe.drain_outbox()
    time.at(5.0)
    Sweeper(pipe.db, pipe.services).sweep()
    assert [n.kind for n in notices(pipe)] == ["reminder"]
    pipe.queue(ALICE, seat_a, "e4")
    assert pipe.worker.process_mail()  # the move is played before the reminder is written
    assert game(pipe).ply == 1
    pipe.drain_outbox()
    assert pipe.worker.process_next()
    assert notices(pipe) == [] and pipe.drain_outbox() == []  # no "your move" to alice after she moved


def test_late_notices_are_written_for_both_players(tmp_path: Path, time: FakeTime) -> None:
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_GRACE_DAYS="2"):
        begin_game(pipe, "days 3")
        pipe.drain_outbox()
        time.at(3.0)
        pipe.sweep()
        mails = {r: body_of(m) for r, m in pipe.drain_outbox()}
        assert "Your time is up in game 1" in mails[ALICE] and "the game is aborted" in mails[ALICE]
        assert "with no first move by" in mails[BOB]


def test_a_notice_that_cannot_be_written_is_kept_as_failed_and_the_others_go(pipe: Pipeline,
                                                                            time: FakeTime) -> None:
    begin_game(pipe, "days 2")
    pipe.drain_outbox()
    game_id = game(pipe).id or 0
    with pipe.db.transaction() as session:
        session.add(GameNotice(game_id=game_id, kind="ended", seat="white", ply=0, details={}))
    time.at(2.0)
    pipe.sweep()
    assert sorted(r for r, _ in pipe.drain_outbox()) == [ALICE, BOB]  # the game's end still told
    [kept] = notices(pipe)
    assert kept.status == "failed" and "KeyError" in kept.error
    assert not pipe.worker.process_next()  # a failed notice is not retried in a loop


def three_games_ended(pipe: Pipeline, time: FakeTime) -> None:
    """Two days on, the sweep ends the game, and two more notices are left as if it had ended three."""
    time.at(2.0)
    Sweeper(pipe.db, pipe.services).sweep()
    [ended] = notices(pipe)
    with pipe.db.transaction() as session:
        for _ in range(2):
            session.add(GameNotice(game_id=ended.game_id, kind="ended", seat="white", ply=0, details=ended.details))


def test_mails_go_between_the_notices_of_a_big_sweep_not_after_them_all(pipe: Pipeline, time: FakeTime,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.worker

    monkeypatch.setattr(pbem.worker, "NOTICE_POLL_SECONDS", 0.0)  # a second after the last look found none
    alice, _, _, _ = begin_game(pipe, "days 2")
    pipe.drain_outbox()
    three_games_ended(pipe, time)
    pipe.queue(ALICE, alice, "games")
    assert pipe.worker.process_next()
    assert len(notices(pipe)) == 2  # one notice written this round...
    answered = [body_of(m) for r, m in pipe.drain_outbox() if r == ALICE]
    assert any("Games of alice:" in body and "over, 0-1" in body for body in answered)  # ...and the mail answered
    pipe.worker.drain()
    assert notices(pipe) == []


def test_a_game_the_sweep_cannot_decide_is_left_alone_and_the_others_end(pipe: Pipeline, time: FakeTime,
                                                                         caplog: pytest.LogCaptureFixture) -> None:
    alice, bob, _, _ = begin_game(pipe, "days 2")
    pipe.send(ALICE, alice, "challenge bob voidrider white days 2")
    number = re.search(r"accept (\d+)", next(body_of(m) for r, m in pipe.drain_outbox() if r == BOB))
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}")
    pipe.drain_outbox()
    with pipe.db.transaction() as session:
        broken = session.exec(select(Game).where(Game.id == 1)).one()
        broken.clock = {"budget": "not a clock"}  # a row the sweep cannot read
        session.add(broken)
    time.at(2.0)
    with caplog.at_level(logging.ERROR, logger="pbem.sweep"):
        assert pipe.sweep() == 1
    assert "sweep of game 1 failed" in caplog.text
    with pipe.db.transaction() as session:
        statuses = {g.id: g.status for g in session.exec(select(Game)).all()}
    assert statuses == {1: "active", 2: "finished"}
    assert sorted(r for r, _ in pipe.drain_outbox()) == [ALICE, BOB]  # game 2's end, told


def test_a_worker_busy_with_mail_looks_for_notices_less_often_but_never_misses_one(
        pipe: Pipeline, time: FakeTime, monkeypatch: pytest.MonkeyPatch) -> None:
    """A notice queue found empty is looked at again only after NOTICE_POLL_SECONDS while mail keeps coming;
    a round without mail always looks, and once a notice is found one goes every round."""
    import pbem.worker

    monkeypatch.setattr(pbem.worker, "NOTICE_POLL_SECONDS", 3600.0)
    alice, _, _, _ = begin_game(pipe, "days 2")
    pipe.drain_outbox()
    looks: list[bool] = []
    write_next = pipe.worker.notices.write_next

    def counted(batch: int = 1) -> bool:
        looks.append(wrote := write_next(batch))
        return wrote

    monkeypatch.setattr(pipe.worker.notices, "write_next", counted)
    assert not pipe.worker.process_next()  # idle: looked, found nothing
    assert looks == [False]
    pipe.queue(ALICE, alice, "games")
    assert pipe.worker.process_next()  # mail, and the notices were found empty a moment ago: no look
    assert looks == [False]
    three_games_ended(pipe, time)
    pipe.queue(ALICE, alice, "games")
    assert pipe.worker.process_next() and looks == [False]  # the mail; the notices wait for a look
    assert len(notices(pipe)) == 3
    assert pipe.worker.process_next()  # no mail: the round looks, and writes one
    assert looks == [False, True] and len(notices(pipe)) == 2
    pipe.queue(ALICE, alice, "games")
    assert pipe.worker.process_next()  # mail again, but the queue had a notice: it is looked at every round
    assert looks == [False, True, True] and len(notices(pipe)) == 1
    assert pipe.worker.process_next() and not pipe.worker.process_next()
    assert notices(pipe) == [] and looks[-2:] == [True, False]
