"""Scores and tiebreaks (wins, Sonneborn-Berger, Buchholz, median Buchholz, head-to-head) and the ranking.

Pure: takes finished games and byes, returns ranked rows. The rules decided here:

- A game scores 1, ½ or 0 by its result, however it ended (moves, resignation,
  loss on time, adjudication, forfeit after a withdrawal).
- A bye scores 1 point. It counts as no win (``wins`` counts games won), adds
  nothing to Sonneborn-Berger, and adds the player's own score to Buchholz (a
  virtual opponent as strong as the player, so the lowest-ranked player, who
  gets the bye, is not punished twice).
- ``median`` is Buchholz less the highest and the lowest contribution (with
  at least three contributions; otherwise it equals Buchholz).
- ``h2h`` is the score a player made against the others still tied with them
  (on points and every tiebreak before it), so it is computed per tied group.
- Players tied on everything share the rank; they are listed by start number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial

__all__ = ["ALIASES", "TIEBREAKS", "Outcome", "Row", "normalise", "rank", "score_of"]

TIEBREAKS = ("wins", "sb", "buchholz", "median", "h2h")
ALIASES = {
    "baumbach": "wins", "win": "wins", "sonneborn-berger": "sb", "sonneborn": "sb", "bh": "buchholz",
    "median-buchholz": "median", "head-to-head": "h2h", "direct": "h2h",
}
#: Column headings of the standings table.
LABELS = {"wins": "Wins", "sb": "SB", "buchholz": "Buch", "median": "Med", "h2h": "H2H"}

_POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def normalise(names: Iterable[str]) -> tuple[str, ...]:
    """Tiebreak names as given by an organiser, checked and in their canonical spelling."""
    found: list[str] = []
    for raw in names:
        for part in raw.split(","):
            name = ALIASES.get(part.strip().lower(), part.strip().lower())
            if not name:
                continue
            if name not in TIEBREAKS:
                raise ValueError(f"unknown tiebreak {part.strip()!r}; choose from {', '.join(TIEBREAKS)}")
            if name not in found:
                found.append(name)
    return tuple(found)


def score_of(result: str) -> tuple[float, float]:
    """White's and Black's points for a finished game's ``result``."""
    try:
        return _POINTS[result]
    except KeyError:
        raise ValueError(f"not a finished game's result: {result!r}") from None


@dataclass(frozen=True, slots=True)
class Outcome:
    """One finished game of the event: who had which colour and the result."""

    white: int
    black: int
    result: str


@dataclass
class Row:
    """One player's line of the standings."""

    player: int
    points: float = 0.0
    games: int = 0
    wins: int = 0
    byes: int = 0
    values: dict[str, float] = field(default_factory=dict)
    rank: int = 0
    shared: bool = False


def _contributions(player: int, games: Sequence[Outcome], byes: int, points: dict[int, float]) -> list[float]:
    values = [points[g.black if g.white == player else g.white] for g in games if player in (g.white, g.black)]
    return values + [points[player]] * byes


def _tiebreak(name: str, row: Row, games: Sequence[Outcome], points: dict[int, float]) -> float:
    mine = [g for g in games if row.player in (g.white, g.black)]
    if name == "wins":
        return float(row.wins)
    if name == "sb":
        total = 0.0
        for game in mine:
            white, black = score_of(game.result)
            own, opponent = (white, game.black) if game.white == row.player else (black, game.white)
            total += own * points[opponent]
        return total
    contributions = _contributions(row.player, mine, row.byes, points)
    if name == "buchholz":
        return sum(contributions)
    if name == "median":
        if len(contributions) < 3:
            return sum(contributions)
        return sum(contributions) - max(contributions) - min(contributions)
    raise ValueError(f"unknown tiebreak {name!r}")


def _head_to_head(group: list[Row], games: Sequence[Outcome]) -> dict[int, float]:
    members = {row.player for row in group}
    scored = dict.fromkeys(members, 0.0)
    for game in games:
        if game.white in members and game.black in members:
            white, black = score_of(game.result)
            scored[game.white] += white
            scored[game.black] += black
    return scored


def rank(players: Sequence[int], games: Sequence[Outcome], byes: dict[int, int] | None = None,
         tiebreaks: Sequence[str] = ()) -> list[Row]:
    """The standings: ``players`` (in start order) ranked on points, then each tiebreak in turn."""
    byes = byes or {}
    rows = {player: Row(player=player, byes=byes.get(player, 0), points=float(byes.get(player, 0)))
            for player in players}
    counted = [g for g in games if g.white in rows and g.black in rows]
    for game in counted:
        white, black = score_of(game.result)
        for player, share in ((game.white, white), (game.black, black)):
            row = rows[player]
            row.points += share
            row.games += 1
            row.wins += share == 1.0
    # Every player's total: the tiebreaks weigh each opponent by theirs.
    points = {player: row.points for player, row in rows.items()}
    for row in rows.values():
        for name in tiebreaks:
            if name != "h2h":
                row.values[name] = _tiebreak(name, row, counted, points)
    order = {player: index for index, player in enumerate(players)}
    groups = _split([list(rows.values())], lambda row: row.points)
    for name in tiebreaks:
        if name == "h2h":
            for group in groups:
                scored = _head_to_head(group, counted)
                for row in group:
                    row.values["h2h"] = scored[row.player]
        groups = _split(groups, partial(_value, name))
    ranked: list[Row] = []
    for group in groups:
        place = len(ranked) + 1
        for row in sorted(group, key=lambda row: order[row.player]):
            row.rank, row.shared = place, len(group) > 1
            ranked.append(row)
    return ranked


def _value(name: str, row: Row) -> float:
    return row.values[name]


def _split(groups: list[list[Row]], key: Callable[[Row], float]) -> list[list[Row]]:
    """Each group split by ``key`` (higher first), keeping the groups' order."""
    result: list[list[Row]] = []
    for group in groups:
        values = sorted({key(row) for row in group}, reverse=True)
        result.extend([row for row in group if key(row) == value] for value in values)
    return result
