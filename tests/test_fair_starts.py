"""Fair starts and unrated games: a game nobody started is aborted, not lost; rated=no changes no rating."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.engine.base import Seat
from pbem.store.event_models import Rating
from pbem.store.models import Game
from tests.helpers.clock import FakeTime, make_pipe
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game

FAIR = {"PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE": "yes"}








@pytest.fixture
def fair(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    yield from make_pipe(tmp_path, time, **FAIR)


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    yield from make_pipe(tmp_path, time)


def sweep_at(pipe: Pipeline, time: FakeTime, days: float) -> dict[str, str]:
    time.at(days)
    pipe.sweep()
    return {r: " ".join(body_of(m).split()) for r, m in pipe.drain_outbox()}


def games(pipe: Pipeline) -> list[Game]:
    with pipe.db.transaction() as session:
        return list(session.exec(select(Game).order_by(Game.id)).all())  # type: ignore[arg-type]


def ratings(pipe: Pipeline) -> list[tuple[int, str, float, int]]:
    with pipe.db.transaction() as session:
        return [(r.account_id, r.variant, r.rating, r.games) for r in session.exec(select(Rating)).all()]


def test_white_never_moving_aborts_the_game_and_both_are_told_why(fair: Pipeline, time: FakeTime) -> None:
    begin_game(fair, "days 2")
    found = sweep_at(fair, time, 2.0)
    assert sorted(found) == [ALICE, BOB]
    for body in found.values():
        assert "Aborted: alice made no first move. The game does not count: no result, no rating change." in body
        assert "Result: * (aborted: alice made no first move)" in body
    (game,) = games(fair)
    assert (game.status, game.result, game.reason) == ("finished", "*", "aborted: alice made no first move")
    assert game.next_event_at is None and ratings(fair) == []
    assert sweep_at(fair, time, 5) == {}


def test_black_never_moving_aborts_too(fair: Pipeline, time: FakeTime) -> None:
    _, _, seat_a, _ = begin_game(fair, "days 2")
    fair.send(ALICE, seat_a, "e4")
    fair.drain_outbox()
    found = sweep_at(fair, time, 2.0)
    assert "Aborted: bob made no first move." in found[ALICE]
    assert ratings(fair) == []


def test_after_both_first_moves_the_loss_on_time_stands_and_is_rated(fair: Pipeline, time: FakeTime) -> None:
    _, _, seat_a, seat_b = begin_game(fair, "days 2")
    fair.send(ALICE, seat_a, "e4")
    fair.send(BOB, seat_b, "e5")
    fair.drain_outbox()
    found = sweep_at(fair, time, 3.0)  # alice had two days from bob's move at T0
    assert "You ran out of time" in found[ALICE] and "0-1" in found[ALICE]
    assert sorted(a for a, *_ in ratings(fair)) == [1, 2]


def test_with_the_setting_off_a_missing_first_move_still_loses(tmp_path: Path, time: FakeTime) -> None:
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false"):
        begin_game(pipe, "days 2")
        found = sweep_at(pipe, time, 2.0)
        assert "alice lost on time" in found[BOB] and games(pipe)[0].result == "0-1"


def test_an_unrated_game_changes_no_rating(pipe: Pipeline) -> None:
    _, _, _, seat_b = begin_game(pipe, "option rated=no")
    pipe.send(BOB, seat_b, "resign")
    pipe.drain_outbox()
    (game,) = games(pipe)
    assert game.result == "1-0" and game.options == {"rated": "no"}
    assert ratings(pipe) == []


def test_a_rated_game_does_change_ratings(pipe: Pipeline) -> None:
    _, _, _, seat_b = begin_game(pipe, "option rated=yes")
    pipe.send(BOB, seat_b, "resign")
    pipe.drain_outbox()
    assert sorted(a for a, *_ in ratings(pipe)) == [1, 2]


def test_a_rematch_keeps_the_game_unrated(pipe: Pipeline) -> None:
    _, bob, seat_a, seat_b = begin_game(pipe, "option rated=no")
    pipe.send(BOB, seat_b, "resign")
    pipe.drain_outbox()
    pipe.send(ALICE, seat_a, "rematch")
    offer = {r: " ".join(body_of(m).split()) for r, m in pipe.drain_outbox()}
    assert "rated=no" in offer[BOB]
    pipe.send(BOB, bob, "accept 2")
    pipe.drain_outbox()
    rematch = games(pipe)[1]
    assert rematch.options == {"rated": "no"} and (rematch.white_id, rematch.black_id) == (2, 1)
    pipe.send(ALICE, pipe.addresses.seat(rematch.id or 0, Seat.BLACK, 1), "resign")
    pipe.drain_outbox()
    assert games(pipe)[1].result == "1-0" and ratings(pipe) == []


def test_the_late_notice_says_the_game_will_be_aborted(tmp_path: Path, time: FakeTime) -> None:
    for pipe in make_pipe(tmp_path, time, PBEM_GAMES_GRACE_DAYS="1", **FAIR):
        begin_game(pipe, "days 2")
        late = sweep_at(pipe, time, 2.0)
        assert "move by Wed 4 Mar 12:00 UTC or the game is aborted." in late[ALICE]
        assert "with no first move by Wed 4 Mar 12:00 UTC the game is aborted." in late[BOB]
        assert "Aborted: alice made no first move." in sweep_at(pipe, time, 3.0)[BOB]
