"""``board``: the current position as the sender may see it."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.game_mail import board_block
from pbem.app.game_state import engine_for, handles
from pbem.app.news import turn_news
from pbem.commands.base import SEAT
from pbem.mail.addresses import AddressKind


class Board:
    name: ClassVar[str] = "board"
    aliases: ClassVar[tuple[str, ...]] = ("show", "position")
    usage: ClassVar[str] = "board"
    summary: ClassVar[str] = "mail the current position"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_game()
        engine = engine_for(game)
        state = engine.load(game.state)
        if game.status != "active":
            news = f"The final position of game {game.id}: {game.result} ({game.reason})."
        else:
            news = f"The position in game {game.id}. " + turn_news(handles(ctx, game), seat, engine.to_act(state),
                                                                   game.deadline)
        return Result(board_block(ctx, game, state, seat), headline=news)
