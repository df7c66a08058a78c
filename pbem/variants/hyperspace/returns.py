"""Where the computer sends a piece it phases out: the best-evaluated return square in its own view."""

from __future__ import annotations

from dataclasses import replace

import chess

from pbem.engine.secret import Secret
from pbem.variants.hyperspace.evaluation import PIECE_VALUES, score_board
from pbem.variants.hyperspace.geometry import square_colour
from pbem.variants.hyperspace.model import HyperspaceState, PhaseOut
from pbem.variants.hyperspace.rules import board_of

__all__ = ["complete_phase_out", "return_square"]

#: A square held now by an enemy piece (H3: the return would be lost) or by an own piece (H2: kept-old).
_HELD = -10_000


def _square_score(board: chess.Board, square: chess.Square, piece: chess.Piece, colour: chess.Color) -> int:
    occupant = board.piece_at(square)
    if occupant is not None:
        return _HELD
    board.set_piece_at(square, piece)
    score = score_board(board)
    if colour == chess.BLACK:
        score = -score
    attackers = board.attackers(not colour, square)
    if attackers:
        value = PIECE_VALUES[piece.piece_type]
        cheapest = min(PIECE_VALUES[board.piece_type_at(s) or chess.KING] or 10_000 for s in attackers)
        if cheapest < value or not board.attackers(colour, square):
            score -= value * 8 // 10  # it would come back en prise
    board.remove_piece_at(square)
    return score


def return_square(state: HyperspaceState, action: PhaseOut) -> str:
    """The legal return square that scores best on the board as it stands, the piece already gone.

    Judged for the side to move, who is phasing the piece out; a bishop keeps its colour. The board
    will have changed by the return (two turns later at least), so this is a heuristic: an empty
    square, not attacked cheaply, where the piece counts most (placement, mobility, attacks on the king).
    Ties go to the lower square (a1 = 0), so the choice is a function of the position.
    """
    board = board_of(state)
    origin = chess.parse_square(action.from_square)
    piece = board.piece_at(origin)
    if piece is None:
        raise ValueError(f"no piece on {action.from_square} to phase out")
    colour = piece.color
    board.remove_piece_at(origin)
    best, best_score = origin, None
    for square in chess.SQUARES:
        if action.piece == "B" and square_colour(square) != square_colour(origin):
            continue
        score = _square_score(board, square, piece, colour)
        if best_score is None or score > best_score:
            best, best_score = square, score
    return chess.square_name(best)


def complete_phase_out(state: HyperspaceState, action: PhaseOut) -> PhaseOut:
    """``action`` with its secret return square chosen (unchanged if it already has one)."""
    if action.secret is not None:
        return action
    return replace(action, secret=Secret(return_square(state, action)))
