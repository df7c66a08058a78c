"""``move MOVE`` (or a bare move line): play a move in the game of this seat."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.app.games import play_move
from pbem.commands.base import SEAT
from pbem.mail.addresses import AddressKind


class Move:
    name: ClassVar[str] = "move"
    aliases: ClassVar[tuple[str, ...]] = ("play", "phase")
    usage: ClassVar[str] = "move MOVE [#N]   (or just the move)"
    summary: ClassVar[str] = "play a move; #N rejects it unless it is move N"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        if not args:
            raise CommandError("which move? e.g. 'move Ng1-f3'")
        return play_move(ctx, " ".join(args))
