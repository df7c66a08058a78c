"""``analyse [GAME]``: the engine's view of a finished game (or, for an event's organiser, of any of its games)."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.analysis import request_analysis
from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind
from pbem.store.models import Game


class Analyse:
    name: ClassVar[str] = "analyse"
    aliases: ClassVar[tuple[str, ...]] = ("analyze", "analysis")
    usage: ClassVar[str] = "analyse [GAME]"
    summary: ClassVar[str] = "mail the engine's view (score, best move, line) of a finished game's final position"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = (
        "Reply \"analyse\" to a mail of a game that is over, or send \"analyse GAME\" to\n"
        "your personal address: the engine looks at the final position and mails its\n"
        "score, its best move and the line it expects. An event's organiser may ask\n"
        "about any game of their event, finished or not. During your own game the\n"
        "engine does not help.\n\n"
        "Examples:\n"
        "  analyse\n"
        "  analyse 42"
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        if args:
            number = args[0].lstrip("#")
            if not number.isdigit():
                raise CommandError(f"a game is named by its number, not {args[0]!r}")
            game = ctx.session.get(Game, int(number))
            if game is None:
                raise CommandError(f"there is no game {number}")
        elif ctx.game is not None:
            game = ctx.game
        else:
            raise CommandError("which game? Send 'analyse GAME' (its number), or reply 'analyse' to a mail of it")
        return request_analysis(ctx, game, account)
