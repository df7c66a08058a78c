"""``board``: the current position as the sender may see it."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.game_mail import board_block
from pbem.app.game_state import engine_for
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
        state = engine_for(game).load(game.state)
        return Result(board_block(game, state, seat))
