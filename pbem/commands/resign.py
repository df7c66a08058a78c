"""``resign``: give up the game of this seat."""

from __future__ import annotations

from typing import ClassVar

from pbem.commands.base import SEAT, Context, Result
from pbem.engine.base import Outcome
from pbem.gameplay import finish_game


class Resign:
    name: ClassVar[str] = "resign"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "resign"
    summary: ClassVar[str] = "resign the game"
    scopes: ClassVar[frozenset[str]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        return finish_game(ctx, game, Outcome.win(seat.other, "resignation"), by=seat)
