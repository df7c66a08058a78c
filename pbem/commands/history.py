"""``history``: the game record, PGN-like, with a Variant tag (and real PGN too for Hyperspace Chess)."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.game_state import handles, records
from pbem.app.records import mail_record
from pbem.commands.base import SEAT
from pbem.engine.base import Seat
from pbem.mail.addresses import AddressKind


class History:
    name: ClassVar[str] = "history"
    aliases: ClassVar[tuple[str, ...]] = ("record", "pgn")
    usage: ClassVar[str] = "history"
    summary: ClassVar[str] = "mail the game record"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, _seat = ctx.require_game()
        names = handles(ctx, game)
        return Result(mail_record(game, records(ctx, game), names[Seat.WHITE], names[Seat.BLACK],
                                  ctx.services.addresses.domain), headline=f"The record of game {game.id}.")
