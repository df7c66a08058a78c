"""What the game layer tells the tournament layer: a game of an event has finished."""

from __future__ import annotations

from pbem.commands.base import Context
from pbem.events.service import game_finished as score
from pbem.store.models import Game


def game_finished(ctx: Context, game: Game) -> None:
    """Called in the transaction that finished ``game`` (any way: move, resignation, draw, time).

    Every finished game is rated (per variant); a game of an event is scored,
    and may complete a round or the event.
    """
    score(ctx, game)
