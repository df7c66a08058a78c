"""The event layer's fixed words: formats and the statuses of events and entries, as stored."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["EntryStatus", "EventFormat", "EventStatus"]


class EventFormat(StrEnum):
    """How an event is paired, as `pbem event create --format` takes it and the event row stores it."""

    ROUND_ROBIN = "round-robin"
    DOUBLE_ROUND_ROBIN = "double-round-robin"
    SWISS = "swiss"
    KNOCKOUT = "knockout"

    @property
    def label(self) -> str:
        """The format as the mails and tables name it."""
        return _LABELS[self]


_LABELS = {EventFormat.ROUND_ROBIN: "round robin", EventFormat.DOUBLE_ROUND_ROBIN: "double round robin",
           EventFormat.SWISS: "Swiss", EventFormat.KNOCKOUT: "knockout"}


class EventStatus(StrEnum):
    """Where an event stands: open for entries, being played, over."""

    REGISTRATION = "registration"
    RUNNING = "running"
    FINISHED = "finished"


class EntryStatus(StrEnum):
    """An entrant: invited (no account yet), entered, or withdrawn after the start."""

    INVITED = "invited"
    ENTERED = "entered"
    WITHDRAWN = "withdrawn"
