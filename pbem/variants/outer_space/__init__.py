"""Outer Space Chess (Kuschinski): a 5x8 board with six Black Holes beside a three-square hyperspace."""

from pbem.variants.outer_space.engine import OuterSpaceChess
from pbem.variants.outer_space.model import (
    INITIAL_POSITION,
    PASS,
    Move,
    OuterSpaceState,
    Pass,
    format_position,
    parse_position,
)

VARIANT = OuterSpaceChess

__all__ = [
    "INITIAL_POSITION",
    "PASS",
    "VARIANT",
    "Move",
    "OuterSpaceChess",
    "OuterSpaceState",
    "Pass",
    "format_position",
    "parse_position",
]
