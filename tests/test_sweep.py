"""Clocks of real games under an injected clock: reminders, late notices, loss on time, vacations."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import event
from sqlmodel import col, select

from pbem.store.event_models import Rating
from pbem.store.models import Game
from pbem.sweep import Sweeper
from tests.helpers.clock import T0, FakeTime, make_pipe
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game, only_mail, register


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    yield from make_pipe(tmp_path, time)


def start(pipe: Pipeline, terms: str = "days 10") -> tuple[str, str, str, str]:
    """alice (white) vs bob; returns alice's and bob's personal and seat addresses."""
    return begin_game(pipe, terms)


def sweep_at(pipe: Pipeline, time: FakeTime, days: float) -> list[tuple[str, str, str]]:
    """Move the clock, sweep, and return (recipient, subject, body) of every mail queued."""
    time.at(days)
    pipe.sweep()
    return [(r, str(m["Subject"]), body_of(m)) for r, m in pipe.drain_outbox()]


def game(pipe: Pipeline) -> Game:
    with pipe.db.transaction() as session:  # committed, not rolled back: the row stays readable
        return session.exec(select(Game)).one()


def test_reminders_at_half_80_percent_and_a_day_before_each_once(pipe: Pipeline, time: FakeTime) -> None:
    start(pipe, "days 10")
    assert game(pipe).deadline == T0 + timedelta(days=10)
    assert sweep_at(pipe, time, 4.9) == []
    mails = sweep_at(pipe, time, 5.0)
    assert [(r, b.startswith("Reminder: your move in game 1")) for r, _, b in mails] == [(ALICE, True)]
    assert "Time left: 5d 0h" in mails[0][2] and "a b c d e f g h" in mails[0][2]  # the board comes along
    assert sweep_at(pipe, time, 5.1) == []
    assert len(sweep_at(pipe, time, 8.0)) == 1
    assert len(sweep_at(pipe, time, 9.0)) == 1  # one day before
    assert sweep_at(pipe, time, 9.5) == []


def test_a_move_resets_the_reminders_for_the_other_side(pipe: Pipeline, time: FakeTime) -> None:
    _, _, seat_a, _ = start(pipe, "days 10")
    sweep_at(pipe, time, 6)
    time.at(7)
    pipe.send(ALICE, seat_a, "e4")
    mails = pipe.drain_outbox()
    assert any("Time control: 10 days per move" in body_of(m) for _, m in mails)  # the clock block
    assert game(pipe).deadline == T0 + timedelta(days=17)
    assert sweep_at(pipe, time, 11.9) == []
    assert [r for r, _, _ in sweep_at(pipe, time, 12)] == [BOB]


def test_timeout_without_grace_loses_at_the_deadline_and_only_once(tmp_path: Path, time: FakeTime) -> None:
    # alice never moves: a fair-start abort by default, a loss on time with the setting off.
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false"):
        start(pipe, "days 2")
        sweep_at(pipe, time, 1.9)
        mails = sweep_at(pipe, time, 2.0)
        assert sorted(r for r, _, _ in mails) == [ALICE, BOB]
        assert all("0-1" in body and "alice lost on time" in body for _, _, body in mails)
        final = game(pipe)
        assert final.status == "finished" and final.result == "0-1" and final.next_event_at is None
        assert sweep_at(pipe, time, 5) == []


def test_grace_gives_a_late_notice_first_then_the_loss(tmp_path: Path, time: FakeTime) -> None:
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_GRACE_DAYS="2", PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false"):
        start(pipe, "days 3")
        sweep_at(pipe, time, 2.9)
        late = sweep_at(pipe, time, 3.0)
        assert sorted(r for r, _, _ in late) == [ALICE, BOB]
        assert "Your time is up in game 1" in next(b for r, _, b in late if r == ALICE)
        assert "you win on time" in next(b for r, _, b in late if r == BOB)
        assert sweep_at(pipe, time, 4.0) == []
        assert game(pipe).status == "active"
        over = sweep_at(pipe, time, 5.0)
        assert len(over) == 2 and game(pipe).result == "0-1"


def test_a_late_move_within_grace_is_played(tmp_path: Path, time: FakeTime) -> None:
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_GRACE_DAYS="2"):
        _, _, seat_a, _ = start(pipe, "days 3")
        sweep_at(pipe, time, 3.5)
        time.at(4)
        pipe.send(ALICE, seat_a, "e4")
        assert game(pipe).ply == 1 and game(pipe).status == "active"


def test_vacation_pauses_clocks_tells_the_opponent_and_counts_days(pipe: Pipeline, time: FakeTime) -> None:
    alice, _, _, _ = start(pipe, "days 10")
    time.at(1)
    pipe.send(ALICE, alice, "vacation 5")
    mails = pipe.drain_outbox()
    assert "paused in 1 game" in next(body_of(m) for r, m in mails if r == ALICE)
    assert "alice is on vacation until 2026-03-07" in next(body_of(m) for r, m in mails if r == BOB)
    assert game(pipe).deadline is None
    assert sweep_at(pipe, time, 5.0) == []  # no reminder while away
    sweep_at(pipe, time, 6.0)  # the vacation ends: the clock runs again with 9 days left
    assert game(pipe).deadline == T0 + timedelta(days=15)
    time.at(6.5)
    pipe.send(ALICE, alice, "games")
    assert "Vacation days left this year: 25" in body_of(pipe.drain_outbox()[0][1])


def test_vacation_off_refunds_whole_unused_days_and_refuses_beyond_the_allowance(
        pipe: Pipeline, time: FakeTime) -> None:
    alice, _, _, _ = start(pipe, "days 10")
    pipe.send(ALICE, alice, "vacation 31")
    assert "1 to 30" in body_of(pipe.drain_outbox()[0][1])
    pipe.send(ALICE, alice, "vacation 10")
    pipe.drain_outbox()
    pipe.send(ALICE, alice, "vacation 3")
    assert "already on vacation" in body_of(pipe.drain_outbox()[0][1])
    time.at(2.5)
    pipe.send(ALICE, alice, "vacation off")
    mails = pipe.drain_outbox()
    assert "days left this year: 27" in next(body_of(m) for r, m in mails if r == ALICE)  # 7 unused days back
    assert "back from vacation" in next(body_of(m) for r, m in mails if r == BOB)
    assert game(pipe).deadline == T0 + timedelta(days=12.5)


def test_iccf_time_control_in_a_game(pipe: Pipeline, time: FakeTime) -> None:
    _, _, seat_a, _ = start(pipe, "time 10/30 double 20")
    body = ""
    assert game(pipe).deadline == T0 + timedelta(days=25)
    time.at(22)
    pipe.send(ALICE, seat_a, "e4")
    body = next(body_of(m) for r, m in pipe.drain_outbox() if r == ALICE)
    assert "10 moves in 30 days" in body and "time left 6d 0h" in body


def test_a_sweep_reads_its_batch_of_games_and_players_at_once_and_rates_each_game_once(
        tmp_path: Path, time: FakeTime, database_url: str | None) -> None:
    # Three games lost on time in one sweep: the games and their players are read in one statement each for
    # the batch (not three a game: on PostgreSQL each is a round trip), the ratings in one a game.
    pipe = Pipeline(tmp_path, database_url, now=time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false")
    try:
        for white, black in (("w1", "b1"), ("w2", "b2"), ("w3", "b3")):
            personal = register(pipe, f"{white}@players.example", white)
            black_personal = register(pipe, f"{black}@players.example", black)
            pipe.send(f"{white}@players.example", personal, f"challenge {black} hyperspace white days 2")
            challenge = only_mail(pipe, f"{black}@players.example")
            accept = re.search(r"accept (\d+)", body_of(challenge))
            assert accept
            pipe.send(f"{black}@players.example", black_personal, accept.group(0))
            pipe.drain_outbox()
        statements: list[str] = []  # what the sweep asks the database

        def seen(_conn: object, _cursor: object, statement: str, *_rest: object, into: list[str] = statements) -> None:
            into.append(" ".join(statement.split()))

        event.listen(pipe.db.engine, "before_cursor_execute", seen)
        try:
            time.at(2.0)
            assert Sweeper(pipe.db, pipe.services).sweep() == 3  # the sweep alone, not the worker after it
        finally:
            event.remove(pipe.db.engine, "before_cursor_execute", seen)
        assert sum(s.startswith("SELECT game.id, game.variant") for s in statements) == 1
        assert sum(s.startswith("SELECT account.") and "WHERE account.id" in s for s in statements) == 1
        assert sum(s.startswith("SELECT rating.") for s in statements) == 3
        with pipe.db.read() as session:
            finished = session.exec(select(Game)).all()
            assert [(g.status, g.result) for g in finished] == [("finished", "0-1")] * 3
            ratings = {(r.account_id, r.games) for r in session.exec(select(Rating)).all()}
            assert len(ratings) == 6 and all(games == 1 for _, games in ratings)
            winners = session.exec(select(Rating).where(col(Rating.account_id).in_(
                [g.black_id for g in finished]))).all()
            assert all(r.rating > 1500 for r in winners)
    finally:
        pipe.close()


def test_next_event_is_the_earliest_of_game_events_vacation_ends_and_digests(pipe: Pipeline, time: FakeTime) -> None:
    """The worker's question after each round (one statement): None on an empty database, then the earliest
    moment of the three kinds, time-zone aware, whichever kind it is."""
    from pbem.store.models import Account

    sweeper = Sweeper(pipe.db, pipe.services)
    assert sweeper.next_event() is None
    start(pipe, "days 10")
    first = game(pipe).next_event_at
    assert first is not None and sweeper.next_event() == first and first.tzinfo is not None
    for column, days in (("vacation_until", 0.5), ("next_digest_at", 0.25)):
        with pipe.db.transaction() as session:
            account = session.exec(select(Account).order_by(col(Account.id))).first()
            assert account is not None
            setattr(account, column, T0 + timedelta(days=days))
            session.add(account)
        assert sweeper.next_event() == T0 + timedelta(days=days) < first
