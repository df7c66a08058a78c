"""What the search needs of Hyperspace Chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace

import chess

from pbem.engine.secret import Secret
from pbem.variants.hyperspace.evaluation import PIECE_VALUES
from pbem.variants.hyperspace.geometry import square_colour
from pbem.variants.hyperspace.model import MAX_DELAY, MIN_DELAY, Action, BoardMove, HyperspaceState, PoolEntry
from pbem.variants.hyperspace.rules import (
    board_actions,
    due_entry,
    phase_outs,
    play,
    read_board,
    safe_removals,
    seat_of,
)

__all__ = ["capture_values", "guessed_square", "in_check", "position_key", "search_actions", "successor"]


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


def search_actions(state: HyperspaceState) -> list[Action]:
    """Board moves, and phase-outs (no square) with the shortest delay whose return turn is free: 1 as in
    the public tree, a longer one when H7 has taken it, so a side that can only phase out still can."""
    actions = board_actions(state)
    if not safe_removals(state):
        return actions
    board = read_board(state)
    seat, turn = seat_of(board.turn), board.fullmove_number
    delay = next((d for d in range(MIN_DELAY, MAX_DELAY + 1) if due_entry(state.pool, seat, turn + d + 1) is None),
                 None)
    if delay is not None:
        actions.extend(phase_outs(state, delay))
    return actions


def in_check(state: HyperspaceState) -> bool:
    """The side to move's king is attacked on the board as it stands (a pending return may still block)."""
    return read_board(state).is_check()


def capture_values(state: HyperspaceState, action: Action) -> tuple[int, int] | None:
    """(victim plus promotion gain, mover) for a capture or a promotion; None otherwise (phase-outs too)."""
    if not isinstance(action, BoardMove):
        return None
    move = action.move
    board = read_board(state)
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


def guessed_square(board: chess.Board, entry: PoolEntry) -> str:
    """Where the search lets a piece with no known square come back: the empty square nearest to the one
    it left that the other side does not attack (valid for its kind: a bishop keeps its colour), ties to
    the lower square. It is the search's guess, made only when the piece returns, so no side in the tree
    could have known it earlier."""
    origin = chess.parse_square(entry.from_square)
    owner = chess.WHITE if entry.seat.value == "white" else chess.BLACK
    attacked = 0
    for square in chess.scan_forward(board.occupied_co[not owner]):
        attacked |= board.attacks_mask(square)
    candidates = [s for s in chess.SQUARES if board.piece_at(s) is None
                  and (entry.piece != "B" or square_colour(s) == square_colour(origin))]
    if not candidates:
        return entry.from_square
    return chess.square_name(min(candidates, key=lambda s: (bool(attacked & chess.BB_SQUARES[s]),
                                                            chess.square_distance(s, origin), s)))


def successor(state: HyperspaceState, action: Action) -> HyperspaceState:
    """The state after a legal action, for the search.

    Inside the tree nobody's square is known but the searcher's own recorded ones: a phase-out is
    searched without a square (the evaluation counts the piece at 70%), and a piece that comes back
    with no square (the opponent's in a seat's view, or one phased out inside the tree) appears on
    ``guessed_square`` instead of being forfeited.
    """
    board = read_board(state)
    due = due_entry(state.pool, seat_of(board.turn), board.fullmove_number)
    if due is not None and due.square is None:
        guess = replace(due, square=Secret(guessed_square(board, due)))
        state = replace(state, pool=tuple(guess if entry is due else entry for entry in state.pool))
        state.derived.board = board  # the same board (the pool is not on it): no parsing it again
    return play(state, action)[0]
