"""The search's transposition table: fixed slots, depth-preferred replacement, mate scores stored per node."""

from __future__ import annotations

import enum
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

__all__ = ["MATE", "MATE_BOUND", "Bound", "Entry", "TranspositionTable", "from_table", "to_table"]

#: A mate now scores MATE; a mate ``n`` plies away scores ``MATE - n`` (its sign: who mates).
MATE = 100_000
#: Any score beyond this is a mate score.
MATE_BOUND = MATE - 1_000


class Bound(enum.IntEnum):
    """What a stored score means: the exact value, or a bound found by a cut-off."""

    EXACT = 0
    LOWER = 1  # the value is at least the score (a fail-high)
    UPPER = 2  # the value is at most the score (a fail-low)


@dataclass(frozen=True, slots=True)
class Entry:
    """One stored search result; ``depth`` is the depth searched below the position."""

    key: Hashable
    depth: int
    score: int
    bound: Bound
    action: Any
    generation: int


def to_table(score: int, ply: int) -> int:
    """A mate score counted from this node rather than from the root, so it holds at any ply."""
    if score > MATE_BOUND:
        return score + ply
    if score < -MATE_BOUND:
        return score - ply
    return score


def from_table(score: int, ply: int) -> int:
    """The inverse of ``to_table`` at the node where the entry is read."""
    if score > MATE_BOUND:
        return score - ply
    if score < -MATE_BOUND:
        return score + ply
    return score


class TranspositionTable:
    """``2**bits`` slots indexed by the key's hash; a slot holds one entry.

    Replacement: an entry of an older search (``new_search``) is always replaced; within a search a
    deeper entry is kept over a shallower one of another position, and the same position's entry is
    always refreshed. A table may be kept between the moves of a game.
    """

    def __init__(self, bits: int = 18) -> None:
        self._mask = (1 << bits) - 1
        self._slots: list[Entry | None] = [None] * (1 << bits)
        self.generation = 0
        self.stored = 0

    def new_search(self) -> None:
        """Start a new search: what is stored stays readable but gives way to anything new."""
        self.generation += 1

    def probe(self, key: Hashable) -> Entry | None:
        entry = self._slots[hash(key) & self._mask]
        return entry if entry is not None and entry.key == key else None

    def store(self, key: Hashable, depth: int, score: int, bound: Bound, action: Any) -> None:
        index = hash(key) & self._mask
        old = self._slots[index]
        if (old is not None and old.key != key and old.generation == self.generation
                and old.depth > depth):
            return
        self._slots[index] = Entry(key, depth, score, bound, action, self.generation)
        self.stored += 1
