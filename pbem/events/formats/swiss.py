"""The Swiss system: seeded by rating, one round at a time, paired when the last game of a round ends."""

from __future__ import annotations

import math
import random

from pbem.app.context import Context
from pbem.events.errors import EventError
from pbem.events.formats.base import by_rating, leaders
from pbem.events.games import set_round, start_games
from pbem.events.mails import announce
from pbem.events.pairing.swiss_matching import Entrant, PairingError, pair_round
from pbem.events.render import points_table, swiss_crosstable
from pbem.events.standings import standings
from pbem.events.store import EventData, load
from pbem.store.event_models import Event, EventPlayer
from pbem.store.vocabulary import EntryStatus, EventFormat, GameStatus

__all__ = ["Swiss"]


class Swiss:
    """Seeds by rating (ties by lot); the pairing rules are in pbem.events.pairing.swiss_matching.

    A round deadline (``round_days``) is shown in the mails and in `pbem event
    list`; the organiser then decides the unfinished games with `pbem event
    adjudicate`, which completes the round. A player who withdraws keeps their
    results, forfeits the unfinished game and is not paired again.
    """

    key = EventFormat.SWISS
    cross_title = "Crosstable"
    paced_by_rounds = True

    def order(self, data: EventData, entries: list[EventPlayer], lot: random.Random) -> list[EventPlayer]:
        return by_rating(data, entries, lot)

    def start(self, ctx: Context, event: Event, players: list[int]) -> None:
        limit = len(players) - 1 + len(players) % 2
        event.rounds = event.rounds or min(limit, max(1, math.ceil(math.log2(len(players)))))
        if event.rounds > limit:
            raise EventError(f"{len(players)} players can play at most {limit} Swiss rounds without a rematch")
        ctx.session.add(event)
        ctx.session.flush()
        self.pair_next_round(ctx, load(ctx.session, event))

    def update(self, ctx: Context, data: EventData) -> None:
        pass  # a game's result decides nothing but itself

    def round_complete(self, data: EventData) -> bool:
        return all(g.status == GameStatus.FINISHED for g in data.games)

    def last_round(self, data: EventData) -> bool:
        return data.event.current_round >= data.event.rounds

    def pair_next_round(self, ctx: Context, data: EventData) -> bool:
        event = data.event
        round_ = event.current_round + 1
        try:
            # Seeded by event and round, so a round's pairing can be reproduced.
            pairing = pair_round(_entrants(data), random.Random(f"{event.id}:{round_}"))
        except PairingError:
            return False
        set_round(ctx, event, round_)
        if pairing.bye is not None:
            entry = data.entry(pairing.bye)
            assert entry is not None
            entry.byes = [*entry.byes, round_]
            ctx.session.add(entry)
        games = start_games(ctx, event, round_, pairing.boards)
        announce(ctx, event, games, pairing.bye, heading=f"Round {round_} of {event.rounds}")
        return True

    def winner(self, data: EventData) -> str:
        return leaders(data)

    def annuls_withdrawal(self, played: int, scheduled: int) -> bool:
        return False

    def withdrawn(self, ctx: Context, event: Event, player: int) -> None:
        pass  # their entry is withdrawn, so the next pairing leaves them out

    def standings_table(self, data: EventData) -> str:
        return points_table(data)

    def crosstable(self, data: EventData) -> str:
        return swiss_crosstable(data, standings(data))


def _entrants(data: EventData) -> list[Entrant]:
    """The players still in, as the pairing sees them: score, start rank, colours, opponents, bye."""
    points = {row.player: row.points for row in standings(data)}
    result = []
    for entry in data.players:
        if entry.status != EntryStatus.ENTERED or entry.account_id is None:
            continue
        me = entry.account_id
        mine = [g for g in data.games if me in (g.white_id, g.black_id)]
        result.append(Entrant(
            id=me, score=points.get(me, 0.0), rank=entry.seed,
            colours=tuple("w" if g.white_id == me else "b" for g in mine),
            opponents=frozenset(g.black_id if g.white_id == me else g.white_id for g in mine),
            had_bye=bool(entry.byes)))
    return result
