"""What the search needs of Space Chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable

from pbem.variants.space_chess.evaluation import PIECE_VALUES
from pbem.variants.space_chess.model import KING, PAWN, Move, SpaceState
from pbem.variants.space_chess.rules import _key, is_capture, play

__all__ = ["capture_values", "position_key", "successor"]


def position_key(state: SpaceState) -> Hashable:
    """Board, side, first-move rights and en passant: the digest the state's history already ends with."""
    if state.history:
        return state.history[-1]
    return _key(state.board, state.turn, state.unmoved, state.ep)


def capture_values(state: SpaceState, move: Move) -> tuple[int, int] | None:
    """(victim plus promotion gain, mover) for a capture or a promotion; None otherwise."""
    gain = 0
    if is_capture(state, move):
        victim = abs(state.board[move.landing]) or PAWN  # an empty landing square: en passant
        gain += PIECE_VALUES[victim]
    if move.promotion:
        gain += PIECE_VALUES[move.promotion] - PIECE_VALUES[PAWN]
    if not gain:
        return None
    mover = abs(state.board[move.origin])
    return gain, 1_000 if mover == KING else PIECE_VALUES[mover]


def successor(state: SpaceState, move: Move) -> SpaceState:
    return play(state, move)
