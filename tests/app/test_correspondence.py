"""Correspondence services through the real worker: draw-offer limit, takeback, rematch, observers."""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from pbem.app.clocks import clock_lines, pass_clock
from pbem.app.context import Context
from pbem.app.game_state import handles
from pbem.engine.base import Seat
from pbem.store.models import Game, MoveRecord
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register


def start(pipe: Pipeline, terms: str = "") -> tuple[str, str]:
    """alice (white) vs bob in Hyperspace Chess with ``terms``; returns both seat addresses."""
    return begin_game(pipe, terms)[2:]


def mails(pipe: Pipeline) -> dict[str, str]:
    """The bodies queued since the last call, joined per recipient."""
    found: dict[str, str] = {}
    for recipient, message in pipe.drain_outbox():
        found[recipient] = found.get(recipient, "") + body_of(message) + "\n"
    return found


def game(pipe: Pipeline) -> Game:
    with pipe.db.transaction() as session:
        return session.exec(select(Game)).one()


def play(pipe: Pipeline, seat_a: str, seat_b: str, *moves: str) -> None:
    for index, move in enumerate(moves):
        pipe.send(ALICE if index % 2 == 0 else BOB, seat_a if index % 2 == 0 else seat_b, move)
        assert "Played" in mails(pipe)[ALICE if index % 2 == 0 else BOB], move


def test_draw_limit_allows_one_offer_in_n_moves(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe, "option draw-limit=3")
    pipe.send(ALICE, seat_a, "draw")
    assert "Draw offered" in mails(pipe)[ALICE]
    play(pipe, seat_a, seat_b, "e4", "e5", "Nf3", "Nc6")  # moves 1 and 2 (the offer lapsed with bob's move)
    pipe.send(ALICE, seat_a, "draw")
    assert "next is possible from move 4" in mails(pipe)[ALICE]
    play(pipe, seat_a, seat_b, "Bc4", "Bc5")
    pipe.send(ALICE, seat_a, "draw")
    assert "Draw offered" in mails(pipe)[ALICE]


