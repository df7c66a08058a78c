"""Direction tables and table builders for leapers and riders on any rectangular grid.

A grid of shape ``(files, ranks[, levels])`` numbers its cells with the file changing
fastest: ``file + files * (rank + ranks * level)``. Every variant builds its move tables
from these: ``leaps`` for pieces that jump (knight, king, pawn captures), ``rays`` for
pieces that slide (rook, bishop, queen), each direction's cells in order out to the edge.
Directions are tuples of per-axis steps; a variant keeps its own order where generation
order matters (the order of the tuples given is the order of the table).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "DIAGONAL",
    "KING",
    "KNIGHT",
    "ORTHOGONAL",
    "Delta",
    "Grid",
    "Table",
    "leaps",
    "ray",
    "rays",
]

#: One step per axis: (file, rank) or (file, rank, level).
Delta = tuple[int, ...]
#: Per cell, a tuple of cells.
Table = tuple[tuple[int, ...], ...]

#: The knight's eight leaps, clockwise from (1, 2).
KNIGHT: tuple[Delta, ...] = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
#: The four orthogonal and four diagonal directions in the plane, and the king's eight steps.
ORTHOGONAL: tuple[Delta, ...] = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL: tuple[Delta, ...] = ((1, 1), (-1, 1), (1, -1), (-1, -1))
KING: tuple[Delta, ...] = ORTHOGONAL + DIAGONAL


@dataclass(frozen=True, slots=True)
class Grid:
    """A box of cells ``shape[0] x shape[1] x ...``, numbered with the first axis fastest."""

    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        size = 1
        for extent in self.shape:
            size *= extent
        return size

    def coords(self, index: int) -> tuple[int, ...]:
        found = []
        for extent in self.shape:
            index, rest = divmod(index, extent)
            found.append(rest)
        return tuple(found)

    def index(self, coords: Sequence[int]) -> int | None:
        """The cell at ``coords``, or None off the grid."""
        index, scale = 0, 1
        for value, extent in zip(coords, self.shape, strict=True):
            if not 0 <= value < extent:
                return None
            index += value * scale
            scale *= extent
        return index

    def step(self, index: int, delta: Delta, times: int = 1) -> int | None:
        """The cell ``times`` steps of ``delta`` (padded with zeros) from ``index``, or None off the grid."""
        coords = self.coords(index)
        padded = tuple(delta) + (0,) * (len(coords) - len(delta))
        return self.index([c + times * d for c, d in zip(coords, padded, strict=True)])


def leaps(grid: Grid, deltas: Iterable[Delta]) -> Table:
    """Per cell, the cells one leap of each delta away that are on the grid, in the order of ``deltas``."""
    deltas = tuple(deltas)
    return tuple(tuple(t for d in deltas if (t := grid.step(i, d)) is not None) for i in range(grid.size))


def ray(grid: Grid, index: int, delta: Delta) -> tuple[int, ...]:
    """The cells from ``index`` along ``delta`` out to the edge, nearest first (``index`` excluded)."""
    cells, times = [], 1
    while (target := grid.step(index, delta, times)) is not None:
        cells.append(target)
        times += 1
    return tuple(cells)


def rays(grid: Grid, directions: Iterable[Delta], *, keep_empty: bool = False) -> tuple[Table, ...]:
    """Per cell, one ray per direction (empty rays dropped unless ``keep_empty``, to index by direction)."""
    directions = tuple(directions)
    table = []
    for index in range(grid.size):
        found = (ray(grid, index, d) for d in directions)
        table.append(tuple(r for r in found if r or keep_empty))
    return tuple(table)
