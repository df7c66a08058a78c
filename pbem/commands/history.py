"""``history``: the game record, PGN-like, with a Variant tag."""

from __future__ import annotations

from typing import ClassVar

from pbem.commands.base import SEAT, Context, Result
from pbem.records import game_record


class History:
    name: ClassVar[str] = "history"
    aliases: ClassVar[tuple[str, ...]] = ("record", "pgn")
    usage: ClassVar[str] = "history"
    summary: ClassVar[str] = "mail the game record"
    scopes: ClassVar[frozenset[str]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, _seat = ctx.require_game()
        return Result(game_record(ctx, game))