def test_bad_settings_are_refused_in_the_challenge(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    register(pipe, BOB, "bob")
    pipe.send(ALICE, alice, "challenge bob hyperspace option draw-limit=lots")
    assert "draw-limit takes a whole number" in mails(pipe)[ALICE]


def test_takeback_by_agreement_restores_the_position_and_the_record(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    play(pipe, seat_a, seat_b, "e4", "e5", "Nf3")
    pipe.send(ALICE, seat_a, "takeback")
    found = mails(pipe)
    assert "Takeback requested" in found[ALICE] and "takeback' to agree" in found[BOB]
    pipe.send(BOB, seat_b, "takeback")
    found = mails(pipe)
    assert "back at move 2, white to play" in found[BOB] and "back at move 2" in found[ALICE]
    current = game(pipe)
    assert current.ply == 2 and current.extras.get("takeback") is None
    with pipe.db.read() as session:
        assert [r.record for r in session.exec(select(MoveRecord).order_by(MoveRecord.ply))] == ["Pe2-e4", "Pe7-e5"]
    pipe.send(ALICE, seat_a, "Nc3")
    assert "Played 2. Nb1-c3" in mails(pipe)[ALICE]


def test_takeback_asked_on_ones_own_turn_undoes_both_last_moves(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    play(pipe, seat_a, seat_b, "e4", "e5")
    pipe.send(ALICE, seat_a, "takeback")
    pipe.send(BOB, seat_b, "takeback")
    assert "back at move 1, white to play" in mails(pipe)[BOB]
    assert game(pipe).ply == 0


def test_takeback_refused_or_lapsed_by_a_move(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    pipe.send(BOB, seat_b, "takeback")
    assert "no move to take back" in mails(pipe)[BOB]
    play(pipe, seat_a, seat_b, "e4")
    pipe.send(ALICE, seat_a, "takeback")
    mails(pipe)
    pipe.send(BOB, seat_b, "takeback no")
    assert "was refused" in mails(pipe)[ALICE]
    pipe.send(ALICE, seat_a, "takeback")
    pipe.send(BOB, seat_b, "e5")  # moving on refuses the request
    mails(pipe)
    assert game(pipe).extras.get("takeback") is None and game(pipe).ply == 2


def test_rematch_challenges_with_colours_swapped(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe, "days 3")
    pipe.send(ALICE, seat_a, "rematch")
    assert "still being played" in mails(pipe)[ALICE]
    pipe.send(BOB, seat_b, "resign")
    mails(pipe)
    pipe.send(BOB, seat_b, "rematch")
    found = mails(pipe)
    assert "bob plays: white" in found[ALICE] and "Time control: 3 days per move" in found[ALICE]  # bob was black
    number = re.search(r"accept (\d+)", found[ALICE])
    assert number


def test_observers_get_public_mails_only(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "observe 1")
    assert "You observe [pbem #1]" in mails(pipe)[CAROL]
    pipe.send(ALICE, seat_a, "e4")
    found = mails(pipe)
    assert "Last move: 1. Pe2-e4" in found[CAROL]
    pipe.send(BOB, seat_b, "Ng8@2 {f6}")
    found = mails(pipe)
    assert "Ng8@2" in found[CAROL] and not re.search(r"\bf6\b", found[CAROL].split("Commitment")[0])
    pipe.send(CAROL, carol, "unobserve 1")
    mails(pipe)
    pipe.send(ALICE, seat_a, "d4")
    assert CAROL not in mails(pipe)


def test_observer_delay_shows_the_game_k_moves_late(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe, "option observer-delay=2")
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "observe 1")
    assert "2 moves late" in mails(pipe)[CAROL]
    pipe.send(ALICE, seat_a, "e4")
    assert CAROL not in mails(pipe)
    pipe.send(BOB, seat_b, "e5")
    assert CAROL not in mails(pipe)
    pipe.send(ALICE, seat_a, "Nf3")
    found = mails(pipe)
    assert "Last move: 1. Pe2-e4" in found[CAROL] and "Nf3" not in found[CAROL]
    pipe.send(BOB, seat_b, "resign")
    final = mails(pipe)[CAROL]  # at the end the delay is lifted: the final position and the result
    assert "Last move: 2. Ng1-f3" in final and "The game is over: 1-0 (resignation)" in final


def test_players_cannot_observe_their_own_game(pipe: Pipeline) -> None:
    start(pipe)
    pipe.send(ALICE, register(pipe, ALICE, "alice"), "observe 1")
    assert "you play in game 1" in mails(pipe)[ALICE]


def test_a_conditional_reply_comes_in_one_mail_with_the_clock_once(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    play(pipe, seat_a, seat_b, "e4")
    pipe.send(ALICE, seat_a, "if e5 then Nf3")
    mails(pipe)
    pipe.send(BOB, seat_b, "e5")
    to_alice = [body_of(m) for r, m in pipe.drain_outbox() if r == ALICE]
    assert len(to_alice) == 1, to_alice
    body = to_alice[0]
    assert body.splitlines()[0].startswith("bob played 1... Pe7-e5; your conditional 2. Ng1-f3 was played")
    assert "Played 2. Ng1-f3" in body and body.count("Time control:") == 1


def test_vacation_is_one_mail_per_opponent_listing_the_games(pipe: Pipeline) -> None:
    alice, bob, _, _ = begin_game(pipe)
    pipe.send(ALICE, alice, "challenge bob hyperspace white")
    number = re.search(r"accept (\d+)", mails(pipe)[BOB])
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}")
    mails(pipe)
    pipe.send(ALICE, alice, "vacation 3")
    to_bob = [body_of(m) for r, m in pipe.drain_outbox() if r == BOB]
    assert len(to_bob) == 1 and to_bob[0].startswith("alice is on vacation until")
    assert "#1 Hyperspace Chess" in to_bob[0] and "#2 Hyperspace Chess" in to_bob[0]


@pytest.mark.parametrize("order", ["draw\ne4", "e4\ndraw"])
def test_a_draw_offer_travels_in_the_moves_mail(pipe: Pipeline, order: str) -> None:
    seat_a, _ = start(pipe)
    pipe.send(ALICE, seat_a, order)
    to_bob = [body_of(m) for r, m in pipe.drain_outbox() if r == BOB]
    assert len(to_bob) == 1, to_bob
    assert "alice played 1. Pe2-e4" in to_bob[0] and "offers a draw" in to_bob[0].split("\n\n")[0]
    assert to_bob[0].count("Time control:") == 1


def test_a_lapsed_draw_offer_is_told_to_the_offerer(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    pipe.send(ALICE, seat_a, "e4\ndraw")
    mails(pipe)
    pipe.send(BOB, seat_b, "e5")
    assert "Your draw offer lapsed: bob moved instead" in mails(pipe)[ALICE]


def test_board_answers_and_refused_moves_carry_the_clock_once(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    pipe.send(ALICE, seat_a, "board")
    board = mails(pipe)[ALICE]
    assert board.startswith("The position in game 1. Your move; deadline") and board.count("Time control:") == 1
    pipe.send(BOB, seat_b, "e5")
    refused = mails(pipe)[BOB]
    assert refused.startswith("Your move was not played: it is not your move")
    assert refused.count("Time control:") == 1


def test_the_final_mails_name_the_result_show_the_end_and_the_record(pipe: Pipeline) -> None:
    seat_a, seat_b = start(pipe)
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "observe 1")
    play(pipe, seat_a, seat_b, "e4", "e5")
    pipe.send(ALICE, seat_a, "resign")
    found = mails(pipe)
    assert found[BOB].startswith("alice resigned. You won 0-1.")
    assert found[ALICE].startswith("You resigned. You lost 0-1.")
    assert found[CAROL].startswith("Game 1: alice resigned. bob won 0-1.")
    for body in found.values():
        assert "to move (move" not in body and "Final position: 0-1 (resignation)." in body
        assert "1. e4 e5 0-1" in body


def test_the_clock_block_is_written_once_a_unit_of_work_and_again_when_it_changes(pipe: Pipeline) -> None:
    """A move's reply and its opponent's mail show one clock block, written once; a changed clock, status or
    vacation writes it again."""
    seat_a, seat_b = start(pipe)
    play(pipe, seat_a, seat_b, "e4")
    moment = [datetime.now(UTC)]
    pipe.services.now = lambda: moment[0]
    with pipe.db.transaction() as session:
        ctx = Context(session=session, services=pipe.services)
        game = session.get(Game, 1)
        assert game is not None
        names = handles(ctx, game)
        first = clock_lines(ctx, game, names)
        moment[0] += timedelta(hours=5)  # what a new block would show differs: the time left is less
        assert clock_lines(ctx, game, names) == first
        # A context reading the time from another clock (the web's, for a finished game) writes its own.
        later = replace(ctx, services=replace(ctx.services, now=lambda: moment[0] + timedelta(days=2)))
        assert clock_lines(later, game, names) != first
        black = ctx.account_by_id(game.black_id)
        assert black is not None
        black.vacation_used_days += 1
        after_vacation = clock_lines(ctx, game, names)
        assert after_vacation != first and "vacation days left" in "\n".join(after_vacation)
        pass_clock(ctx, game, Seat.BLACK, Seat.WHITE)
        assert clock_lines(ctx, game, names) != after_vacation
