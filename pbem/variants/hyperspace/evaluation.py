"""Hyperspace Chess evaluation for the search: centipawns from the side to move's point of view.

Terms (White minus Black, then signed for the side to move):

- **Material**: the FIDE game's usual values (the seed plays FIDE chess): pawn 100, knight 320,
  bishop 330, rook 500, queen 900.
- **Placement**: pawns gain 6 per rank advanced (30 more on the seventh), knights and bishops 8 per
  step nearer the centre; kings (while queens are on) 10 per step nearer their own back rank corner side.
- **Mobility**: 4 per square a knight, bishop, rook or queen attacks that is not held by its own side
  (python-chess attack masks: pseudo-legal, cheap).
- **King safety**: while the opponent has a queen, 12 per own pawn on the three squares in front of the
  king, and 10 per square around the king that the opponent attacks.
- **Phase-outs** (the variant's own term): a piece in hyperspace neither attacks, defends nor blocks, and
  may not come back where its owner hopes, so it counts a part of its value for its owner: 70% with its
  return square unknown (the opponent's in a seat's view), 75% when the square is known and empty now,
  25% when it is now held by an enemy piece (H3: the returning piece would be lost) or by the own king (H2).
"""

from __future__ import annotations

import chess

from pbem.variants.hyperspace.model import HyperspaceState, PoolEntry
from pbem.variants.hyperspace.rules import read_board

__all__ = ["PIECE_VALUES", "evaluate", "pool_value", "score_board"]

PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 320, chess.BISHOP: 330, chess.ROOK: 500, chess.QUEEN: 900,
                chess.KING: 0}
_LETTER_VALUES = {"N": 320, "B": 330, "R": 500, "Q": 900}
_MOBILITY = 4
_SHIELD = 12
_KING_ZONE = 10


def _centre_distance(square: chess.Square) -> int:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return max(abs(2 * file - 7), abs(2 * rank - 7)) // 2  # 0 in the centre four, 3 on the edge


def pool_value(entry: PoolEntry, board: chess.Board) -> int:
    """What a piece in hyperspace is worth to its owner now (see the module's list of terms)."""
    value = _LETTER_VALUES[entry.piece]
    if entry.square is None:
        return value * 70 // 100
    occupant = board.piece_at(chess.parse_square(entry.square.reveal()))
    colour = chess.WHITE if entry.seat.value == "white" else chess.BLACK
    if occupant is not None and (occupant.color != colour or occupant.piece_type == chess.KING):
        return value * 25 // 100
    return value * 75 // 100


def _side_score(board: chess.Board, colour: chess.Color, enemy_attacks: int, queens_on: bool) -> int:
    score = 0
    own = board.occupied_co[colour]
    for square in chess.scan_forward(own):
        piece_type = board.piece_type_at(square)
        assert piece_type is not None
        score += PIECE_VALUES[piece_type]
        if piece_type == chess.PAWN:
            advance = chess.square_rank(square) - 1 if colour == chess.WHITE else 6 - chess.square_rank(square)
            score += 6 * advance + (30 if advance == 5 else 0)
        elif piece_type in (chess.KNIGHT, chess.BISHOP):
            score += 8 * (3 - _centre_distance(square))
        if piece_type in (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN):
            score += _MOBILITY * chess.popcount(board.attacks_mask(square) & ~own)
    king = board.king(colour)
    if king is not None and queens_on:
        home = 0 if colour == chess.WHITE else 7
        score -= 10 * abs(chess.square_rank(king) - home)
        ahead = 8 if colour == chess.WHITE else -8
        for df in (-1, 0, 1):
            target = king + ahead + df
            if 0 <= target < 64 and abs(chess.square_file(target) - chess.square_file(king)) <= 1 \
                    and board.piece_type_at(target) == chess.PAWN and board.color_at(target) == colour:
                score += _SHIELD
        score -= _KING_ZONE * chess.popcount(chess.BB_KING_ATTACKS[king] & enemy_attacks)
    return score


def _attacks(board: chess.Board, colour: chess.Color) -> int:
    bits = 0
    for square in chess.scan_forward(board.occupied_co[colour]):
        bits |= board.attacks_mask(square)
    return bits


def score_board(board: chess.Board, pool: tuple[PoolEntry, ...] = ()) -> int:
    """White's advantage on ``board`` with ``pool`` (every term but the side to move's sign)."""
    white_attacks, black_attacks = _attacks(board, chess.WHITE), _attacks(board, chess.BLACK)
    score = (_side_score(board, chess.WHITE, black_attacks, bool(board.queens & board.occupied_co[chess.BLACK]))
             - _side_score(board, chess.BLACK, white_attacks, bool(board.queens & board.occupied_co[chess.WHITE])))
    for entry in pool:
        value = pool_value(entry, board)
        score += value if entry.seat.value == "white" else -value
    return score


def evaluate(state: HyperspaceState) -> int:
    """The position's score for the side to move, in centipawns."""
    board = read_board(state)  # shared: read, never changed
    score = score_board(board, state.pool)
    return score if board.turn == chess.WHITE else -score
