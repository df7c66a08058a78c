"""``board``: the current position as the sender may see it."""

from __future__ import annotations

from typing import ClassVar

from pbem.commands.base import SEAT, Context, Result
from pbem.gameplay import board_block, engine_for


class Board:
    name: ClassVar[str] = "board"
    aliases: ClassVar[tuple[str, ...]] = ("show", "position")
    usage: ClassVar[str] = "board"
    summary: ClassVar[str] = "mail the current position"
    scopes: ClassVar[frozenset[str]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_game()
        state = engine_for(game).load(game.state)
        return Result(board_block(game, state, seat))
