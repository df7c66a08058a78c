"""What the game layer tells the tournament layer: a game of an event has finished."""

from __future__ import annotations

from pbem.commands.base import Context
from pbem.store.models import Game


def game_finished(ctx: Context, game: Game) -> None:
    """Called in the transaction that finished ``game`` (any way: move, resignation, draw, time)."""
    if game.event_id is None:
        return
