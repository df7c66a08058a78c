"""``help [VARIANT|COMMAND]``: the command list, a variant's rules, or one command's usage."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import ANYWHERE, Documented
from pbem.mail.addresses import AddressKind
from pbem.mail.render import render
from pbem.variants import UnknownVariantError, get_variant


class Help:
    name: ClassVar[str] = "help"
    aliases: ClassVar[tuple[str, ...]] = ("?", "info")
    usage: ClassVar[str] = "help [VARIANT|COMMAND]"
    summary: ClassVar[str] = "this list, a variant's rules and notation, or one command's usage"
    scopes: ClassVar[frozenset[AddressKind]] = ANYWHERE

    def run(self, ctx: Context, args: list[str]) -> Result:
        from pbem.commands.registry import COMMANDS, lookup  # the registry imports this module

        if not args:
            return Result(render("player/help.txt", commands=COMMANDS, public=ctx.services.addresses.public))
        topic = args[0]
        command = lookup(topic)
        if command is not None:
            details = f"\n\n{command.details}" if isinstance(command, Documented) else ""
            return Result(f"{command.usage}\n    {command.summary}{details}")
        try:
            return Result(get_variant(topic).help_text())
        except UnknownVariantError as error:
            raise CommandError(f"no help on {topic!r}: not a command or a variant") from error
