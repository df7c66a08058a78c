"""``settings``: the sender's settings, each with its value and meaning."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import Context, Result
from pbem.app.settings import SETTINGS, settings_lines
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind


class Settings:
    name: ClassVar[str] = "settings"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "settings"
    summary: ClassVar[str] = "list your settings and what they mean ('help set' for the values)"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = (
        "Lists timezone, mail, digest-hour, pictures, board and notify-observed with\n"
        "your value of each (and which are the defaults). \"help set\" gives the values.\n\n"
        "Examples:\n"
        "  settings\n"
        "  set timezone Europe/Berlin"
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        lines = ["Your settings (change one with 'set KEY VALUE'):", "", *settings_lines(account), ""]
        for definition in SETTINGS.values():
            lines.append(f"{definition.key}: {definition.meaning} ({definition.values}).")
        return Result("\n".join(lines))
