"""Precomputed Outer Space Chess geometry: neighbour tables, rays, zones and Black Hole order."""

from __future__ import annotations

from typing import Final

from pbem.engine.geometry import KNIGHT as KNIGHT_LEAPS
from pbem.engine.geometry import Grid, Table, leaps, rays
from pbem.variants.outer_space.model import HYPER_A, HYPER_BH, HYPER_C, NAMES, ORDINARY_BLACK_HOLES, WHITE_ON_RANK_1

__all__ = [
    "BH_ORDER",
    "CLUSTER_CAPTURES",
    "CLUSTER_STEPS",
    "CLUSTER_ZONE",
    "DIAGONAL_RAYS",
    "EXIT_STEPS",
    "IS_BH",
    "KING",
    "KING_MASK",
    "KNIGHT",
    "KNIGHT_MASK",
    "ORTHOGONAL_RAYS",
    "SHIP_STEPS",
]



def _square(file: int, rank: int) -> int:
    return 5 * rank + file if 0 <= file < 5 and 0 <= rank < 8 else -1


def _coords(index: int) -> tuple[int, int]:
    return index % 5, index // 5


GRID: Final = Grid((5, 8))


def _leaps(offsets: tuple[tuple[int, ...], ...]) -> Table:
    return leaps(GRID, offsets)


def _rays(directions: tuple[tuple[int, ...], ...]) -> tuple[Table, ...]:
    return rays(GRID, directions)


def _mask(squares: tuple[int, ...]) -> int:
    bits = 0
    for square in squares:
        bits |= 1 << square
    return bits


_ORTHOGONAL: Final = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAGONAL: Final = ((1, 1), (1, -1), (-1, 1), (-1, -1))

#: IS_BH[cell] for all 43 cells; 2b included.
IS_BH: Final[tuple[bool, ...]] = tuple(i in ORDINARY_BLACK_HOLES or i == HYPER_BH for i in range(43))
#: Rank of each Black Hole in alphabetical order of its name, for the canonical ``/via`` (A17).
BH_ORDER: Final[dict[int, int]] = {bh: n for n, bh in enumerate(sorted(ORDINARY_BLACK_HOLES, key=NAMES.__getitem__))}

KNIGHT: Final = _leaps(KNIGHT_LEAPS)
KING: Final = _leaps(_ORTHOGONAL + _DIAGONAL)
KNIGHT_MASK: Final = tuple(_mask(t) for t in KNIGHT)
KING_MASK: Final = tuple(_mask(t) for t in KING)
ORTHOGONAL_RAYS: Final = _rays(_ORTHOGONAL)
DIAGONAL_RAYS: Final = _rays(_DIAGONAL)

_WHITE_FORWARD: Final = 1 if WHITE_ON_RANK_1 else -1


def _cluster(forward: int, offsets: tuple[tuple[int, int], ...]) -> Table:
    return _leaps(tuple((df, dr * forward) for df, dr in offsets))


#: Indexed [white][square]: non-capturing steps (forward, diagonally backward) and capturing
#: steps (backward, diagonally forward). The capture steps are also the Cluster's zone (spec 1.5).
CLUSTER_STEPS: Final = (_cluster(-_WHITE_FORWARD, ((0, 1), (1, -1), (-1, -1))),
                        _cluster(_WHITE_FORWARD, ((0, 1), (1, -1), (-1, -1))))
CLUSTER_CAPTURES: Final = (_cluster(-_WHITE_FORWARD, ((0, -1), (1, 1), (-1, 1))),
                           _cluster(_WHITE_FORWARD, ((0, -1), (1, 1), (-1, 1))))
CLUSTER_ZONE: Final = (tuple(_mask(t) for t in CLUSTER_CAPTURES[0]), tuple(_mask(t) for t in CLUSTER_CAPTURES[1]))


def _ship_steps() -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """Per square: (first step, second step or -1, hyperspace square a first-step entry may continue to).

    A9: a file-wise step toward file a continues to 2a, toward file e to 2c; rank-wise: none (-1).
    """
    table = []
    for index in range(40):
        file, rank = _coords(index)
        steps = []
        for df, dr in _ORTHOGONAL:
            first = _square(file + df, rank + dr)
            if first < 0:
                continue
            second = _square(file + 2 * df, rank + 2 * dr)
            steps.append((first, second, HYPER_A if df < 0 else HYPER_C if df > 0 else -1))
        table.append(tuple(steps))
    return tuple(table)


SHIP_STEPS: Final = _ship_steps()

#: Per ordinary Black Hole: the displacement paths (first, second or -1) of a Spaceship leaving 2b (A10).
EXIT_STEPS: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    bh: tuple((first, second) for first, second, _ in SHIP_STEPS[bh]) for bh in ORDINARY_BLACK_HOLES}
