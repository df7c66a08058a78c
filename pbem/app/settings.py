"""Per-player settings (``set KEY VALUE``): what each means, its values, and reading them for a mail's reader."""

from __future__ import annotations

import dataclasses
import difflib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pbem.app.context import CommandError, Context
from pbem.app.game_state import player_id
from pbem.app.local_time import localise
from pbem.engine.base import Recipient, Seat
from pbem.mail.compose import Outgoing
from pbem.store.models import Account, Game

__all__ = [
    "SETTINGS",
    "Setting",
    "change_setting",
    "digest_reader",
    "for_reader",
    "next_digest_time",
    "setting",
    "settings_lines",
    "white_bottom_for",
    "zone_of",
]


@dataclass(frozen=True)
class Setting:
    """One setting: its default, what it means, and how a value a player writes is read (None: not valid)."""

    key: str
    default: str
    meaning: str
    values: str  # the accepted values, as help shows them
    read: Callable[[str], str | None]


def _one_of(*choices: str) -> Callable[[str], str | None]:
    def read(value: str) -> str | None:
        value = value.lower()
        return value if value in choices else None
    return read


@lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """Every IANA zone name this machine knows (the tzdata package ships them), by its lower-case spelling."""
    return {name.lower(): name for name in available_timezones()}


def _zone_name(value: str) -> str | None:
    name = _zones().get(value.lower())
    if name is None and value.upper() == "UTC":
        name = "UTC"
    return name


def _hour(value: str) -> str | None:
    text = value.removesuffix(":00")
    return str(int(text)) if text.isdigit() and 0 <= int(text) <= 23 else None


SETTINGS: dict[str, Setting] = {setting.key: setting for setting in (
    Setting("timezone", "UTC", "the time zone every time in your mails is shown in",
            "an IANA name such as Europe/Berlin or America/New_York", _zone_name),
    Setting("mail", "each", "each: a mail for every move in your games; digest: one mail a day at digest-hour "
            "listing the games where it is your move (answers to your own mails, deadline reminders and "
            "the end of a game still come at once)", "each | digest", _one_of("each", "digest")),
    Setting("digest-hour", "8", "the hour of the day (in your time zone) your digest is sent", "0 to 23",
            _hour),
    Setting("pictures", "on", "whether game mails carry a picture of the board beside the text diagram",
            "on | off", _one_of("on", "off")),
    Setting("board", "own-side", "own-side: your side at the bottom of diagrams and pictures; white-bottom: "
            "White at the bottom whichever side you play", "own-side | white-bottom",
            _one_of("own-side", "white-bottom")),
    Setting("notify-observed", "each", "for games you observe: each: a mail per move; end: only the result",
            "each | end", _one_of("each", "end")),
)}


def setting(account: Account | None, key: str) -> str:
    """The value of ``key`` for ``account`` (the default for no account)."""
    stored = account.settings.get(key) if account is not None else None
    return stored if isinstance(stored, str) else SETTINGS[key].default


def wants_pictures(account: Account | None) -> bool:
    """Whether ``account``'s game mails carry a picture and an HTML part (``set pictures off``: the text alone)."""
    return setting(account, "pictures") != "off"


def may_want_pictures(ctx: Context, account: Account | None) -> bool:
    """Whether a game mail to ``account`` written now needs its picture worked out: not for a reader with
    pictures off (for_reader would drop it when the mail is queued), unless the reader is the sender of the mail
    being answered, whose ``set pictures on`` later in the same mail still counts for it."""
    if wants_pictures(account):
        return True
    return account is not None and ctx.account is not None and ctx.account.id == account.id


def zone_of(account: Account | None) -> ZoneInfo:
    try:
        return ZoneInfo(setting(account, "timezone"))
    except (ZoneInfoNotFoundError, ValueError):  # a zone removed from tzdata since it was set
        return ZoneInfo("UTC")


def next_digest_time(account: Account, now: datetime) -> datetime:
    """The next moment after ``now`` when ``account``'s clock in their zone shows digest-hour:00."""
    zone = zone_of(account)
    local = now.astimezone(zone)
    hour = int(setting(account, "digest-hour"))
    due = datetime.combine(local.date(), time(hour), tzinfo=zone)
    if due <= local:
        due = datetime.combine(local.date() + timedelta(days=1), time(hour), tzinfo=zone)
    return due.astimezone(now.tzinfo)


def change_setting(account: Account, key: str, value: str, now: datetime) -> str:
    """Set ``key`` to ``value`` for ``account``; the value as stored. Raises CommandError on a bad key or value."""
    definition = SETTINGS.get(key.lower())
    if definition is None:
        near = difflib.get_close_matches(key.lower(), SETTINGS, n=1)
        hint = f" (did you mean '{near[0]}'?)" if near else ""
        raise CommandError(f"there is no setting '{key}'{hint}; the settings are {', '.join(SETTINGS)}")
    read = definition.read(value)
    if read is None:
        hint = ""
        if definition.key == "timezone":
            near = difflib.get_close_matches(value.lower(), _zones(), n=1)
            hint = f" (did you mean {_zones()[near[0]]}?)" if near else ""
        raise CommandError(f"'{value}' is not a value of {definition.key}{hint}: {definition.values}")
    settings = {k: v for k, v in account.settings.items() if k != definition.key}
    if read != definition.default:
        settings[definition.key] = read
    account.settings = settings
    if definition.key in ("mail", "digest-hour", "timezone"):
        _reschedule_digest(account, now)
    return read


def _reschedule_digest(account: Account, now: datetime) -> None:
    """Digest readers get their next digest at their hour; a player back to 'each' gets what was held at once."""
    if setting(account, "mail") == "digest":
        if account.next_digest_at is None:  # newly a digest reader: earlier moves were mailed one by one
            account.last_digest_at = now
        account.next_digest_at = next_digest_time(account, now)
    elif account.next_digest_at is not None:
        account.next_digest_at = now  # back to 'each': the sweep sends what was held (if anything) at once


def settings_lines(account: Account) -> list[str]:
    """Each setting with its value, marked where it is the default."""
    width = max(map(len, SETTINGS))
    lines = []
    for key, definition in SETTINGS.items():
        value = setting(account, key)
        default = " (default)" if value == definition.default else ""
        lines.append(f"{key:<{width}}  {value}{default}")
    return lines


def digest_reader(account: Account | None) -> bool:
    return setting(account, "mail") == "digest"


def white_bottom_for(ctx: Context, game: Game, audience: Recipient) -> bool:
    """Whether the player ``audience`` (a seat of ``game``) wants White at the bottom of their boards."""
    if not isinstance(audience, Seat):
        return False
    return setting(ctx.account_by_id(player_id(game, audience)), "board") == "white-bottom"


def for_reader(mail: Outgoing, reader: Account | None, now: datetime) -> None:
    """Fit ``mail`` to its reader's settings: times in their zone, no pictures for who turned them off."""
    if reader is None:
        return
    zone = zone_of(reader)
    mail.body = localise(mail.body, zone, now, keep=mail.own_words)
    source = mail.html_source
    if not wants_pictures(reader):
        mail.html_source = None  # the plain text alone: its diagram is the board
        mail.attachments = tuple(item for item in mail.attachments if item.maintype != "image")
    elif source is not None and source.clock:
        mail.html_source = dataclasses.replace(
            source, clock=tuple(localise(line, zone, now) for line in source.clock))
