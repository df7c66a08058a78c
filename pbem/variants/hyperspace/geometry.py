"""Hyperspace Chess geometry: the board is python-chess's; what the variant adds is square colours (H-rulings).

A phase-out bishop must come back on a square of its own colour, so the engine and the
rules ask here which colour a square is.
"""

from __future__ import annotations

import chess

__all__ = ["square_colour"]


def square_colour(square: chess.Square) -> str:
    """``light`` or ``dark``."""
    return "light" if chess.BB_SQUARES[square] & chess.BB_LIGHT_SQUARES else "dark"
