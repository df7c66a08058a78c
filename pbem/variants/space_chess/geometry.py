"""Precomputed move tables for the three levels: every orthodox move stays on its own level."""

from __future__ import annotations

from functools import cache

from pbem.engine.geometry import KNIGHT, Grid, leaps, rays
from pbem.variants.space_chess.model import KING_SYMBOLS, LEVELS, Options

__all__ = [
    "BISHOP_RAYS",
    "KING_STEPS",
    "KNIGHT_JUMPS",
    "PAWN_ATTACKERS",
    "PAWN_CAPTURES",
    "ROOK_RAYS",
    "SQUARES",
    "Markings",
    "markings",
]

SQUARES = range(LEVELS * 64)

GRID = Grid((8, 8, LEVELS))  # file, rank, level: index = level * 64 + rank * 8 + file
_KING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_ROOK = ((1, 0), (0, 1), (-1, 0), (0, -1))
_BISHOP = ((1, 1), (-1, 1), (-1, -1), (1, -1))

# Every orthodox move stays on its level: the level step of each delta is 0.
KNIGHT_JUMPS = leaps(GRID, KNIGHT)
KING_STEPS = leaps(GRID, _KING)
ROOK_RAYS = rays(GRID, _ROOK)
BISHOP_RAYS = rays(GRID, _BISHOP)
#: PAWN_CAPTURES[colour][sq]: squares a pawn of that colour on sq attacks (colour index 0 White, 1 Black).
PAWN_CAPTURES = (leaps(GRID, ((-1, 1), (1, 1))), leaps(GRID, ((-1, -1), (1, -1))))
#: PAWN_ATTACKERS[colour][sq]: squares from which a pawn of that colour attacks sq.
PAWN_ATTACKERS = (leaps(GRID, ((-1, -1), (1, -1))), leaps(GRID, ((-1, 1), (1, 1))))


class Markings:
    """Per-square flags for one option set: is it a star, is it a king symbol (any level, S2)."""

    __slots__ = ("king_symbol", "star", "star_names")

    def __init__(self, options: Options) -> None:
        stars = set(options.stars)
        self.star = tuple(index % 64 in stars for index in SQUARES)
        self.king_symbol = tuple(index % 64 in KING_SYMBOLS for index in SQUARES)
        self.star_names = tuple(f"{'abcdefgh'[s % 8]}{s // 8 + 1}" for s in sorted(stars, key=lambda s: (s // 8, s)))


@cache
def markings(options: Options) -> Markings:
    return Markings(options)
