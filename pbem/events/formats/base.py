"""The Format protocol: what each event format decides, so the running of an event never asks which it is."""

from __future__ import annotations

import random
from typing import Protocol

from pbem.app.context import Context
from pbem.events.standings import standings
from pbem.events.store import EventData
from pbem.store.event_models import Event, EventPlayer
from pbem.store.vocabulary import EventFormat

__all__ = ["Format", "by_rating", "leaders"]


class Format(Protocol):
    """One event format. The service calls these in this order over an event's life:

    ``order`` and ``start`` when the organiser starts it; after every finished
    game (or withdrawal) ``update``, then ``round_complete``; when a round is
    complete, ``last_round`` (the event is over) or else ``pair_next_round``.
    ``winner`` words the final mail; the tables and ``cross_title`` are what the
    standings mails and commands show.
    """

    #: The format this implements (several keys may share one implementation).
    key: EventFormat
    #: The heading of the second table in the mails: "Crosstable" or "Bracket".
    cross_title: str
    #: True when the games come round by round (the summary then tells the round, not the games).
    paced_by_rounds: bool

    def order(self, data: EventData, entries: list[EventPlayer], lot: random.Random) -> list[EventPlayer]:
        """The entered players in start order (start numbers 1, 2, ...)."""
        ...

    def start(self, ctx: Context, event: Event, players: list[int]) -> None:
        """Fix the number of rounds and start the first games of ``players`` (account ids in start order)."""
        ...

    def update(self, ctx: Context, data: EventData) -> None:
        """After a game or a withdrawal: decide what the finished games decide, start games that follow."""
        ...

    def round_complete(self, data: EventData) -> bool:
        """Whether nothing of the current round is still being played."""
        ...

    def last_round(self, data: EventData) -> bool:
        """With the round complete: whether the event is over."""
        ...

    def pair_next_round(self, ctx: Context, data: EventData) -> bool:
        """Pair and start the next round; False when no pairing is possible (the event then ends)."""
        ...

    def winner(self, data: EventData) -> str:
        """The winner (or winners) of a finished event, as the final mail names them."""
        ...

    def annuls_withdrawal(self, played: int, scheduled: int) -> bool:
        """Whether a player who withdraws after ``played`` of their ``scheduled`` games has their results annulled.

        Otherwise their unfinished games are forfeited.
        """
        ...

    def withdrawn(self, ctx: Context, event: Event, player: int) -> None:
        """What else a withdrawal means for this format, after the unfinished games were forfeited."""
        ...

    def standings_table(self, data: EventData) -> str:
        """The standings as the mails and `pbem event standings` show them."""
        ...

    def crosstable(self, data: EventData) -> str:
        """The crosstable (a knockout's bracket) as the mails and `pbem event crosstable` show them."""
        ...


def by_rating(data: EventData, entries: list[EventPlayer], lot: random.Random) -> list[EventPlayer]:
    """Seeds by rating, highest first; equal ratings by lot."""
    ties = {e.id: lot.random() for e in entries}
    return sorted(entries, key=lambda e: (-data.ratings[e.account_id or 0].rating, ties[e.id]))


def leaders(data: EventData) -> str:
    """Whoever ranks first on the standings ("a and b" when they share it)."""
    rows = standings(data)
    return " and ".join(data.handle(r.player) for r in rows if r.rank == 1) if rows else "nobody"
