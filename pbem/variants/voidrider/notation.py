"""Voidrider Chess notation: canonical move text and reading a player's move line."""

from __future__ import annotations

import re

from pbem.engine.base import Seat
from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem.engine.notation import castling_side, strip_decorations, typography
from pbem.engine.notation import move_error as refuse
from pbem.variants.voidrider.explain import castling_error, move_error, piece_name
from pbem.variants.voidrider.geometry import SQUARE_NAMES, parse_square
from pbem.variants.voidrider.model import EMPTY, PIECE_NAMES, PROMOTIONS, VOID, Move, VoidriderState
from pbem.variants.voidrider.rules import castling_move, is_capture, is_castling, legal_moves

__all__ = ["describe", "parse"]

_LONG = re.compile(r"^(?:o-o-o|0-0-0|ooo|000)$")
_LONG = re.compile(r"^([a-z])?\s*([a-z]\d+)\s*([-x:~])?\s*([a-z]\d+)\s*(?:=\s*([a-z])|\(([a-z])\)|([a-z]))?$")
_EXAMPLES = "write e.g. 'Pe3-e4', 'Vb1~e1', 'Vb1xe4', 'Pc8~c9=V' or 'O-O'"


def describe(state: VoidriderState, move: Move) -> str:
    """Canonical form: piece letter, from-square, '-' / 'x' / '~', to-square, '=X' on promotion."""
    if is_castling(state, move):
        return "O-O" if move.to_cell > move.from_cell else "O-O-O"
    letter = state.board[move.from_cell].upper()
    sep = "~" if move.space else ("x" if is_capture(state, move) else "-")
    promotion = f"={move.promotion}" if move.promotion else ""
    return f"{letter}{SQUARE_NAMES[move.from_cell]}{sep}{SQUARE_NAMES[move.to_cell]}{promotion}"


def _square(text: str, name: str) -> int:
    try:
        return parse_square(name)
    except ValueError:
        raise refuse(InvalidMoveError, text, f"{name} is outside the 7x9 area (files a-g, ranks 1-9)") from None


def parse(state: VoidriderState, text: str) -> Move:
    """One move line as a legal move of the side to move, or a MoveError saying why not."""
    line = typography(strip_decorations(text)).lower()
    if not line:
        raise refuse(InvalidMoveError, text, f"no move found; {_EXAMPLES}")
    kingside = castling_side(line)
    if kingside is not None:
        move = castling_move(state, kingside)
        if move in legal_moves(state):
            return move
        raise refuse(IllegalMoveError, text, castling_error(state, kingside=kingside))
    match = _LONG.match(line)
    if match is None:
        raise refuse(InvalidMoveError, text, f"not a move; {_EXAMPLES} (the from-square is always written)")
    letter, origin, sep, target, promo_eq, promo_paren, promo_bare = match.groups()
    promo = promo_eq or promo_paren or promo_bare
    if letter is not None and letter.upper() not in PIECE_NAMES:
        hint = "there is no queen in Voidrider Chess" if letter == "q" else "pieces are K, R, B, N, P and V"
        raise refuse(InvalidMoveError, text, f"unknown piece letter {letter.upper()!r}: {hint}")
    if promo is not None and promo.upper() not in PROMOTIONS:
        raise refuse(InvalidMoveError, text, "a pawn promotes to V, R, B or N (there is no queen)")
    frm, to = _square(text, origin), _square(text, target)
    board = state.board
    piece = board[frm]
    mine = piece not in (VOID, EMPTY) and (piece.isupper() == (state.turn is Seat.WHITE))
    if mine and letter is not None and piece.upper() != letter.upper():
        raise refuse(IllegalMoveError, text, f"there is a {piece_name(piece)} on {origin}, "
                                             f"not a {PIECE_NAMES[letter.upper()]}")
    to_void = board[to] == VOID
    if mine and sep == "~" and not to_void and not (board[to] != EMPTY and board[to].isupper() == piece.isupper()):
        raise refuse(IllegalMoveError, text, f"'~' marks a space move, which ends on void, but {target} is a "
                                             f"space; write {piece.upper()}{origin}-{target} to move there")
    if mine and sep == "x" and to_void:
        raise refuse(IllegalMoveError, text, f"there is nothing to capture on {target}, it is void; a space move "
                                             f"is written {piece.upper()}{origin}~{target}")
    wanted = None if promo is None else promo.upper()
    found = [m for m in legal_moves(state) if m.from_cell == frm and m.to_cell == to]
    if wanted is not None and found:
        if all(m.promotion is None for m in found):
            raise refuse(IllegalMoveError, text, "only a pawn reaching the last rank promotes")
        found = [m for m in found if m.promotion == wanted]
    if len(found) > 1:
        raise refuse(AmbiguousMoveError, text, "say what the pawn promotes to: add =V, =R, =B or =N")
    if not found:
        # A plain '-' to void is a space move (spec 5.5), so the reason follows the target cell.
        attempt = Move(frm, to, to_void or sep == "~", wanted)
        raise refuse(IllegalMoveError, text, move_error(state, attempt))
    return found[0]
