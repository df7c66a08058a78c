"""Precomputed move tables for the three levels: every orthodox move stays on its own level."""

from __future__ import annotations

from functools import cache

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

_KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_KING = ((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1))
_ROOK = ((1, 0), (0, 1), (-1, 0), (0, -1))
_BISHOP = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def _on_level(index: int, df: int, dr: int) -> int | None:
    """The square ``df`` files and ``dr`` ranks away on the same level, or None off the board."""
    level, rest = divmod(index, 64)
    rank, file = divmod(rest, 8)
    file, rank = file + df, rank + dr
    if 0 <= file < 8 and 0 <= rank < 8:
        return level * 64 + rank * 8 + file
    return None


def _steps(deltas: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], ...]:
    table = []
    for index in SQUARES:
        table.append(tuple(t for df, dr in deltas if (t := _on_level(index, df, dr)) is not None))
    return tuple(table)


def _rays(deltas: tuple[tuple[int, int], ...]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    table = []
    for index in SQUARES:
        rays = []
        for df, dr in deltas:
            ray, step = [], 1
            while (t := _on_level(index, df * step, dr * step)) is not None:
                ray.append(t)
                step += 1
            if ray:
                rays.append(tuple(ray))
        table.append(tuple(rays))
    return tuple(table)


KNIGHT_JUMPS = _steps(_KNIGHT)
KING_STEPS = _steps(_KING)
ROOK_RAYS = _rays(_ROOK)
BISHOP_RAYS = _rays(_BISHOP)
#: PAWN_CAPTURES[colour][sq]: squares a pawn of that colour on sq attacks (colour index 0 White, 1 Black).
PAWN_CAPTURES = (_steps(((-1, 1), (1, 1))), _steps(((-1, -1), (1, -1))))
#: PAWN_ATTACKERS[colour][sq]: squares from which a pawn of that colour attacks sq.
PAWN_ATTACKERS = (_steps(((-1, -1), (1, -1))), _steps(((-1, 1), (1, 1))))


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
