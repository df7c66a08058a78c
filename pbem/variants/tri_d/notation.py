"""Tri-d notation (spec 2.6): canonical move text, and reading a player's move line into a legal move."""

from __future__ import annotations

import re

from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem.engine.notation import castling_side, move_error, strip_decorations, typography
from pbem.variants.tri_d.explain import explain
from pbem.variants.tri_d.model import (
    BOARD,
    CASTLE_K,
    CASTLE_Q,
    EP,
    NORMAL,
    PIECE_LETTERS,
    PIECE_NAMES,
    PIN_INDEX,
    PINS,
    Move,
    TriDState,
    parse_square,
    square_name,
    type_of,
)
from pbem.variants.tri_d.rules import CASTLING_SQUARES, legal_moves

__all__ = ["describe", "parse"]

_SQ = r"[a-z]\d\(\d\)"
_BOARD = re.compile(rf"^@({_SQ})(?:-|x|:|to)?@?({_SQ})(?:[=/]?([qrbn])|\(([qrbn])\))?$")
_PIECE = re.compile(rf"^([kqrbnp])?({_SQ})([-x:]?)({_SQ})(?:[=/]?([qrbn])|\(([qrbn])\))?(e\.?p\.?)?$")
_EXAMPLES = "write e.g. 'Pb2(2)-b4(2)', 'Nb1(2)-b3(4)', 'O-O' or '@b1(1)-b1(3)'"


def describe(state: TriDState, move: Move) -> str:
    """The canonical form: ``Pb2(2)-b4(2)``, ``Pd5(6)xe6(6)ep``, ``O-O-O``, ``@b6(5)-b8(5)=Q``."""
    promotion = f"={PIECE_LETTERS[move.promo]}" if move.promo else ""
    if move.kind == BOARD:
        return f"@{PINS[move.src].name}-{PINS[move.dst].name}{promotion}"
    if move.kind == CASTLE_K:
        return "O-O"
    if move.kind == CASTLE_Q:
        return "O-O-O"
    letter = PIECE_LETTERS[type_of(state.board[move.src])].strip() or "?"
    if move.kind == EP:
        return f"{letter}{square_name(move.src)}x{square_name(move.dst)}ep"
    sep = "x" if state.board[move.dst] else "-"
    return f"{letter}{square_name(move.src)}{sep}{square_name(move.dst)}{promotion}"


def parse(state: TriDState, text: str) -> Move:
    """One move line as the legal move it names; errors say why not."""
    line = re.sub(r"\s+", "", strip_decorations(typography(text)).lower())
    if not line:
        raise move_error(InvalidMoveError, text, f"no move found; {_EXAMPLES}")
    kingside = castling_side(line)
    if kingside is not None:
        side = CASTLE_K if kingside else CASTLE_Q
        return _match(state, text, Move(side, *CASTLING_SQUARES[(state.turn, side)][:2]))
    match = _BOARD.match(line)
    if match:
        source, target, promo_a, promo_b = match.groups()
        pins = []
        for name in (source, target):
            if name not in PIN_INDEX:
                raise move_error(InvalidMoveError, text, f"{name} is not a pin position; attack boards stand on "
                             "b or e pins such as b1(1), e4(3), b8(7)")
            pins.append(PIN_INDEX[name])
        promo = _promo(promo_a or promo_b)
        return _match(state, text, Move(BOARD, pins[0], pins[1], promo), promo_given=bool(promo))
    match = _PIECE.match(line)
    if match:
        letter, source, _, target, promo_a, promo_b, ep = match.groups()
        try:
            src, dst = parse_square(source), parse_square(target)
        except ValueError as error:
            raise move_error(InvalidMoveError, text, f"{error}; files run a-f, ranks 0-9, levels 1-7") from None
        code = state.board[src]
        if letter and code and PIECE_LETTERS[type_of(code)].lower() != letter:
            raise move_error(IllegalMoveError, text, f"there is a {PIECE_NAMES[type_of(code)]} on {square_name(src)}, "
                         f"not a {PIECE_NAMES[PIECE_LETTERS.index(letter.upper())]}")
        promo = _promo(promo_a or promo_b)
        return _match(state, text, Move(EP if ep else NORMAL, src, dst, promo), promo_given=bool(promo),
                      ep_given=bool(ep))
    if line.startswith("@"):
        raise move_error(InvalidMoveError, text, "an attack-board move names two pins, e.g. '@b1(1)-b1(3)'")
    raise move_error(InvalidMoveError, text, f"not a move; squares are written file, rank and (level): {_EXAMPLES}")


def _promo(letter: str | None) -> int:
    return PIECE_LETTERS.index(letter.upper()) if letter else 0


def _match(state: TriDState, text: str, wanted: Move, *, promo_given: bool = False, ep_given: bool = False) -> Move:
    if wanted.kind in (CASTLE_K, CASTLE_Q, BOARD):
        found = [m for m in legal_moves(state) if m.kind == wanted.kind and m.src == wanted.src
                 and m.dst == wanted.dst and (not promo_given or m.promo == wanted.promo)]
    else:
        found = [m for m in legal_moves(state) if m.kind in (NORMAL, EP) and m.src == wanted.src
                 and m.dst == wanted.dst and (not promo_given or m.promo == wanted.promo)
                 and (not ep_given or m.kind == EP)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise move_error(AmbiguousMoveError, text, "say what the pawn promotes to: add =Q, =R, =B or =N")
    raise move_error(IllegalMoveError, text, explain(state, wanted))
