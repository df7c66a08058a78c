"""Which Format implements which event format."""

from __future__ import annotations

from pbem.events.formats.base import Format
from pbem.events.formats.knockout import Knockout
from pbem.events.formats.round_robin import RoundRobin
from pbem.events.formats.swiss import Swiss
from pbem.store.vocabulary import EventFormat

__all__ = ["FORMAT_OF", "format_of"]

FORMAT_OF: dict[EventFormat, Format] = {
    EventFormat.ROUND_ROBIN: RoundRobin(),
    EventFormat.DOUBLE_ROUND_ROBIN: RoundRobin(double=True),
    EventFormat.SWISS: Swiss(),
    EventFormat.KNOCKOUT: Knockout(),
}


def format_of(name: str) -> Format:
    """The implementation of the format ``name`` (an event's stored ``format``); ValueError if unknown."""
    return FORMAT_OF[EventFormat(name)]
