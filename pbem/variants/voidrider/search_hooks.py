"""What the search needs of Voidrider Chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable

from pbem.variants.voidrider.evaluation import PIECE_VALUES
from pbem.variants.voidrider.model import Move, VoidriderState
from pbem.variants.voidrider.model import position_key as repetition_key
from pbem.variants.voidrider.rules import is_capture, play

__all__ = ["capture_values", "position_key", "successor"]


def position_key(state: VoidriderState) -> Hashable:
    """Pieces and spaces, side to move and castling rights (W10): the state's last history key."""
    return state.history[-1] if state.history else repetition_key(state.board, state.turn, state.castling)


def capture_values(state: VoidriderState, move: Move) -> tuple[int, int] | None:
    """(victim plus promotion gain, mover) for a capture or a promotion; None otherwise."""
    gain = 0
    if is_capture(state, move):
        gain += PIECE_VALUES[state.board[move.to_cell].upper()]
    if move.promotion:
        gain += PIECE_VALUES[move.promotion] - PIECE_VALUES["P"]
    if not gain:
        return None
    mover = state.board[move.from_cell].upper()
    return gain, 1_000 if mover == "K" else PIECE_VALUES[mover]


def successor(state: VoidriderState, move: Move) -> VoidriderState:
    return play(state, move)
