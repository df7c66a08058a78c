"""Times in a reader's own zone: every UTC time a mail shows, rewritten for the player who reads it.

The server writes every time it shows in one of two UTC forms, ``2026-12-01 06:12 UTC``
(clocks, listings) and ``Tue 1 Dec 06:12 UTC`` (the news line a client previews). Just
before a mail is queued its text is rewritten for its reader's ``timezone`` setting, so a
time can never reach a player in the wrong zone, whichever template or command wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from pbem.calendar_names import DAY_NAMES as _DAYS
from pbem.calendar_names import MONTH_NAMES as _MONTHS

__all__ = ["localise", "short_stamp", "stamp"]

_STAMP = re.compile(r"\b(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}) UTC\b")
_SHORT = re.compile(rf"\b({'|'.join(_DAYS)}) (\d{{1,2}}) ({'|'.join(_MONTHS)}) (\d{{2}}):(\d{{2}}) UTC\b")


def stamp(moment: datetime, zone: str = "UTC") -> str:
    """``moment`` as ``2026-12-01 06:12 UTC`` (``zone`` names its zone): what ``strftime("%Y-%m-%d %H:%M")`` writes
    (the year unpadded, as glibc's), without its cost (a move's mails write a dozen times)."""
    return f"{moment.year}-{moment.month:02d}-{moment.day:02d} {moment.hour:02d}:{moment.minute:02d} {zone}"


def short_stamp(moment: datetime, zone: str = "UTC") -> str:
    """``moment`` as ``Tue 1 Dec 06:12 UTC``, the form a mail's news line shows (English names, as the C locale's)."""
    day, month = _DAYS[moment.weekday()], _MONTHS[moment.month - 1]
    return f"{day} {moment.day} {month} {moment.hour:02d}:{moment.minute:02d} {zone}"


def localise(text: str, zone: ZoneInfo, now: datetime, keep: Sequence[str] = ()) -> str:
    """``text`` with its UTC times in ``zone``, named by its IANA name; the passages in ``keep`` (a
    player's own words, quoted) untouched. ``now`` places the year-less form in time."""
    if zone.key == "UTC" or "UTC" not in text:
        return text
    kept: dict[str, str] = {}
    for index, words in enumerate(keep):
        if words in text:
            marker = f"\x00{index}\x00"
            kept[marker] = words
            text = text.replace(words, marker, 1)
    text = _STAMP.sub(lambda m: _stamp(m, zone), text)
    text = _SHORT.sub(lambda m: _short(m, zone, now), text)
    for marker, words in kept.items():
        text = text.replace(marker, words, 1)
    return text


def _stamp(match: re.Match[str], zone: ZoneInfo) -> str:
    year, month, day, hour, minute = map(int, match.groups())
    try:
        moment = datetime(year, month, day, hour, minute, tzinfo=UTC).astimezone(zone)
    except ValueError:
        return match.group(0)
    return stamp(moment, zone.key)


def _short(match: re.Match[str], zone: ZoneInfo, now: datetime) -> str:
    weekday, day, month_name, hour, minute = match.groups()
    month = _MONTHS.index(month_name) + 1
    year = _year_of(_DAYS.index(weekday), int(day), month, now)
    if year is None:
        return match.group(0)
    moment = datetime(year, month, int(day), int(hour), int(minute), tzinfo=UTC).astimezone(zone)
    return short_stamp(moment, zone.key)


def _year_of(weekday: int, day: int, month: int, now: datetime) -> int | None:
    """The year, nearest ``now``, in which ``day`` ``month`` falls on ``weekday``: the form names no year,
    but every time the server shows is within a year of now, and the weekday settles which."""
    fits = []
    for year in (now.year, now.year + 1, now.year - 1):
        try:
            if date(year, month, day).weekday() == weekday:
                fits.append(year)
        except ValueError:  # 29 Feb outside a leap year
            continue
    return fits[0] if fits else None
