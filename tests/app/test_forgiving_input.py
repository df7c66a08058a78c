"""Forgiving input: replies below the quote, near-miss command names, moves sent to the wrong address."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.models import Game
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game, only_mail, register

STRANGER = "stranger@players.example"



def game_status(pipe: Pipeline) -> str:
    with pipe.db.read() as session:
        return session.exec(select(Game)).one().status


def test_a_move_written_below_the_quote_is_played_and_a_quoted_resign_is_not(pipe: Pipeline) -> None:
    _, _, seat_a, _ = begin_game(pipe)
    body = ("On Mon, May 6, 2024 at 9:00\u202fAM pbem <pbem@pbem.localhost> wrote:\n\n"
            "> Game 1 has started.\n> To give up, reply\n> resign\n\nPe2-e4\n\n-- \nAlice\n")
    pipe.send(ALICE, seat_a, body, subject="Re: [pbem #1] alice vs bob (Hyperspace Chess)")
    reply = body_of(only_mail(pipe, ALICE))
    assert "You played 1. Pe2-e4" in reply
    assert "No commands were found" not in reply and "resign" not in reply
    assert game_status(pipe) == "active"


def test_inline_replies_are_read_between_the_quotes(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "Hello there,\n> Welcome to pbem.\nvariants\n> Send help for more.\n> resign\n")
    reply = body_of(only_mail(pipe, ALICE))
    assert "> variants" in reply and "Hello there," in reply and "> resign" not in reply


def test_unknown_commands_get_the_nearest_known_ones(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "chalenge bob hyperspace\nbord\nfrobnicate")
    reply = body_of(only_mail(pipe, ALICE))
    assert "chalenge bob hyperspace    -- not a command; did you mean 'challenge'?" in reply
    assert "bord    -- not a command; did you mean 'board'?" in reply
    assert "frobnicate    -- not a command\n" in reply


def test_a_move_to_the_public_address_says_where_it_goes_and_lists_the_games(pipe: Pipeline) -> None:
    begin_game(pipe)
    pipe.send(ALICE, pipe.addresses.public, "Pe2-e4")
    reply = body_of(only_mail(pipe, ALICE))
    assert "moves go to the game's own address: reply to a mail of that game" in reply
    assert "Game 1: against bob, Hyperspace Chess, you play white" in reply
    assert '"[pbem #1] alice vs bob (Hyperspace Chess)"' in reply
    assert "not a command" not in reply
    assert game_status(pipe) == "active"


def test_game_commands_to_the_personal_address_list_the_games_once(pipe: Pipeline) -> None:
    _, bob, _, _ = begin_game(pipe)
    pipe.send(BOB, bob, "board\nresign\nPe7-e5")
    reply = body_of(only_mail(pipe, BOB))
    assert "'board' belongs to a game: reply to a mail of that game" in reply
    assert "'resign' belongs to a game" in reply
    assert "moves go to the game's own address" in reply
    assert reply.count("[pbem #1] alice vs bob (Hyperspace Chess)") == 1
    assert "Game 1: against alice, Hyperspace Chess, you play black" in reply
    assert game_status(pipe) == "active"


def test_a_move_from_a_stranger_to_the_public_address_says_to_register(pipe: Pipeline) -> None:
    pipe.send("stranger@players.example", pipe.addresses.public, "1. e4")
    reply = body_of(only_mail(pipe, "stranger@players.example"))
    assert "moves go to the game's own address" in reply and "send 'register HANDLE' first" in reply


def _seats(pipe: Pipeline, variant: str) -> tuple[str, str]:
    """alice (white) and bob start a game of ``variant``; their seat addresses."""
    alice, bob = register(pipe, ALICE, "alice"), register(pipe, BOB, "bob")
    pipe.send(ALICE, alice, f"challenge bob {variant} white")
    invitation = next(body_of(m) for r, m in pipe.drain_outbox() if r == BOB)
    number = re.search(r"accept (\d+)", invitation)
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}")
    seats = {r: str(m["Reply-To"]) for r, m in pipe.drain_outbox() if "has started" in body_of(m)}
    return seats[ALICE], seats[BOB]


@pytest.mark.parametrize(("variant", "move", "other"), [
    ("tri-d", "e2e4", "Hyperspace Chess"),
    ("tri-d", "Nf3", "Hyperspace Chess"),
    ("hyperspace", "Pd2(1)-d4(2)", "Space Chess"),
])
def test_a_move_in_another_variants_notation_gets_this_games_example(
        pipe: Pipeline, variant: str, move: str, other: str) -> None:
    seat_a, _ = _seats(pipe, variant)
    pipe.send(ALICE, seat_a, move)
    reply = body_of(only_mail(pipe, ALICE))
    assert f"That looks like {other} notation; this game is" in reply
    assert f"Send 'help {variant}' for its notation." in reply
    example = re.search(r"Here a move is written like '([^']+)'\.", reply)
    assert example
    pipe.send(ALICE, seat_a, example.group(1))
    assert "You played 1." in body_of(only_mail(pipe, ALICE))  # the example is a legal move here


def test_a_move_no_variant_reads_gets_no_notation_hint(pipe: Pipeline) -> None:
    seat_a, _ = _seats(pipe, "tri-d")
    pipe.send(ALICE, seat_a, "Zz9-q0")
    assert "looks like" not in body_of(only_mail(pipe, ALICE))


def test_the_last_error_reply_of_the_hour_says_when_answers_resume(tmp_path: Path) -> None:
    start = datetime(2024, 5, 6, 9, 0, tzinfo=UTC)
    clock = [start]
    pipe = Pipeline(tmp_path, now=lambda: clock[0], PBEM_SERVER_ERROR_REPLIES_PER_HOUR="3")
    try:
        replies = []
        for number in range(4):
            clock[0] = start + timedelta(minutes=10 * number)
            pipe.send(STRANGER, pipe.addresses.public, f"frobnicate {number}")
            replies.extend(body_of(m) for _, m in pipe.drain_outbox())
        assert len(replies) == 3  # the fourth is not answered
        assert not any("paused" in reply for reply in replies[:2])
        # The first error reply (09:00) leaves the hour at 10:00: then one more may be sent.
        assert ("This is the last error reply you get this hour: further error replies are paused "
                "until 2024-05-06 10:00 UTC.") in " ".join(replies[2].split())
    finally:
        pipe.close()
