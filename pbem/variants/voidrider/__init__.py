"""Voidrider Chess (Duniho): chess without queens on 43 movable spaces, with the void-riding Voidrider."""

from pbem.variants.voidrider.engine import VoidriderChess
from pbem.variants.voidrider.model import Move, VoidriderState

VARIANT = VoidriderChess

__all__ = ["VARIANT", "Move", "VoidriderChess", "VoidriderState"]
