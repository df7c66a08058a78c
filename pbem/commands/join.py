"""``join EVENT``: enter a tournament while its registration is open."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import PERSONAL
from pbem.mail.addresses import AddressKind


class Join:
    name: ClassVar[str] = "join"
    aliases: ClassVar[tuple[str, ...]] = ("enter",)
    usage: ClassVar[str] = "join EVENT"
    summary: ClassVar[str] = "enter a tournament while its registration is open"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({PERSONAL})

    def run(self, ctx: Context, args: list[str]) -> Result:
        from pbem.events.entries import find_event, join_event  # the event layer imports the registry
        from pbem.events.errors import EventError

        account = ctx.require_account()
        if len(args) != 1:
            raise CommandError(f"usage: {self.usage}")
        try:
            return Result(join_event(ctx, find_event(ctx, args[0]), account))
        except EventError as error:
            raise CommandError(str(error)) from error
