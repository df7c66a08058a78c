"""Swiss pairings: one round at a time, by maximum-weight matching (networkx) over the allowed pairs.

The rules, in order of importance:

1. no two players meet twice (a rematch is no edge of the graph at all);
2. as many boards as possible (``maxcardinality``): with an odd number of
   players exactly one bye, given to the lowest-ranked player (fewest
   points, then lowest start rank) who has had no bye yet and whose absence
   leaves the others pairable; a bye scores a win's point (see
   pbem.events.tiebreaks for what it counts in the tiebreaks);
3. score groups are paired from the top down, as the Dutch system's score
   brackets are: first as few players as possible float out of the top
   group, then as few as possible out of the top two groups, and so on; so
   players meet their own score group, and a floater meets the nearest
   group. Two leaders who can meet therefore do, rather than both floating
   down: a plain sum of score differences would count those two floats the
   same as two floats further down;
4. colours: two players who both need the same colour are avoided; the one
   who needs White more gets it (colour balance, then alternation);
5. within a score group the top half meets the bottom half (1 v 5, 2 v 6, ...).

Each rule's weight outweighs all the lower ones added together (the units
are worked out from the number of players, see ``_Weights``), so the
matching is the best pairing by these rules, found by a proven solver
rather than a hand-written search.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Entrant", "Pairing", "PairingError", "pair_round"]


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


class _Weights:
    """The edge weights of one round's matching: rules 3 to 5 of the module's docstring, each outweighing the rest.

    A pair's cost is, from the most to the least important: the score-group
    boundaries it crosses (a boundary nearer the top costs more than all
    crossings of the boundaries below it together), then its colour clash,
    then how far it is from top half against bottom half in its group.
    """

    def __init__(self, ordered: Sequence[Entrant]) -> None:
        self._scores = sorted({e.score for e in ordered}, reverse=True)  # the score groups, top first
        self._place: dict[int, tuple[int, int]] = {}  # id -> (index in its group, size of its group)
        for score in self._scores:
            group = [e for e in ordered if e.score == score]
            for index, entrant in enumerate(group):
                self._place[entrant.id] = (index, len(group))
        players = len(ordered)
        pairs = players // 2 + 1  # more than the pairs of any matching
        self._colour = players * pairs + 1  # one clash outweighs every pair's shape cost together
        crossing = 5 * self._colour * pairs + 1  # one crossing outweighs every pair's colour and shape cost
        # The boundary under group k (top first): the nearer the top, the dearer; one crossing of a boundary
        # outweighs every crossing of the boundaries below it together.
        self._boundary: list[int] = []
        cost = crossing
        for _ in self._scores[1:]:  # one boundary fewer than groups, built from the bottom up
            self._boundary.insert(0, cost)
            cost *= pairs
        self._base = sum(self._boundary) + crossing  # more than any pair's cost: keeps every weight positive

    def __call__(self, a: Entrant, b: Entrant) -> int:
        """The weight of the edge a-b: the higher, the better the pair."""
        return self._base - self._score_cost(a, b) - self._colour_cost(a, b) * self._colour - self._shape_cost(a, b)

    def _score_cost(self, a: Entrant, b: Entrant) -> int:
        high, low = sorted((self._scores.index(a.score), self._scores.index(b.score)))
        return sum(self._boundary[high:low])  # the boundaries between groups high and low

    @staticmethod
    def _colour_cost(a: Entrant, b: Entrant) -> int:
        colour_a, strength_a = a.preference()
        colour_b, strength_b = b.preference()
        if not colour_a or colour_a != colour_b:
            return 0
        weakest = min(strength_a, strength_b)
        return 5 if weakest == 3 else 2 if weakest == 2 else 1

    def _shape_cost(self, a: Entrant, b: Entrant) -> int:
        if a.score != b.score:
            return 0
        (index_a, size), (index_b, _) = self._place[a.id], self._place[b.id]
        return abs(abs(index_a - index_b) - size // 2)


def _match(entrants: list[Entrant]) -> list[tuple[Entrant, Entrant]] | None:
    """The best complete pairing of ``entrants``, or None when none avoids a rematch."""
    # Imported here, not at the top: networkx is about 10 MB of memory that every process importing the events
    # would hold, where only a Swiss round's pairing needs it (a few times a week, in one process).
    import networkx as nx

    ordered = _order(entrants)
    weight = _Weights(ordered)
    graph = nx.Graph()
    graph.add_nodes_from(e.id for e in ordered)
    by_id = {e.id: e for e in ordered}
    for index, a in enumerate(ordered):
        for b in ordered[index + 1:]:
            if b.id not in a.opponents and a.id not in b.opponents:
                graph.add_edge(a.id, b.id, weight=weight(a, b))
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
