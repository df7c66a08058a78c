"""Hyperspace Chess against the computer: nothing it plays depends on a return square it has not seen.

The same game is played twice, in two servers, with the same moves of the player, except that the
player's phased-out piece is sent back to a different secret square. Until that piece returns (and
its square is public), the computer must play exactly the same moves in both games.
"""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import col, select

from pbem.app.game_state import engine_for
from pbem.computer_player import ComputerPlayer
from pbem.engine.base import Seat
from pbem.store.models import Game, MoveRecord
from pbem.variants.hyperspace.engine import HyperspaceChess
from pbem.variants.hyperspace.model import PhaseOut
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, register

ENGINE = HyperspaceChess()
PLIES = 24


class Server:
    """One pbem server (its own database) where alice plays white against the computer at level 2."""

    def __init__(self, path: Path) -> None:
        path.mkdir()
        self.pipe = Pipeline(path)
        alice = register(self.pipe, ALICE, "alice")
        self.pipe.send(ALICE, alice, "challenge computer hyperspace white level 2")
        self.pipe.drain_outbox()
        game = self.game()
        self.seat = self.pipe.addresses.seat(game.id or 0, Seat.WHITE, game.white_id)
        self.computer = ComputerPlayer(self.pipe.db, self.pipe.services)

    def game(self) -> Game:
        with self.pipe.db.read() as session:
            game = session.get(Game, 1)
            assert game is not None
            session.expunge(game)
            return game

    def play(self, line: str) -> None:
        self.pipe.send(ALICE, self.seat, line)
        replies = [body_of(m) for _, m in self.pipe.drain_outbox()]
        assert any("Played" in reply for reply in replies), replies

    def computer_moves(self) -> list[str]:
        with self.pipe.db.read() as session:
            rows = session.exec(select(MoveRecord).where(MoveRecord.seat == "black").order_by(col(MoveRecord.ply)))
            return [row.record for row in rows]

    def white_in_hyperspace(self) -> bool:
        state = engine_for(self.game()).load(self.game().state)
        return any(entry.seat is Seat.WHITE for entry in state.pool)


def _other_square(state: object, public: str, taken: str) -> str | None:
    """A return square other than ``taken`` that the server accepts for the phase-out ``public``."""
    for rank in "3456":
        for file in "abcdefgh":
            square = f"{file}{rank}"
            if square == taken:
                continue
            try:
                ENGINE.parse_action(state, f"{public} {{{square}}}")  # type: ignore[arg-type]
            except ValueError:
                continue
            return square
    return None


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), delay=st.sampled_from([1, 2, 3]))
def test_the_computer_plays_the_same_whatever_the_secret_square(tmp_path_factory: object, seed: int,
                                                                delay: int) -> None:
    root: Path = tmp_path_factory.mktemp("secret")  # type: ignore[attr-defined]
    first, second = Server(root / "first"), Server(root / "second")
    rng = random.Random(seed)
    phased = False
    for _ply in range(PLIES):
        game = first.game()
        state = ENGINE.load(game.state)
        if game.status != "active":
            break
        if ENGINE.to_act(state) is Seat.BLACK:
            if phased and not first.white_in_hyperspace():
                break  # the piece has returned: its square is public, the games may now differ
            first.computer.play_due_inline()
            second.computer.play_due_inline()
            assert first.computer_moves() == second.computer_moves(), "the computer read a secret square"
            continue
        actions = list(ENGINE.legal_actions(state))
        outs = [a for a in actions if isinstance(a, PhaseOut)]
        if not phased and outs:
            completed = ENGINE.complete_action(state, rng.choice(outs))
            assert isinstance(completed, PhaseOut) and completed.secret is not None
            public = f"{completed.piece}{completed.from_square}@{delay}"
            square = completed.secret.reveal()
            other = _other_square(state, public, square)
            if other is None:
                continue
            first.play(f"{public} {{{square}}}")
            second.play(f"{public} {{{other}}}")
            phased = True
            continue
        board_moves = [a for a in actions if not isinstance(a, PhaseOut)]
        move = ENGINE.describe(state, rng.choice(board_moves))
        first.play(move)
        second.play(move)
    assert phased, "the player never phased a piece out: the test saw no secret"
    assert first.computer_moves(), "the computer never moved"
