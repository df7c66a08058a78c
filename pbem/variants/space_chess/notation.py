"""Space Chess notation (spec 3.6): canonical ``Pe2(1)-e4(2)`` output, and reading what players write."""

from __future__ import annotations

import re

from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem.engine.notation import move_error, strip_annotation, strip_comment_and_number, typography
from pbem.variants.space_chess.explain import castling_error, explain
from pbem.variants.space_chess.model import (
    FILES,
    KING,
    PIECE_LETTERS,
    PIECE_NAMES,
    WHITE,
    Move,
    SpaceState,
    square_name,
)
from pbem.variants.space_chess.rules import is_capture, legal_moves

__all__ = ["describe", "is_castling", "parse"]

_SPACE = re.compile(r"\s+")

#: A level after the rank: ``(2)``, ``(b)`` or a bare letter ``b``; letters are the re-issue's A (top) .. C (bottom).
_LEVEL = r"(?:\(([123abc])\)|([abc]))?"
_SQUARE = rf"([a-h])([1-8]){_LEVEL}"
_LONG = re.compile(rf"^([kqrbnp])?{_SQUARE}([-x:])?{_SQUARE}(?:=?\(?([qrbn])\)?)?(?:e\.?p\.?)?$")
_CASTLE = re.compile(rf"^(o-o-o|0-0-0|ooo|000|o-o|0-0|oo|00){_LEVEL.replace('([abc])', '([123abc])')}$")
_LEVEL_NUMBER = {"1": 0, "2": 1, "3": 2, "c": 0, "b": 1, "a": 2}
_PROMOTION = {"q": 5, "r": 4, "b": 3, "n": 2}


def is_castling(state: SpaceState, move: Move) -> bool:
    return abs(state.board[move.origin]) == KING and abs((move.landing & 7) - (move.origin & 7)) == 2


def describe(state: SpaceState, move: Move) -> str:
    """Canonical form: piece letter always, both squares with levels, ``x`` exactly for captures."""
    if is_castling(state, move):
        text = "O-O" if move.landing & 7 == 6 else "O-O-O"
        return text if move.final == move.landing else f"{text}({move.final // 64 + 1})"
    letter = PIECE_LETTERS[abs(state.board[move.origin])]
    sep = "x" if is_capture(state, move) else "-"
    promotion = f"={PIECE_LETTERS[move.promotion]}" if move.promotion else ""
    return f"{letter}{square_name(move.origin)}{sep}{square_name(move.final)}{promotion}"


def _level(paren: str | None, bare: str | None) -> int | None:
    token = paren or bare
    return None if token is None else _LEVEL_NUMBER[token]


def parse(state: SpaceState, text: str) -> Move:
    """One move line as the legal move it names; the level may be left out where only one move fits."""
    line = _SPACE.sub("", strip_annotation(strip_comment_and_number(typography(text)).lower()))
    if not line:
        raise move_error(InvalidMoveError, text, "no move found; write e.g. 'Pe2(1)-e4(2)' or 'O-O'")
    match = _CASTLE.match(line)
    if match:
        side, paren, bare = match.groups()
        return _parse_castling(state, text, kingside=len(side.replace("-", "")) == 2,
                               level=_level(paren, bare))
    match = _LONG.match(line)
    if match is None:
        raise move_error(InvalidMoveError, text, "not a move; write piece, from-square with level, - or x, "
                     "to-square with level, e.g. 'Pe2(1)-e4(2)', 'Ng1(1)-f3(3)', 'Rc3(2)xc7(2)' or 'O-O(2)'")
    letter, file1, rank1, paren1, bare1, _sep, file2, rank2, paren2, bare2, promo = match.groups()
    from_level, to_level = _level(paren1, bare1), _level(paren2, bare2)
    promotion = None if promo is None else _PROMOTION[promo]
    from_base = (int(rank1) - 1) * 8 + FILES.index(file1)
    to_base = (int(rank2) - 1) * 8 + FILES.index(file2)
    origins = [from_base + 64 * level for level in ((from_level,) if from_level is not None else range(3))]
    board = state.board
    found = [m for m in legal_moves(state)
             if m.origin in origins and m.final & 63 == to_base
             and (to_level is None or m.final >> 6 == to_level)
             and (promotion is None or m.promotion == promotion)]
    if letter is not None:
        wanted = PIECE_LETTERS.index(letter.upper())
        kept = [m for m in found if abs(board[m.origin]) == wanted]
        if not kept:
            own = [o for o in origins if board[o] * state.turn > 0]
            if len(own) == 1 and abs(board[own[0]]) != wanted:
                raise move_error(IllegalMoveError, text, f"there is a {PIECE_NAMES[abs(board[own[0]])]} on "
                             f"{square_name(own[0])}, not a {PIECE_NAMES[wanted]}")
        found = kept
        origins = [o for o in origins if abs(board[o]) == wanted] or origins
    if len(found) == 1:
        return found[0]
    if found:
        if len({(m.origin, m.final) for m in found}) == 1:
            raise move_error(AmbiguousMoveError, text, "say what the pawn promotes to: add =Q, =R, =B or =N")
        options = sorted(describe(state, m) for m in found)
        raise move_error(AmbiguousMoveError, text, f"it could be {' or '.join(options)}; write the levels, "
                     f"e.g. {options[0]!r}")
    raise move_error(IllegalMoveError, text, _reason(state, origins, from_base, to_base, to_level, promotion))


def _reason(state: SpaceState, origins: list[int], from_base: int, to_base: int, to_level: int | None,
            promotion: int | None) -> str:
    board, us = state.board, state.turn
    name = f"{FILES[from_base & 7]}{from_base // 8 + 1}"
    own = [o for o in origins if board[o] * us > 0]
    if len(origins) == 1:
        origin = origins[0]
    elif len(own) == 1:
        origin = own[0]
    elif own:
        return f"none of your pieces on {name} ({', '.join(square_name(o) for o in own)}) can make that move"
    else:
        enemy = [o for o in origins if board[o]]
        if len(enemy) == 1:
            origin = enemy[0]  # explained as "that piece is the opponent's"
        else:
            return f"there is no piece of yours on {name} on any level"
    landing = (origin & ~63) | to_base
    return explain(state, origin, landing, to_level, promotion)


def _parse_castling(state: SpaceState, text: str, *, kingside: bool, level: int | None) -> Move:
    home = 0 if state.turn == WHITE else 2
    wanted = home if level is None else level
    if wanted not in (home, 1):
        raise move_error(IllegalMoveError, text, f"after castling king and rook are on level {home + 1} (they stay) "
                     "or on level 2 (they transfer together, ruling S6)")
    for move in legal_moves(state):
        if is_castling(state, move) and (move.landing & 7 == 6) == kingside and move.final >> 6 == wanted:
            return move
    raise move_error(IllegalMoveError, text, castling_error(state, kingside, wanted != home))

