"""Chessex Space Chess: three stacked 8x8 levels, with level transfers from star and king-symbol squares."""

from pbem.variants.space_chess.engine import SpaceChess
from pbem.variants.space_chess.model import Move, Options, SpaceState

VARIANT = SpaceChess

__all__ = ["VARIANT", "Move", "Options", "SpaceChess", "SpaceState"]
