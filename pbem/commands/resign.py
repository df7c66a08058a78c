"""``resign``: give up the game of this seat."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.games import finish_game
from pbem.commands.base import SEAT
from pbem.engine.base import Outcome
from pbem.mail.addresses import AddressKind


class Resign:
    name: ClassVar[str] = "resign"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "resign"
    summary: ClassVar[str] = "resign the game"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        return finish_game(ctx, game, Outcome.win(seat.other, "resignation"), by=seat)
