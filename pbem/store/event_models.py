"""The tournament tables: events, their players, and ratings per variant."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel

from pbem.store.models import RatingColumns, utcnow
from pbem.store.vocabulary import EntryStatus, EventFormat, EventStatus

__all__ = ["FORMATS", "Event", "EventPlayer", "Rating"]

#: Event formats, as `pbem event create --format` takes them.
FORMATS = tuple(fmt.value for fmt in EventFormat)


class Event(SQLModel, table=True):
    """A tournament: its terms, where it stands, and (for knockouts) the bracket."""

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True, max_length=64)
    variant: str = Field(max_length=32)
    format: str = Field(max_length=24)  # an EventFormat; plain str columns, so stored rows read back as before
    time_control: str = Field(default="", max_length=32)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    rounds: int = 0  # Swiss: the number of rounds (0: chosen at the start from the number of players)
    tiebreaks: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    games_per_match: int = 2  # knockout
    knockout_tiebreak: str = Field(default="extra", max_length=16)
    round_days: float | None = None  # Swiss / knockout: the organiser's deadline for a round
    status: str = Field(default=EventStatus.REGISTRATION, max_length=16, index=True)  # an EventStatus
    current_round: int = 0
    round_deadline: datetime | None = None
    #: The organiser's account (``pbem event create --organiser``): may ask the engine about any game by mail.
    organiser_id: int | None = Field(default=None, foreign_key="account.id")
    #: Knockout: {"rounds": [[{"high": id, "low": id|None, "winner": id|None, "how": str}, ...], ...]}.
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    version: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class EventPlayer(SQLModel, table=True):
    """One entrant of an event; an invited address has no account until it registers and joins."""

    __table_args__ = (UniqueConstraint("event_id", "email"),)

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    account_id: int | None = Field(default=None, foreign_key="account.id", index=True)
    email: str = Field(max_length=320)
    status: str = Field(default=EntryStatus.ENTERED, max_length=16)  # an EntryStatus
    seed: int = 0  # start number: Berger number (by lot) or Swiss/knockout seed (by rating)
    byes: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))  # Swiss rounds
    annulled: bool = False  # withdrew early: their games do not count for anybody
    withdrawn_round: int = 0
    joined_at: datetime = Field(default_factory=utcnow)


class Rating(RatingColumns, table=True):
    """A player's Elo rating in one variant from games between people (see pbem.events.ratings)."""

    __table_args__ = (UniqueConstraint("account_id", "variant"),)
