"""Whether the computer owes a game something (its move, an answer to a draw offer): Game.computer_due_at."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.app.game_state import computer_seat
from pbem.engine.base import Variant
from pbem.store.models import Game
from pbem.store.vocabulary import GameStatus

__all__ = ["computer_owes", "refresh_computer_due"]


def computer_owes(game: Game, engine: Variant[Any, Any], state: Any) -> bool:
    """The computer is to move in ``game``, or its opponent's draw offer waits for its answer."""
    seat = computer_seat(game)
    if seat is None or game.status != GameStatus.ACTIVE:
        return False
    return engine.to_act(state) is seat or game.draw_offer == seat.other.value


def refresh_computer_due(game: Game, engine: Variant[Any, Any], state: Any, now: datetime) -> None:
    """Keep ``computer_due_at`` true to the stored game: set (keeping the first moment) while the computer
    owes something, cleared when it owes nothing. Called wherever a game changes, in the same transaction,
    so a crash can never lose or double a computer move: the loop derives its work from this index."""
    if computer_owes(game, engine, state):
        game.computer_due_at = game.computer_due_at or now
    else:
        game.computer_due_at = None
