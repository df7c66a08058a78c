"""Knockouts: seeded by rating, matches of several games, winners meet in the next round until one is left."""

from __future__ import annotations

import random
from typing import Any

from pbem.app.context import Context
from pbem.events.formats.base import by_rating
from pbem.events.games import set_round, start_games
from pbem.events.mails import announce
from pbem.events.pairing.bracket import first_round, match_state
from pbem.events.render import bracket, knockout_standings
from pbem.events.store import EventData, load
from pbem.store.event_models import Event, EventPlayer
from pbem.store.models import Game
from pbem.store.vocabulary import EventFormat, GameStatus

__all__ = ["Knockout"]

#: One match in ``Event.state["rounds"]``: {"high": id, "low": id | None, "winner": id | None, "how": str}.
Match = dict[str, Any]


class Knockout:
    """The bracket and match rules are in pbem.events.pairing.bracket.

    The bracket lives in ``Event.state``. A player who withdraws forfeits
    their unfinished games, and their opponent goes through.
    """

    key = EventFormat.KNOCKOUT
    cross_title = "Bracket"
    paced_by_rounds = True

    def order(self, data: EventData, entries: list[EventPlayer], lot: random.Random) -> list[EventPlayer]:
        return by_rating(data, entries, lot)

    def start(self, ctx: Context, event: Event, players: list[int]) -> None:
        matches = [_match(high, low) for high, low in first_round(players)]
        size = 2 * len(matches)
        event.rounds = size.bit_length() - 1
        event.state = {"rounds": [matches]}
        _open_round(ctx, event)

    def update(self, ctx: Context, data: EventData) -> None:
        _advance_matches(ctx, data)

    def round_complete(self, data: EventData) -> bool:
        return all(match["winner"] is not None for match in _current(data.event))

    def last_round(self, data: EventData) -> bool:
        return len(_current(data.event)) == 1  # the final

    def pair_next_round(self, ctx: Context, data: EventData) -> bool:
        event = data.event
        winners = [match["winner"] for match in _current(event)]
        seeds = {p.account_id: p.seed for p in data.players}
        pairs = []
        for index in range(0, len(winners), 2):  # the better seed is "high": White first, and the seed rule
            high, low = sorted(winners[index:index + 2], key=lambda account: seeds.get(account, 0))
            pairs.append(_match(high, low))
        event.state = {"rounds": [*event.state["rounds"], pairs]}
        _open_round(ctx, event)
        return True

    def winner(self, data: EventData) -> str:
        return data.handle(_current(data.event)[0]["winner"])

    def annuls_withdrawal(self, played: int, scheduled: int) -> bool:
        return False

    def withdrawn(self, ctx: Context, event: Event, player: int) -> None:
        matches = [dict(match) for match in _current(event)]
        for match in matches:
            if match["winner"] is None and player in (match["high"], match["low"]):
                match["winner"] = match["low"] if match["high"] == player else match["high"]
                match["how"] = "withdrawal"
        _replace_current(ctx, event, matches)

    def standings_table(self, data: EventData) -> str:
        return knockout_standings(data)

    def crosstable(self, data: EventData) -> str:
        return bracket(data)


def _match(high: int, low: int | None) -> Match:
    return {"high": high, "low": low, "winner": None, "how": ""}


def _current(event: Event) -> list[Match]:
    """The matches of the round being played."""
    rounds: list[list[Match]] = event.state["rounds"]
    return rounds[-1]


def _replace_current(ctx: Context, event: Event, matches: list[Match]) -> None:
    # A new dict, not an edit in place: the JSON column only notices reassignment.
    event.state = {"rounds": [*event.state["rounds"][:-1], matches]}
    ctx.session.add(event)


def _open_round(ctx: Context, event: Event) -> None:
    round_ = len(event.state["rounds"])
    set_round(ctx, event, round_)
    _advance_matches(ctx, load(ctx.session, event), announce_as=f"Round {round_} of {event.rounds}")


def _advance_matches(ctx: Context, data: EventData, announce_as: str = "") -> None:
    """Decide the current round's matches that can be decided; start the games the others need."""
    event = data.event
    round_ = len(event.state["rounds"])
    matches = [dict(match) for match in _current(event)]
    started: list[Game] = []
    bye = None
    for match in matches:
        if match["winner"] is not None:
            continue
        games = [(g.white_id, g.black_id, g.result if g.status == GameStatus.FINISHED else "*") for g in data.games
                 if g.event_round == round_ and {g.white_id, g.black_id} == {match["high"], match["low"]}]
        state = match_state(match["high"], match["low"], games, event.games_per_match,
                            event.knockout_tiebreak, seed=f"{event.id}:{round_}")
        if state.winner is not None:
            match["winner"], match["how"] = state.winner, state.how
            if state.how == "bye":
                bye = state.winner
        elif state.start:
            started += start_games(ctx, event, round_, state.start)
    _replace_current(ctx, event, matches)
    if announce_as:
        announce(ctx, event, started, bye, heading=announce_as)
    elif started:
        announce(ctx, event, started, None, heading=f"Round {round_}: the match goes on")
