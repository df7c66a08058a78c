"""``history``: the game record with the players' notes, and real PGN too for Hyperspace Chess."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.game_state import handles, records
from pbem.app.records import mail_record, note_comments
from pbem.commands.base import SEAT
from pbem.engine.base import Seat
from pbem.mail.addresses import AddressKind


class History:
    name: ClassVar[str] = "history"
    aliases: ClassVar[tuple[str, ...]] = ("record", "pgn")
    usage: ClassVar[str] = "history"
    summary: ClassVar[str] = "mail the game record (with both players' notes as comments)"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, _seat = ctx.require_game()
        names = handles(ctx, game)
        moves = records(ctx, game)
        # A player's record holds both players' notes: each of them has read every one.
        comments = note_comments(game, len(moves), names[Seat.WHITE], names[Seat.BLACK])
        record = mail_record(game, moves, names[Seat.WHITE], names[Seat.BLACK], ctx.services.addresses.domain,
                             comments)
        return Result(record.text, headline=f"The record of game {game.id}.", own_words=record.own_words)
