"""Why a move is not legal, in words for the player who sent it."""

from __future__ import annotations

from pbem.engine.base import Seat
from pbem.variants.voidrider.geometry import SQUARE_NAMES, cell, file_of, rank_of
from pbem.variants.voidrider.model import EMPTY, PIECE_NAMES, VOID, Move, VoidriderState
from pbem.variants.voidrider.rules import (
    CASTLING,
    attacked,
    in_check,
    pseudo_legal_moves,
    supported,
)

__all__ = ["castling_error", "move_error", "piece_name"]


def piece_name(piece: str) -> str:
    return PIECE_NAMES[piece.upper()]


def _owner(piece: str) -> Seat:
    return Seat.WHITE if piece.isupper() else Seat.BLACK


def _between(frm: int, to: int) -> list[int]:
    """The cells strictly between two cells on one line (empty if they are not on a line)."""
    df, dr = file_of(to) - file_of(frm), rank_of(to) - rank_of(frm)
    if df and dr and abs(df) != abs(dr):
        return []
    steps = max(abs(df), abs(dr))
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    return [cell(file_of(frm) + sf * i, rank_of(frm) + sr * i) for i in range(1, steps)]


def move_error(state: VoidriderState, move: Move) -> str:
    """A reason why ``move`` is not a legal move of the side to move."""
    board = state.board
    frm, to = move.from_cell, move.to_cell
    origin, target = SQUARE_NAMES[frm], SQUARE_NAMES[to]
    piece = board[frm]
    if piece == VOID:
        return f"{origin} is void: there is no space there, so no piece"
    if piece == EMPTY:
        return f"there is no piece on {origin}"
    name = piece_name(piece)
    if _owner(piece) is not state.turn:
        return f"the {name} on {origin} is {_owner(piece).value.capitalize()}'s, not yours"
    if frm == to:
        return "a move must go somewhere"
    kind = piece.upper()
    if move.promotion is not None and kind != "P":
        return f"only a pawn promotes, and the piece on {origin} is a {name}"
    if kind == "K" and not move.space and rank_of(frm) == rank_of(to) and abs(to - frm) == 2:
        return castling_error(state, kingside=to > frm)
    if move in pseudo_legal_moves(state):
        if in_check(state):
            return "your king is in check and this move does not get it out of check"
        if move.space:
            return "it would leave your king in check (the moved space changes the lines, ruling W8)"
        return "it would leave your king in check"
    if (move.promotion is None and kind == "P" and rank_of(to) == (8 if piece == "P" else 0)
            and any(m.from_cell == frm and m.to_cell == to for m in pseudo_legal_moves(state))):
        return "a pawn reaching the last rank must promote: add =V, =R, =B or =N"
    occupant = board[to]
    if occupant == VOID:
        return _space_move_error(state, move, kind)
    if move.space:
        return f"'~' marks a space move, which ends on void, but {target} is a space"
    if occupant != EMPTY and _owner(occupant) is state.turn:
        return f"your own {piece_name(occupant)} stands on {target}"
    df, dr = file_of(to) - file_of(frm), rank_of(to) - rank_of(frm)
    if kind == "P":
        forward = 1 if piece == "P" else -1
        if dr == forward and df == 0:
            return "a pawn captures only diagonally forward"
        if dr == forward and abs(df) == 1:
            return "a pawn moves diagonally only to capture (there is no en passant in Voidrider Chess)"
        return "a pawn steps one cell forward, or captures one cell diagonally forward (no double step)"
    between = _between(frm, to)
    if kind in "RB" and between and ((kind == "R") == (df == 0 or dr == 0)):
        gap = [c for c in between if board[c] == VOID]
        if gap:
            return (f"{SQUARE_NAMES[gap[0]]} is void, and void blocks a {name} "
                    "(only knights and Voidriders cross it)")
        busy = [c for c in between if board[c] != EMPTY]
        if busy:
            return f"{SQUARE_NAMES[busy[0]]} is in the way"
    if kind == "V" and between:
        spaces = [c for c in between if board[c] != VOID]
        if spaces:
            return (f"a Voidrider stops at the first space in a line, and {SQUARE_NAMES[spaces[0]]} "
                    "comes first; it rides only across void")
    if kind == "K" and max(abs(df), abs(dr)) > 1:
        return "a king steps one cell"
    return f"the {name} on {origin} cannot go to {target}"


def _space_move_error(state: VoidriderState, move: Move, kind: str) -> str:
    board = state.board
    frm, to = move.from_cell, move.to_cell
    target = SQUARE_NAMES[to]
    df, dr = file_of(to) - file_of(frm), rank_of(to) - rank_of(frm)
    if df and dr:
        return f"{target} is void; a piece carries its space only orthogonally, never diagonally"
    if kind == "P" and dr == (-1 if board[frm] == "P" else 1):
        return "a pawn never moves its space backward"
    distance = abs(df) + abs(dr)
    if kind != "V" and distance > 1:
        return (f"{target} is void; a {piece_name(board[frm])} carries its space one cell only "
                "(a Voidrider may carry its space further along a line of void)")
    spaces = [c for c in _between(frm, to) if board[c] != VOID]
    if spaces:
        return (f"a Voidrider carries its space only along an unbroken line of void, "
                f"and {SQUARE_NAMES[spaces[0]]} is a space")
    if not supported(board, to, frm):
        return (f"{target} would not share a side with any other space "
                "(the cell you leave does not count, ruling W2)")
    return f"the {piece_name(board[frm])} on {SQUARE_NAMES[frm]} cannot move its space to {target}"


def castling_error(state: VoidriderState, *, kingside: bool) -> str:
    white = state.turn is Seat.WHITE
    letter = ("G" if kingside else "A") if white else ("g" if kingside else "a")
    side = "toward the g-file rook (O-O)" if kingside else "toward the a-file rook (O-O-O)"
    home, rook_home, target, passed = CASTLING[letter]
    if letter not in state.castling:
        return (f"you can no longer castle {side}: the king or that rook has moved "
                "(a space move counts, ruling W7) or the rook was captured")
    if in_check(state):
        return "you cannot castle out of check"
    step = 1 if rook_home > home else -1
    cells = list(range(home + step, rook_home, step))
    gaps = [SQUARE_NAMES[c] for c in cells if state.board[c] == VOID]
    if gaps:
        return f"every cell between king and rook must be a space to castle, and {gaps[0]} is void"
    busy = [SQUARE_NAMES[c] for c in cells if state.board[c] != EMPTY]
    if busy:
        return f"the cells between king and rook must be empty to castle, and {busy[0]} is not"
    if any(attacked(state.board, c, not white) for c in (passed, target)):
        return "your king would pass through or land on an attacked cell"
    return "your king would be in check"
