"""Victor Rules Space Chess: Star Trek tri-dimensional chess with movable attack boards."""

from pbem.variants.tri_d.engine import TriDChess
from pbem.variants.tri_d.model import Move, Rules, TriDState

VARIANT = TriDChess

__all__ = ["VARIANT", "Move", "Rules", "TriDChess", "TriDState"]
