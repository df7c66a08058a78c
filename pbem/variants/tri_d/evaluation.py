"""Tri-d (Victor rules) evaluation for the search: centipawns from the side to move's point of view.

Terms (White minus Black, then signed for the side to move):

- **Material**: the orthodox scale, with the pieces' three-dimensional reach weighed in (spec 2.4):
  pawn 100, knight 330 (24 leaps, never blocked, across levels), bishop 330 (12 diagonal
  directions), rook 500 (6 directions, through implied positions), queen 950.
- **Placement**: pawns gain 6 per rank advanced toward their promotion ranks (8 and 9 for White).
- **Mobility**: 3 per square a knight, bishop, rook, queen or king reaches (a surface, empty or enemy;
  sliders pass implied positions, V13).
- **King safety**: 2 per surface square a queen would reach from the king's square (the lines an
  enemy slider could use), scaled by the enemy's rooks, bishops and queens (a full set: 1).
- **Attack-board control** (the variant's own term, V10/V12): an attack board a side owns is a piece
  of terrain it can move: 20 per board owned, 10 more if it can move now (empty, or one own pawn
  aboard), and 8 per own piece (not the king) standing on an attack board.
"""

from __future__ import annotations

from pbem.variants.tri_d.geometry import DIAGONAL_RAYS, ORTHOGONAL_RAYS, Geometry
from pbem.variants.tri_d.model import (
    BISHOP,
    BLACK,
    BLACK_BIT,
    KING,
    KNIGHT,
    PAWN,
    PIN_CELLS,
    QUEEN,
    ROOK,
    WHITE,
    TriDState,
    rank_of,
)
from pbem.variants.tri_d.rules import geometry

__all__ = ["PIECE_VALUES", "board_control", "evaluate"]

PIECE_VALUES = (0, 100, 330, 330, 500, 950, 0)  # indexed by piece type; the king is not material
_MOBILITY = 3
_KING_LINES = 2
_BOARD_OWNED = 20
_BOARD_MOVABLE = 10
_ON_BOARD = 8
#: The enemy slider material at which the king-safety term counts in full: two rooks, two bishops, a queen.
_FULL_SLIDERS = 2 * 500 + 2 * 330 + 950


def _reach(board: tuple[int, ...], geo: Geometry, square: int, kind: int, own_bit: int) -> int:
    count = 0
    if kind in (KNIGHT, KING):
        for target in (geo.knight if kind == KNIGHT else geo.king)[square]:
            code = board[target]
            if not code or code & BLACK_BIT != own_bit:
                count += 1
        return count
    surface = geo.surface
    rays = ORTHOGONAL_RAYS[square] if kind == ROOK else DIAGONAL_RAYS[square] if kind == BISHOP else (
        ORTHOGONAL_RAYS[square] + DIAGONAL_RAYS[square])
    for ray in rays:
        for target in ray:
            code = board[target]
            if code:
                if code & BLACK_BIT != own_bit:
                    count += 1
                break
            if surface[target]:
                count += 1
    return count


def _king_lines(board: tuple[int, ...], geo: Geometry, king: int) -> int:
    count = 0
    surface = geo.surface
    for ray in (*ORTHOGONAL_RAYS[king], *DIAGONAL_RAYS[king]):
        for target in ray:
            if board[target]:
                break
            if surface[target]:
                count += 1
    return count


def _side(state: TriDState, geo: Geometry, colour: int, sliders_against: int) -> int:
    board = state.board
    own_bit = BLACK_BIT if colour == BLACK else 0
    score = 0
    king = -1
    for square in geo.squares:
        code = board[square]
        if not code or code & BLACK_BIT != own_bit:
            continue
        kind = code & 7
        score += PIECE_VALUES[kind]
        if kind == PAWN:
            rank = rank_of(square)
            score += 6 * (rank - 1 if colour == WHITE else 8 - rank)
            continue
        if kind == KING:
            king = square
        else:
            score += _MOBILITY * _reach(board, geo, square, kind, own_bit)
            if square in geo.board_at:
                score += _ON_BOARD
    if king >= 0:
        score += _MOBILITY * _reach(board, geo, king, KING, own_bit)
        score -= _KING_LINES * _king_lines(board, geo, king) * min(sliders_against, _FULL_SLIDERS) // _FULL_SLIDERS
    return score + board_control(state, colour)


def board_control(state: TriDState, colour: int) -> int:
    """The attack boards ``colour`` owns, and whether each can move now (the pieces aboard are counted
    with the pieces)."""
    board = state.board
    own_bit = BLACK_BIT if colour == BLACK else 0
    score = 0
    for pin, owner in state.boards:
        if owner != colour:
            continue
        score += _BOARD_OWNED
        aboard = [board[c] for c in PIN_CELLS[pin] if board[c]]
        if not aboard or (len(aboard) == 1 and aboard[0] & 15 == PAWN | own_bit):
            score += _BOARD_MOVABLE
    return score


def _sliders(board: tuple[int, ...], own_bit: int) -> int:
    return sum(PIECE_VALUES[code & 7] for code in board
               if code and code & BLACK_BIT == own_bit and code & 7 in (BISHOP, ROOK, QUEEN))


def evaluate(state: TriDState) -> int:
    """The position's score for the side to move, in centipawns."""
    geo = geometry(state)
    white_sliders, black_sliders = _sliders(state.board, 0), _sliders(state.board, BLACK_BIT)
    score = _side(state, geo, WHITE, black_sliders) - _side(state, geo, BLACK, white_sliders)
    return score if state.turn == WHITE else -score
