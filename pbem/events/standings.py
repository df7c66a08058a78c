"""An event's standings from its stored games: which games count, byes, withdrawals, default tiebreaks."""

from __future__ import annotations

from pbem.events.store import EventData
from pbem.events.tiebreaks import Outcome, Row, rank
from pbem.store.vocabulary import EntryStatus, EventFormat, GameStatus

__all__ = ["DEFAULT_TIEBREAKS", "counted_games", "standings", "tiebreaks_of"]

#: ICCF's order for round robins; Buchholz first for Swiss, where opponents differ.
DEFAULT_TIEBREAKS: dict[EventFormat, tuple[str, ...]] = {
    EventFormat.ROUND_ROBIN: ("wins", "sb", "h2h"),
    EventFormat.DOUBLE_ROUND_ROBIN: ("wins", "sb", "h2h"),
    EventFormat.SWISS: ("buchholz", "median", "sb", "wins"),
    EventFormat.KNOCKOUT: (),
}


def tiebreaks_of(data: EventData) -> tuple[str, ...]:
    return tuple(data.event.tiebreaks) or DEFAULT_TIEBREAKS[EventFormat(data.event.format)]


def counted_games(data: EventData) -> list[Outcome]:
    """The finished games that score: none of a player whose results were annulled."""
    annulled = {p.account_id for p in data.players if p.annulled}
    return [Outcome(g.white_id, g.black_id, g.result) for g in data.games
            if g.status == GameStatus.FINISHED and g.white_id not in annulled and g.black_id not in annulled]


def standings(data: EventData) -> list[Row]:
    """The ranked rows of every entrant whose results count, in start order before ranking."""
    players = [p.account_id for p in data.players
               if p.account_id is not None and p.status != EntryStatus.INVITED and not p.annulled]
    byes = {p.account_id: len(p.byes) for p in data.players if p.account_id is not None and p.byes}
    return rank(players, counted_games(data), byes, tiebreaks_of(data))
