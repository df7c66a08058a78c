"""Round robins, single and double: every game of the section starts at once, as in correspondence."""

from __future__ import annotations

import random

from pbem.app.context import Context
from pbem.events.formats.base import leaders
from pbem.events.games import start_games
from pbem.events.mails import announce
from pbem.events.pairing.berger import berger_table, double_round_robin
from pbem.events.render import points_table, round_robin_crosstable
from pbem.events.standings import standings
from pbem.events.store import EventData
from pbem.store.event_models import Event, EventPlayer
from pbem.store.vocabulary import EventFormat, GameStatus

__all__ = ["RoundRobin"]


class RoundRobin:
    """Everybody meets everybody once (``double``: twice, once with each colour).

    Start numbers, and so the Berger table's colours, are drawn by lot. A
    player who withdraws having finished fewer than half of their games has
    all their results annulled (they count for nobody), after ICCF/FIDE
    practice; otherwise their unfinished games are forfeited.
    """

    cross_title = "Crosstable"
    paced_by_rounds = False  # the Berger rounds all start together

    def __init__(self, double: bool = False) -> None:
        self.double = double
        self.key = EventFormat.DOUBLE_ROUND_ROBIN if double else EventFormat.ROUND_ROBIN

    def order(self, data: EventData, entries: list[EventPlayer], lot: random.Random) -> list[EventPlayer]:
        drawn = list(entries)
        lot.shuffle(drawn)
        return drawn

    def start(self, ctx: Context, event: Event, players: list[int]) -> None:
        table = double_round_robin(len(players)) if self.double else berger_table(len(players))
        event.rounds, event.current_round = len(table), 1
        games = [game for number, pairs in enumerate(table, start=1)
                 for game in start_games(ctx, event, number, [(players[w], players[b]) for w, b in pairs])]
        announce(ctx, event, games, bye=None, heading="All games of the section start now")

    def update(self, ctx: Context, data: EventData) -> None:
        pass  # a game's result decides nothing but itself

    def round_complete(self, data: EventData) -> bool:
        return all(g.status == GameStatus.FINISHED for g in data.games)

    def last_round(self, data: EventData) -> bool:
        return True  # all the games were one "round"

    def pair_next_round(self, ctx: Context, data: EventData) -> bool:
        return False

    def winner(self, data: EventData) -> str:
        return leaders(data)

    def annuls_withdrawal(self, played: int, scheduled: int) -> bool:
        return 2 * played < scheduled

    def withdrawn(self, ctx: Context, event: Event, player: int) -> None:
        pass

    def standings_table(self, data: EventData) -> str:
        return points_table(data)

    def crosstable(self, data: EventData) -> str:
        return round_robin_crosstable(data, standings(data), width=2 if self.double else 1)
