"""Swiss pairings: one round at a time, by maximum-weight matching (networkx) over the allowed pairs.

The rules, in order of importance:

1. no two players meet twice (a rematch is no edge of the graph at all);
2. as many boards as possible (``maxcardinality``): with an odd number of
   players exactly one bye, given to the lowest-ranked player (fewest
   points, then lowest start rank) who has had no bye yet and whose absence
   leaves the others pairable; a bye scores a win's point (see
   pbem.events.tiebreaks for what it counts in the tiebreaks);
3. players meet others of their own score group; when a group has an odd
   count, the one who floats meets the nearest group;
4. colours: two players who both need the same colour are avoided; the one
   who needs White more gets it (colour balance, then alternation);
5. within a score group the top half meets the bottom half (1 v 5, 2 v 6, ...).

Each rule's weight outweighs all the lower ones added together, so the
matching is the best pairing by these rules, found by a proven solver
rather than a hand-written search.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import networkx as nx

__all__ = ["Entrant", "Pairing", "PairingError", "pair_round"]

_SCORE = 1_000_000  # per squared half-point of score difference
_COLOUR = 1_000  # per colour clash
_BASE = 10**12  # keeps every edge weight positive


class PairingError(ValueError):
    """No pairing without a rematch exists for this round."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player as the pairing sees them."""

    id: int
    score: float
    rank: int  # start rank, 1 = strongest
    colours: tuple[str, ...] = ()  # "w" / "b" of each game played, in round order
    opponents: frozenset[int] = frozenset()
    had_bye: bool = False

    @property
    def balance(self) -> int:
        return self.colours.count("w") - self.colours.count("b")

    def preference(self) -> tuple[str, int]:
        """The colour this player should get next and how strongly (0 none, 1 mild, 2 strong, 3 absolute)."""
        balance = self.balance
        if abs(balance) >= 2 or self.colours[-2:] in (("w", "w"), ("b", "b")):
            return ("b" if balance > 0 or self.colours[-1:] == ("w",) else "w"), 3
        if balance:
            return ("b" if balance > 0 else "w"), 2
        if self.colours:
            return ("b" if self.colours[-1] == "w" else "w"), 1
        return "", 0

    def white_need(self) -> tuple[int, int]:
        """Larger means more owed White: the colour balance first, then the last colour."""
        last = {"w": -1, "b": 1}.get(self.colours[-1], 0) if self.colours else 0
        return -self.balance, last


@dataclass(frozen=True, slots=True)
class Pairing:
    """One round: boards as (white, black), and the player with the bye (if any)."""

    boards: tuple[tuple[int, int], ...]
    bye: int | None = None


def _order(entrants: Sequence[Entrant]) -> list[Entrant]:
    return sorted(entrants, key=lambda e: (-e.score, e.rank))


def _weight(a: Entrant, b: Entrant, place: dict[int, tuple[float, int, int]]) -> int:
    half_points = round(abs(a.score - b.score) * 2)
    colour_a, strength_a = a.preference()
    colour_b, strength_b = b.preference()
    clash = 0
    if colour_a and colour_a == colour_b:
        clash = 5 if min(strength_a, strength_b) == 3 else 2 if min(strength_a, strength_b) == 2 else 1
    shape = 0
    group_a, index_a, size = place[a.id]
    group_b, index_b, _ = place[b.id]
    if group_a == group_b:
        shape = abs(abs(index_a - index_b) - size // 2)
    return _BASE - half_points * half_points * _SCORE - clash * _COLOUR - shape


def _match(entrants: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
    """The best complete pairing of ``entrants``, or None when none avoids a rematch."""
    ordered = _order(entrants)
    place: dict[int, tuple[float, int, int]] = {}
    for entrant in ordered:
        group = [e for e in ordered if e.score == entrant.score]
        place[entrant.id] = (entrant.score, group.index(entrant), len(group))
    graph = nx.Graph()
    graph.add_nodes_from(e.id for e in ordered)
    by_id = {e.id: e for e in ordered}
    for index, a in enumerate(ordered):
        for b in ordered[index + 1:]:
            if b.id not in a.opponents and a.id not in b.opponents:
                graph.add_edge(a.id, b.id, weight=_weight(a, b, place))
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    if 2 * len(matching) != len(ordered):
        return None
    pairs = [(by_id[x], by_id[y]) for x, y in matching]
    rank_of = {e.id: index for index, e in enumerate(ordered)}
    return sorted(((a, b) if rank_of[a.id] < rank_of[b.id] else (b, a) for a, b in pairs),
                  key=lambda pair: rank_of[pair[0].id])


def _colours(higher: Entrant, lower: Entrant, rng: random.Random, first_round_white: bool) -> tuple[int, int]:
    """(white, black) of one board; ``higher`` is the better-placed player."""
    if not higher.colours and not lower.colours:
        return (higher.id, lower.id) if first_round_white else (lower.id, higher.id)
    need_higher, need_lower = higher.white_need(), lower.white_need()
    if need_higher > need_lower:
        return higher.id, lower.id
    if need_lower > need_higher:
        return lower.id, higher.id
    colour, _ = higher.preference()  # equal needs: the better-placed player gets their preference
    if colour:
        return (higher.id, lower.id) if colour == "w" else (lower.id, higher.id)
    return (higher.id, lower.id) if rng.random() < 0.5 else (lower.id, higher.id)


def pair_round(entrants: Sequence[Entrant], rng: random.Random | None = None) -> Pairing:
    """The next round's pairing; round one's colours are drawn by lot and alternate down the boards."""
    rng = rng or random.Random()
    players = list(entrants)
    if len(players) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    bye: Entrant | None = None
    pairs: list[tuple[Entrant, Entrant]] | None
    if len(players) % 2:
        pairs = None
        candidates = sorted((e for e in players if not e.had_bye), key=lambda e: (e.score, -e.rank))
        for candidate in candidates:
            pairs = _match([e for e in players if e.id != candidate.id])
            if pairs is not None:
                bye = candidate
                break
    else:
        pairs = _match(players)
    if pairs is None:
        raise PairingError("no pairing without a rematch (or a second bye) exists for this round")
    first_white = rng.random() < 0.5
    boards = tuple(_colours(higher, lower, rng, first_white if index % 2 == 0 else not first_white)
                   for index, (higher, lower) in enumerate(pairs))
    return Pairing(boards=boards, bye=bye.id if bye else None)
