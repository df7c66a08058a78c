"""``set KEY VALUE``: change one of the sender's settings (time zone, digest, pictures, board, observed games)."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.app.settings import SETTINGS, change_setting, next_digest_time, setting, zone_of
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind


def _settings_help() -> str:
    lines = []
    for definition in SETTINGS.values():
        lines.append(f"  {definition.key} {definition.values}   (default {definition.default})")
        lines.append(f"      {definition.meaning}")
    return "\n".join(lines)


class SetSetting:
    name: ClassVar[str] = "set"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "set KEY VALUE"
    summary: ClassVar[str] = "change a setting of yours (timezone, mail, digest-hour, pictures, board, ...)"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = (
        "The settings (\"settings\" lists yours):\n" + _settings_help() + "\n\n"
        "Examples:\n"
        "  set timezone Europe/Berlin\n"
        "  set mail digest\n"
        "  set digest-hour 7\n"
        "  set pictures off\n"
        "  set board white-bottom\n"
        "  set notify-observed end\n\n"
        "Outer Space Chess and tri-d draw their boards one way for both sides, as their\n"
        "rules do; 'board' turns the Hyperspace, space-chess and Voidrider boards.\n"
        "Observers' mails always show White at the bottom."
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        if len(args) != 2:
            raise CommandError(f"usage: {self.usage}, e.g. 'set timezone Europe/Berlin'; "
                               f"the settings are {', '.join(SETTINGS)}")
        now = ctx.services.now()
        value = change_setting(account, args[0], args[1], now)
        ctx.session.add(account)
        key = args[0].lower()
        said = f"Your setting {key} is now {value}."
        if key == "timezone":
            said += f" Times in your mails are shown in {zone_of(account).key} from now on."
        if setting(account, "mail") == "digest" and key in ("mail", "digest-hour", "timezone"):
            due = next_digest_time(account, now)
            said += f" Your next digest: {due:%Y-%m-%d %H:%M} UTC."
        return Result(said)
