"""Space Chess evaluation for the search: centipawns from the side to move's point of view.

Terms (White minus Black, then signed for the side to move):

- **Material**: orthodox values (every move is an orthodox move on the piece's level, spec 3.4):
  pawn 100, knight 300, bishop 320, rook 480, queen 900.
- **Placement**: pawns gain 5 per rank advanced (promotion is on the last rank of any level, S9);
  knights and bishops 6 per step nearer the centre of their level.
- **Mobility**: 3 per square a knight, bishop, rook, queen or king reaches on its own level (empty or
  enemy; the transfers that may follow are not counted).
- **King safety**: attacks never leave their level (S13), so the danger to a king is the enemy's pieces
  on its level: a tenth of the value of every enemy knight, bishop, rook and queen there is lost, and
  each own pawn on the three squares in front of the king on its level gains 8.
- **Level changes** (the variant's own term): a piece on a star may change level on its next move
  (spec 3.4), so each own knight, bishop, rook or queen on a star gains 8, and a king on a star or
  a king symbol (it can leave a dangerous level) gains 15.
"""

from __future__ import annotations

from pbem.variants.space_chess.geometry import BISHOP_RAYS, KING_STEPS, KNIGHT_JUMPS, ROOK_RAYS, markings
from pbem.variants.space_chess.model import BISHOP, KING, KNIGHT, PAWN, ROOK, WHITE, SpaceState

__all__ = ["PIECE_VALUES", "evaluate", "level_changes"]

PIECE_VALUES = (0, 100, 300, 320, 480, 900, 0)  # indexed by piece type; the king is not material
_MOBILITY = 3
_SHIELD = 8
_ON_STAR = 8
_KING_EXIT = 15


def _centre(square: int) -> int:
    rank, file = (square & 63) >> 3, square & 7
    return 3 - max(abs(2 * file - 7), abs(2 * rank - 7)) // 2


def _reach(board: tuple[int, ...], square: int, kind: int, colour: int) -> int:
    count = 0
    if kind in (KNIGHT, KING):
        for target in (KNIGHT_JUMPS if kind == KNIGHT else KING_STEPS)[square]:
            if board[target] * colour <= 0:
                count += 1
        return count
    rays = ROOK_RAYS[square] if kind == ROOK else BISHOP_RAYS[square] if kind == BISHOP else (
        ROOK_RAYS[square] + BISHOP_RAYS[square])
    for ray in rays:
        for target in ray:
            piece = board[target] * colour
            if piece <= 0:
                count += 1
            if piece:
                break
    return count


def _side(state: SpaceState, colour: int, pieces: list[tuple[int, int]], star: tuple[bool, ...],
          symbol: tuple[bool, ...]) -> int:
    board = state.board
    score = 0
    king = board.index(colour * KING)
    for square, piece in pieces:
        if piece * colour <= 0:
            if piece != -colour * KING and abs(piece) != PAWN and square >> 6 == king >> 6:
                score -= PIECE_VALUES[abs(piece)] // 10  # an enemy piece on the own king's level
            continue
        kind = abs(piece)
        score += PIECE_VALUES[kind]
        if kind == PAWN:
            rank = (square & 63) >> 3
            score += 5 * (rank - 1 if colour == WHITE else 6 - rank)
            continue
        score += _MOBILITY * _reach(board, square, kind, colour)
        if kind in (KNIGHT, BISHOP):
            score += 6 * _centre(square)
    score += level_changes(pieces, colour, star, symbol)
    ahead = 8 * colour
    for df in (-1, 0, 1):
        target = king + ahead + df
        if 0 <= target < 192 and target >> 6 == king >> 6 and abs((target & 7) - (king & 7)) <= 1 \
                and board[target] == colour * PAWN:
            score += _SHIELD
    return score


def level_changes(pieces: list[tuple[int, int]], colour: int, star: tuple[bool, ...],
                  symbol: tuple[bool, ...]) -> int:
    """Own pieces (not pawns) on stars, and the own king on a star or a king symbol."""
    score = 0
    for square, piece in pieces:
        kind = piece * colour
        if kind == KING:
            score += _KING_EXIT if star[square] or symbol[square] else 0
        elif kind > PAWN and star[square]:
            score += _ON_STAR
    return score


def evaluate(state: SpaceState) -> int:
    """The position's score for the side to move, in centipawns."""
    marks = markings(state.options)
    pieces = [(square, piece) for square, piece in enumerate(state.board) if piece]
    score = (_side(state, WHITE, pieces, marks.star, marks.king_symbol)
             - _side(state, -WHITE, pieces, marks.star, marks.king_symbol))
    return score if state.turn == WHITE else -score

