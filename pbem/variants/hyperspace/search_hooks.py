"""What the search needs of Hyperspace Chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable

import chess

from pbem.engine.secret import Secret
from pbem.variants.hyperspace.evaluation import PIECE_VALUES
from pbem.variants.hyperspace.model import Action, BoardMove, HyperspaceState, PhaseOut
from pbem.variants.hyperspace.rules import _parsed, play

__all__ = ["capture_values", "position_key", "successor"]


def position_key(state: HyperspaceState) -> Hashable:
    """Board, side, castling and en passant (the FEN without its clocks; the state keeps en passant only
    when it can be taken) and the pool: public parts with the return turn counted from now, and the
    square where the state holds one (in a seat's view: only that seat's own)."""
    fen = state.fen
    board_part = fen.rsplit(" ", 2)[0]
    if not state.pool:
        return board_part
    turn = int(fen.rsplit(" ", 1)[1])
    return (board_part, tuple(
        (entry.seat.value, entry.piece, entry.from_square, entry.returns - turn,
         None if entry.square is None else entry.square.reveal())
        for entry in state.pool))


def capture_values(state: HyperspaceState, action: Action) -> tuple[int, int] | None:
    """(victim plus promotion gain, mover) for a capture or a promotion; None otherwise (phase-outs too)."""
    if not isinstance(action, BoardMove):
        return None
    move = action.move
    board = _parsed(state.fen)
    gain = 0
    if board.is_capture(move):
        victim = board.piece_type_at(move.to_square) or chess.PAWN  # nothing there: en passant
        gain += PIECE_VALUES[victim]
    if move.promotion:
        gain += PIECE_VALUES[move.promotion] - PIECE_VALUES[chess.PAWN]
    if not gain:
        return None
    mover = board.piece_type_at(move.from_square) or chess.PAWN
    return gain, PIECE_VALUES[mover] or 1_000


def successor(state: HyperspaceState, action: Action) -> HyperspaceState:
    """The state after a legal action. A phase-out without a return square is searched as if it came back
    where it left (a square of its own colour, always valid): the searcher's working guess for any
    phase-out inside the tree; the computer's real choice is made at the root (returns.py)."""
    if isinstance(action, PhaseOut) and action.secret is None:
        action = PhaseOut(action.piece, action.from_square, action.delay, Secret(action.from_square),
                          action.nonce, action.keep)
    return play(state, action)[0]
