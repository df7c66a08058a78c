"""An event's tables as players and organiser see them: the summary line, standings, crosstable or bracket."""

from __future__ import annotations

from pbem.app.context import Context
from pbem.events.formats.registry import format_of
from pbem.events.store import EventData, load
from pbem.mail.render import render
from pbem.store.event_models import Event
from pbem.store.vocabulary import EntryStatus, EventFormat, EventStatus, GameStatus
from pbem.variants import get_variant

__all__ = ["crosstable", "mail_tables", "standings_table", "standings_text", "summary"]


def summary(data: EventData) -> str:
    """One line: name, variant, format, progress."""
    event = data.event
    title = get_variant(event.variant).title
    finished = sum(g.status == GameStatus.FINISHED for g in data.games)
    if event.status == EventStatus.REGISTRATION:
        where = f"registration open, {sum(p.status == EntryStatus.ENTERED for p in data.players)} entered"
    elif not format_of(event.format).paced_by_rounds:
        where = f"{finished} of {len(data.games)} games finished"
    else:
        total = f" of {event.rounds}" if event.rounds else ""
        where = f"round {event.current_round}{total}, {finished} games finished"
    if event.status == EventStatus.FINISHED:
        where = f"finished, {finished} games"
    return f"{event.name}: {title}, {EventFormat(event.format).label}, {where}"


def standings_table(data: EventData) -> str:
    return format_of(data.event.format).standings_table(data)


def crosstable(data: EventData) -> str:
    return format_of(data.event.format).crosstable(data)


def mail_tables(data: EventData) -> dict[str, str]:
    """What the event templates show: the summary, the standings and the crosstable (or bracket)."""
    return dict(summary=summary(data), table=standings_table(data), crosstable=crosstable(data),
                cross_title=format_of(data.event.format).cross_title)


def standings_text(ctx: Context, event: Event) -> str:
    """Standings and crosstable, as the ``standings`` command and `pbem event standings` show them."""
    return render("event/tables.txt", **mail_tables(load(ctx.session, event)))
