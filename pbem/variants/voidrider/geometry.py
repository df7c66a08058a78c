"""The fixed 7x9 play area: cell numbering, square names and precomputed step, ray and leap tables."""

from __future__ import annotations

from pbem.engine.geometry import DIAGONAL, KING, KNIGHT, ORTHOGONAL, Grid, Table, leaps, rays

__all__ = [
    "ALL_RAYS",
    "BLACK_PAWN_ATTACKERS",
    "CELLS",
    "DIAGONAL_RAYS",
    "EAST",
    "FILES",
    "HEIGHT",
    "KING_STEPS",
    "KNIGHT_LEAPS",
    "NORTH",
    "ORTHOGONAL_RAYS",
    "ORTHOGONAL_STEPS",
    "SIDE_NEIGHBOURS",
    "SOUTH",
    "SQUARE_NAMES",
    "WEST",
    "WHITE_PAWN_ATTACKERS",
    "WIDTH",
    "cell",
    "file_of",
    "is_dark",
    "parse_square",
    "rank_of",
]

# The area is the only fixed geometry: which of its cells are spaces lives in the state.
FILES = "abcdefg"
WIDTH = 7
HEIGHT = 9
CELLS = WIDTH * HEIGHT

#: Orthogonal directions by index (file step, rank step); diagonals follow them in ALL_RAYS.
EAST, WEST, NORTH, SOUTH = 0, 1, 2, 3
GRID = Grid((WIDTH, HEIGHT))


def cell(file: int, rank: int) -> int:
    """The cell index of 0-based ``file`` and ``rank``: a1 = 0, b1 = 1, ..., g9 = 62."""
    return rank * WIDTH + file


def file_of(index: int) -> int:
    return index % WIDTH


def rank_of(index: int) -> int:
    return index // WIDTH


def is_dark(index: int) -> bool:
    """The shade of a cell of the 7x9 area, a1 dark as on a chessboard."""
    return (file_of(index) + rank_of(index)) % 2 == 0


SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[file_of(i)]}{rank_of(i) + 1}" for i in range(CELLS))
_BY_NAME = {name: index for index, name in enumerate(SQUARE_NAMES)}


def parse_square(name: str) -> int:
    """The cell of a square name such as ``e4``; ValueError outside a1-g9."""
    try:
        return _BY_NAME[name.strip().lower()]
    except KeyError:
        raise ValueError(f"not a square of the 7x9 area (a1 to g9): {name!r}") from None


#: Per cell, the cells along each direction out to the edge of the area (empty tuples kept in place).
ORTHOGONAL_RAYS: tuple[Table, ...] = rays(GRID, ORTHOGONAL, keep_empty=True)
DIAGONAL_RAYS: tuple[Table, ...] = rays(GRID, DIAGONAL, keep_empty=True)
ALL_RAYS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    ORTHOGONAL_RAYS[i] + DIAGONAL_RAYS[i] for i in range(CELLS))

#: Per cell and orthogonal direction index, the neighbouring cell or -1 at the edge.
ORTHOGONAL_STEPS: tuple[tuple[int, ...], ...] = tuple(
    tuple(ray[0] if ray else -1 for ray in ORTHOGONAL_RAYS[i]) for i in range(CELLS))
#: Per cell, the cells sharing a side with it (the adjacency test of a space move).
SIDE_NEIGHBOURS: Table = leaps(GRID, ORTHOGONAL)
KING_STEPS: Table = leaps(GRID, KING)
KNIGHT_LEAPS: Table = leaps(GRID, KNIGHT)
#: Per cell, where a white (black) pawn would have to stand to attack it.
WHITE_PAWN_ATTACKERS: Table = leaps(GRID, ((-1, -1), (1, -1)))
BLACK_PAWN_ATTACKERS: Table = leaps(GRID, ((-1, 1), (1, 1)))
