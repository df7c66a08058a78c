"""Signals the application core sends to layers above it, which subscribe at start-up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.app.context import Context
    from pbem.store.models import Game

__all__ = ["GameFinishedHandler", "Signals"]

#: Called in the transaction that finished a game, whatever way it ended.
GameFinishedHandler = Callable[["Context", "Game"], None]


@dataclass
class Signals:
    """The subscribers of each signal, called in the order they subscribed."""

    game_finished: list[GameFinishedHandler] = field(default_factory=list)

    def on_game_finished(self, handler: GameFinishedHandler) -> None:
        """Subscribe ``handler`` once (subscribing twice does not call it twice)."""
        if handler not in self.game_finished:
            self.game_finished.append(handler)

    def send_game_finished(self, ctx: Context, game: Game) -> None:
        for handler in self.game_finished:
            handler(ctx, game)
