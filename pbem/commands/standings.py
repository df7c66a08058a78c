"""``standings EVENT``: a tournament's standings and crosstable."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind


class Standings:
    name: ClassVar[str] = "standings"
    aliases: ClassVar[tuple[str, ...]] = ("crosstable",)
    usage: ClassVar[str] = "standings EVENT"
    summary: ClassVar[str] = "a tournament's standings and crosstable"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        from pbem.events.entries import find_event
        from pbem.events.errors import EventError
        from pbem.events.tables import standings_text  # the event layer imports the registry

        ctx.require_account()
        if len(args) != 1:
            raise CommandError(f"usage: {self.usage}")
        try:
            return Result(standings_text(ctx, find_event(ctx, args[0])))
        except EventError as error:
            raise CommandError(str(error)) from error
