"""End to end over real SMTP: a player challenges the computer in each variant and plays random moves to the end."""

from __future__ import annotations

import random
import re
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.app.game_state import engine_for
from pbem.engine.base import Seat
from pbem.engine.capabilities import ActionCompletion
from pbem.store.models import Game, MoveRecord
from tests.helpers.harness import Harness, Player, body_of

VARIANTS = ["outer-space", "tri-d", "space-chess", "hyperspace", "voidrider"]
#: Plies after which the player resigns a game nobody has won (level 1 mates a random mover in 13-153 plies).
MAX_PLIES = 200


def _game(harness: Harness, number: int) -> Game:
    assert harness.server is not None
    with harness.server.db.read() as session:
        game = session.get(Game, number)
        assert game is not None
        session.expunge(game)  # read as it is now; the session's rollback must not expire it
        return game


def _records(harness: Harness, number: int) -> list[MoveRecord]:
    assert harness.server is not None
    with harness.server.db.read() as session:
        rows = list(session.exec(select(MoveRecord).where(MoveRecord.game_id == number)
                                 .order_by(col(MoveRecord.ply))).all())
        session.expunge_all()
        return rows


def _random_move(game: Game, rng: random.Random) -> str:
    """A random legal move as the player would type it (a phase-out with a return square of its own)."""
    engine = engine_for(game)
    state = engine.load(game.state)
    action: Any = rng.choice(list(engine.legal_actions(state)))
    if isinstance(engine, ActionCompletion):
        action = engine.complete_action(state, action)
    private = getattr(engine, "describe_private", None)
    return str(private(state, action)) if private is not None else engine.describe(state, action)


def _start(harness: Harness, variant: str, terms: str) -> tuple[Player, EmailMessage, int]:
    alice = Player(harness, "alice@players.example")
    welcome = alice.register("alice")
    alice.reply(welcome, f"challenge computer {variant} {terms}")
    reply = alice.next_mail(lambda m: "Results:" in body_of(m))
    found = re.search(r"Game (\d+) against pbem computer \(level (\d)\) has started", body_of(reply))
    assert found, body_of(reply)
    opening = alice.next_mail(lambda m: "has started" in body_of(m) and "You play" in body_of(m))
    return alice, opening, int(found.group(1))


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_player_plays_the_computer_to_the_end_by_mail(harness: Harness, variant: str) -> None:
    play_to_the_end(harness, variant)


def test_a_hyperspace_game_against_the_computer_on_each_database(tmp_path: Path, database_url: str | None) -> None:
    harness = Harness(tmp_path, database_url=database_url)
    try:
        play_to_the_end(harness, "hyperspace")
    finally:
        harness.close()


def play_to_the_end(harness: Harness, variant: str) -> None:
    """alice (black) plays random legal moves against level 1 until the game ends; then the checks."""
    rng = random.Random(f"computer-{variant}")
    alice, opening, number = _start(harness, variant, "black level 1")
    assert "against pbem computer (level 1)" in body_of(opening)
    root = f"<pbem.game-{number}@{harness.domain}>"
    last = opening
    computer_plies: list[str] = []
    while True:
        game = _game(harness, number)
        if game.status != "active":
            break
        engine = engine_for(game)
        if engine.to_act(engine.load(game.state)) is Seat.WHITE:  # the computer's turn: its mail comes
            news = alice.next_mail(lambda m: "pbem computer (level 1) played" in body_of(m), timeout=60)
            assert root in str(news["References"]), "the computer's move is not in the game's thread"
            played = re.search(r"pbem computer \(level 1\) played (\d+\.) (\S+)", body_of(news))
            assert played, body_of(news)
            computer_plies.append(played.group(2).rstrip(".,"))
            last = news
            continue
        if game.ply >= MAX_PLIES:
            alice.reply(last, "resign")
            alice.next_mail(lambda m: "Results:" in body_of(m))
            continue
        alice.reply(last, _random_move(game, rng))
        confirmation = alice.next_mail(lambda m: "Results:" in body_of(m))
        assert "Not played" not in body_of(confirmation), body_of(confirmation)
        last = confirmation
        if _game(harness, number).status != "active":
            break

    game = _game(harness, number)
    records = _records(harness, number)
    assert [row.ply for row in records] == list(range(1, game.ply + 1)), "the record has gaps"
    assert computer_plies, "the computer never moved"
    # Every computer move is legal: it parses, in the position before it, as exactly what was recorded.
    engine = engine_for(game)
    state = engine.setup()
    for row in records:
        text = row.record.split()[0]
        if row.seat == "white":
            action = engine.parse_action(state, text)
            assert engine.describe(state, action) == text.rstrip("+#"), (row.ply, row.record)
        state = engine.load(row.state_after)
    assert game.result in ("1-0", "0-1", "1/2-1/2"), game.result
    harness.settle()
