"""What the search needs of tri-d chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable

from pbem.variants.tri_d.evaluation import PIECE_VALUES
from pbem.variants.tri_d.model import BLACK_BIT, BOARD, EP, KING, NORMAL, PAWN, Move, TriDState
from pbem.variants.tri_d.rules import play
from pbem.variants.tri_d.rules import position_key as repetition_key

__all__ = ["capture_values", "position_key", "successor"]


def position_key(state: TriDState) -> Hashable:
    """Pieces with their flags, attack boards and owners, side, en passant: the state's last history key."""
    return state.history[-1] if state.history else repetition_key(state)


def capture_values(state: TriDState, move: Move) -> tuple[int, int] | None:
    """(victim plus promotion gain, mover) for a capture or a promotion (an attack board's too); else None."""
    gain = 0
    board = state.board
    if move.kind == EP:
        gain += PIECE_VALUES[PAWN]
    elif move.kind == NORMAL:
        victim = board[move.dst]
        if victim and (victim & BLACK_BIT) != (board[move.src] & BLACK_BIT):
            gain += PIECE_VALUES[victim & 7]
    if move.promo:
        gain += PIECE_VALUES[move.promo] - PIECE_VALUES[PAWN]
    if not gain:
        return None
    mover = PAWN if move.kind == BOARD else board[move.src] & 7
    return gain, 1_000 if mover == KING else PIECE_VALUES[mover]


def successor(state: TriDState, move: Move) -> TriDState:
    return play(state, move)
