"""Why a Hyperspace Chess move or phase-out is refused: the reasons quoted in error mails."""

from __future__ import annotations

import chess

from pbem.engine.errors import IllegalMoveError, InvalidMoveError, MoveError
from pbem.variants.hyperspace.geometry import square_colour
from pbem.variants.hyperspace.model import MAX_DELAY, MIN_DELAY, PIECE_NAMES, HyperspaceState, PhaseOut
from pbem.variants.hyperspace.rules import _taken, read_board, safe_removals, seat_of

__all__ = ["board_move_error", "phase_out_error"]


def _piece_name(piece: chess.Piece) -> str:
    return PIECE_NAMES[piece.symbol().upper()]


def phase_out_error(state: HyperspaceState, action: PhaseOut) -> MoveError | None:
    """Why ``action`` cannot be played here, or None; the secret is checked only when present."""
    if not MIN_DELAY <= action.delay <= MAX_DELAY:
        return InvalidMoveError(
            f"the delay must be {MIN_DELAY} to {MAX_DELAY} full turns, not {action.delay}")
    board = read_board(state)
    seat = seat_of(board.turn)
    square = chess.parse_square(action.from_square)
    piece = board.piece_at(square)
    if piece is None:
        return IllegalMoveError(f"there is no piece on {action.from_square}")
    if piece.color != board.turn:
        return IllegalMoveError(
            f"the {_piece_name(piece)} on {action.from_square} is {seat.other.value}'s, not yours")
    letter = piece.symbol().upper()
    if letter == "P":
        return IllegalMoveError("pawns cannot enter hyperspace (ruling H8)")
    if letter == "K":
        return IllegalMoveError("the king cannot enter hyperspace")
    if letter != action.piece:
        return IllegalMoveError(
            f"there is a {_piece_name(piece)} on {action.from_square}, not a {PIECE_NAMES[action.piece]}")
    if action.secret is not None:
        target = chess.parse_square(action.secret.reveal())
        if letter == "B" and square_colour(target) != square_colour(square):
            return InvalidMoveError(
                f"a bishop on a {square_colour(square)} square cannot return to "
                f"{square_colour(target)} square {chess.square_name(target)}")
    returns = board.fullmove_number + action.delay + 1
    clash = _taken(state.pool, seat, returns)
    if clash is not None:
        free = [d for d in range(MIN_DELAY, MAX_DELAY + 1)
                if _taken(state.pool, seat, board.fullmove_number + d + 1) is None][:3]
        return IllegalMoveError(
            f"{seat.value.capitalize()} already has a piece returning on turn {returns} ({clash.public}); "
            f"only one return per turn is allowed (ruling H7), so choose another delay "
            f"(free: {', '.join(map(str, free))}, ...)")
    if square not in safe_removals(state):
        where = f"the {_piece_name(piece)} on {action.from_square}"
        if board.is_check():
            return IllegalMoveError(f"your king is in check, and phasing out {where} does not end the check")
        return IllegalMoveError(f"your king would be in check without {where}")
    return None


def board_move_error(state: HyperspaceState, move: chess.Move) -> str:
    """A reason, for the mover, why ``move`` is not a legal board move here."""
    board = read_board(state)
    piece = board.piece_at(move.from_square)
    origin = chess.square_name(move.from_square)
    if piece is None:
        away = [e.public for e in state.pool if e.seat is seat_of(board.turn) and e.from_square == origin]
        return f"there is no piece on {origin}" + (f" (your {away[0]} is in hyperspace)" if away else "")
    if piece.color != board.turn:
        return f"the {_piece_name(piece)} on {origin} is {seat_of(piece.color).value}'s, not yours"
    if board.is_castling(move) or (piece.piece_type == chess.KING
                                   and chess.square_distance(move.from_square, move.to_square) == 2):
        return _castling_error(board, move)
    if move.promotion and piece.piece_type != chess.PAWN:
        return f"only a pawn promotes, and the piece on {origin} is a {_piece_name(piece)}"
    if not board.is_pseudo_legal(move):
        last_rank = chess.square_rank(move.to_square) in (0, 7)
        if piece.piece_type == chess.PAWN and last_rank and not move.promotion:
            return "a pawn reaching the last rank must promote: add =Q, =R, =B or =N"
        return f"the {_piece_name(piece)} on {origin} cannot go to {chess.square_name(move.to_square)}"
    if board.is_check():
        return "your king is in check and this move does not get it out of check"
    return "your king would be in check"


def _castling_error(board: chess.Board, move: chess.Move) -> str:
    kingside = chess.square_file(move.to_square) > chess.square_file(move.from_square)
    side = "kingside" if kingside else "queenside"
    rights = board.clean_castling_rights() & chess.BB_BACKRANKS & board.occupied_co[board.turn]
    wanted = chess.BB_FILE_H if kingside else chess.BB_FILE_A
    if not rights & wanted:
        return f"you have lost the right to castle {side} (king or rook has moved or phased out)"
    if board.is_check():
        return "you cannot castle out of check"
    rank = chess.square_rank(move.from_square)
    between = range(5, 7) if kingside else range(1, 4)
    if any(board.piece_at(chess.square(f, rank)) for f in between):
        return f"the squares between king and rook must be empty to castle {side}"
    return "your king would pass through or land on an attacked square"
