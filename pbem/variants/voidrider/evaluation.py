"""Voidrider Chess evaluation for the search: centipawns from the side to move's point of view.

Terms (White minus Black, then signed for the side to move):

- **Material**: chess values for the chess pieces, which move as in chess on the spaces (spec 5.3; no
  queen): pawn 100, knight 300 (it alone leaps void, W5), bishop 300, rook 450 (void cuts its lines);
  the Voidrider 400: it steps like a king and rides across any straight line of void to the first
  space, capturing there (W5, W11), and carries its space any distance (W1), so it gains as the board
  opens; a pawn promotes to it (W6).
- **Placement**: pawns gain 8 per rank advanced (promotion, W6, is the way to a second Voidrider).
- **Mobility**: 3 per cell a knight, bishop, rook, Voidrider or king can move to (a space, empty or
  enemy); space moves are not counted.
- **King safety**: 2 per empty space on the king's eight lines before a piece or void (lanes for enemy
  rooks and bishops, when the enemy has any) and 6 per line that reaches a space across void (a lane
  for an enemy Voidrider, when the enemy has one).
- **Void structure** (the variant's own term): 10 off for a pawn with void straight ahead (it must carry
  its space forward before it can advance), 20 off for a bishop, rook or king standing on a space that
  shares no side with another space (stranded: it can neither slide off nor carry its space on, W2).
"""

from __future__ import annotations

from pbem.engine.base import Seat
from pbem.variants.voidrider.geometry import (
    ALL_RAYS,
    DIAGONAL_RAYS,
    KING_STEPS,
    KNIGHT_LEAPS,
    NORTH,
    ORTHOGONAL_RAYS,
    ORTHOGONAL_STEPS,
    SIDE_NEIGHBOURS,
    SOUTH,
    rank_of,
)
from pbem.variants.voidrider.model import EMPTY, VOID, VoidriderState

__all__ = ["PIECE_VALUES", "evaluate", "void_structure"]

PIECE_VALUES = {"P": 100, "N": 300, "B": 300, "R": 450, "V": 400, "K": 0}
_MOBILITY = 3
_SLIDER_LANE = 2
_RIDER_LANE = 6
_PAWN_BEFORE_VOID = 10
_STRANDED = 20


def _reach(board: str, square: int, kind: str, white: bool) -> int:
    own = str.isupper if white else str.islower
    count = 0
    if kind in "NK":
        for target in (KNIGHT_LEAPS if kind == "N" else KING_STEPS)[square]:
            cell = board[target]
            if cell != VOID and (cell == EMPTY or not own(cell)):
                count += 1
        return count
    if kind == "V":
        for ray in ALL_RAYS[square]:
            for target in ray:
                cell = board[target]
                if cell == VOID:
                    continue
                if cell == EMPTY or not own(cell):
                    count += 1
                break
        return count
    for ray in (ORTHOGONAL_RAYS if kind == "R" else DIAGONAL_RAYS)[square]:
        for target in ray:
            cell = board[target]
            if cell == EMPTY:
                count += 1
                continue
            if cell != VOID and not own(cell):
                count += 1
            break
    return count


def _lanes(board: str, king: int) -> tuple[int, int]:
    """Empty spaces on the king's lines before a piece or void, and lines reaching a space across void."""
    open_cells = rider_lines = 0
    for ray in ALL_RAYS[king]:
        crossed = False
        for target in ray:
            cell = board[target]
            if cell == VOID:
                crossed = True
                continue
            if crossed:
                rider_lines += 1
                break
            if cell != EMPTY:
                break
            open_cells += 1
    return open_cells, rider_lines


def _side(board: str, white: bool, enemy: set[str]) -> int:
    own = str.isupper if white else str.islower
    score = 0
    for square, cell in enumerate(board):
        if cell in (VOID, EMPTY) or not own(cell):
            continue
        kind = cell.upper()
        score += PIECE_VALUES[kind]
        if kind == "P":
            rank = rank_of(square)
            score += 8 * (rank - 2 if white else 6 - rank)
            continue
        score += _MOBILITY * _reach(board, square, kind, white)
        if kind == "K":
            open_cells, rider_lines = _lanes(board, square)
            if enemy & {"R", "B"}:
                score -= _SLIDER_LANE * open_cells
            if "V" in enemy:
                score -= _RIDER_LANE * rider_lines
    return score + void_structure(board, white)


def void_structure(board: str, white: bool) -> int:
    """Pawns with void straight ahead and stranded bishops, rooks and kings of one side (never positive)."""
    own = str.isupper if white else str.islower
    forward = NORTH if white else SOUTH
    score = 0
    for square, cell in enumerate(board):
        if cell in (VOID, EMPTY) or not own(cell):
            continue
        kind = cell.upper()
        if kind == "P":
            ahead = ORTHOGONAL_STEPS[square][forward]
            if ahead >= 0 and board[ahead] == VOID:
                score -= _PAWN_BEFORE_VOID
        elif kind in "BRK" and all(board[c] == VOID for c in SIDE_NEIGHBOURS[square]):
            score -= _STRANDED
    return score


def evaluate(state: VoidriderState) -> int:
    """The position's score for the side to move, in centipawns."""
    board = state.board
    white_kinds = {c for c in board if c.isupper()}
    black_kinds = {c.upper() for c in board if c.islower()}
    score = _side(board, True, black_kinds) - _side(board, False, white_kinds)
    return score if state.turn is Seat.WHITE else -score
