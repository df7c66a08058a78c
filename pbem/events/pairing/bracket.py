"""Knockout brackets and matches: seeding, who has won a match, and the games a tied match still needs.

The rules decided here:

- The bracket is seeded the usual way (1 v 16, 8 v 9, 5 v 12, ... so that 1
  and 2 can only meet in the final); when the count is no power of two the
  top seeds get the byes.
- A match is ``games`` games (default 2) that all start at once, colours
  alternating, the higher seed White in the first.
- A tied match is decided by the event's tiebreak rule:
  ``extra`` (default): another pair of games, one with each colour, until
  a pair decides it (no armageddon: correspondence has no blitz);
  ``seed``: the higher seed goes through;
  ``lot``: a drawing of lots (a seeded random choice, so it is reproducible).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from pbem.events.tiebreaks import score_of

__all__ = ["KO_TIEBREAKS", "MatchState", "bracket_order", "first_round", "match_state"]

KO_TIEBREAKS = ("extra", "seed", "lot")


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket order for a power-of-two ``size``: [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"a bracket's size is a power of two, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [seed for top in order for seed in (top, total - top)]
    return order


def first_round(seeded: Sequence[int]) -> list[tuple[int, int | None]]:
    """The first round's matches for players in seed order; None is a bye."""
    if len(seeded) < 2:
        raise ValueError("a knockout needs at least 2 players")
    size = 1
    while size < len(seeded):
        size *= 2
    order = bracket_order(size)
    slots = [seeded[seed - 1] if seed <= len(seeded) else None for seed in order]
    return [(slots[index], slots[index + 1]) for index in range(0, size, 2)]  # type: ignore[misc]


@dataclass(frozen=True, slots=True)
class MatchState:
    """Where a match stands: a winner, or the games it still needs started (empty: wait for games)."""

    winner: int | None
    how: str = ""
    start: tuple[tuple[int, int], ...] = ()


def match_state(high: int, low: int | None, games: Sequence[tuple[int, int, str]], per_match: int,
                tiebreak: str, seed: str = "") -> MatchState:
    """The state of the match ``high`` (the higher seed) v ``low`` from its ``games`` (white, black, result).

    ``result`` is ``*`` for a game still being played; ``seed`` makes a
    drawing of lots reproducible.
    """
    if low is None:
        return MatchState(winner=high, how="bye")
    if not games:
        return MatchState(None, start=tuple((high, low) if index % 2 == 0 else (low, high)
                                            for index in range(per_match)))
    if any(result == "*" for _, _, result in games):
        return MatchState(None)
    points = {high: 0.0, low: 0.0}
    for white, black, result in games:
        white_points, black_points = score_of(result)
        points[white] += white_points
        points[black] += black_points
    if points[high] != points[low]:
        winner = high if points[high] > points[low] else low
        return MatchState(winner, how=f"{_points(points[winner])}-{_points(points[high + low - winner])}")
    score = f"{_points(points[high])}-{_points(points[low])}"
    if tiebreak == "seed":
        return MatchState(high, how=f"{score}, higher seed")
    if tiebreak == "lot":
        winner = random.Random(f"{seed}:{high}:{low}").choice((high, low))
        return MatchState(winner, how=f"{score}, by lot")
    if tiebreak != "extra":
        raise ValueError(f"unknown knockout tiebreak {tiebreak!r}; choose from {', '.join(KO_TIEBREAKS)}")
    return MatchState(None, start=((high, low), (low, high)))


def _points(value: float) -> str:
    return f"{value:g}"
