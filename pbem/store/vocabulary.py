"""The fixed words the tables store: statuses of games, challenges, mails, events and entries; event formats."""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "ChallengeStatus",
    "EntryStatus",
    "EventFormat",
    "EventStatus",
    "GameStatus",
    "InboxStatus",
    "NoticeKind",
    "NoticeStatus",
    "OutboxKind",
    "OutboxStatus",
]


class GameStatus(StrEnum):
    """A game is played until it is over, whatever way it ended."""

    ACTIVE = "active"
    FINISHED = "finished"


class ChallengeStatus(StrEnum):
    """A challenge waits for its answer; accepting it starts the game.

    A seek (an open challenge, no opponent yet) is SEEKING until someone accepts it (ACCEPTED), its owner
    withdraws it (WITHDRAWN) or its time runs out (EXPIRED).
    """

    OPEN = "open"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    SEEKING = "seeking"
    EXPIRED = "expired"
    WITHDRAWN = "withdrawn"


class InboxStatus(StrEnum):
    """A stored mail: waiting, answered, held for its owner's confirmation, or failed (kept, sender told)."""

    NEW = "new"
    DONE = "done"
    HELD = "held"
    FAILED = "failed"


class NoticeKind(StrEnum):
    """What a :class:`~pbem.store.models.GameNotice` tells the players."""

    REMINDER = "reminder"
    LATE = "late"
    ENDED = "ended"  # lost on time, or aborted for want of a first move


class NoticeStatus(StrEnum):
    NEW = "new"
    FAILED = "failed"


class OutboxKind(StrEnum):
    """Why a mail was sent: error replies (only failures to report) are rate-limited per recipient."""

    REPLY = "reply"
    ERROR = "error"


class OutboxStatus(StrEnum):
    """A queued mail: waiting for the relay, taken by it, or given up after the last attempt."""

    PENDING = "pending"
    SENT = "sent"
    FAILED = "failed"


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
