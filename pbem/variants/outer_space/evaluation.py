"""Outer Space Chess evaluation for the search: centipawns from the side to move's point of view.

Terms (White minus Black, then signed for the side to move):

- **Material** (spec 1.4 gives no values; these follow from the moves): Star Cluster 100 (a pawn that
  never promotes), Planet 250 (a knight on a 5-file board that dies on a Black Hole while 2b is empty),
  Spaceship 450 (it captures by shooting along four diagonal rays at any range without moving, so it
  is never exposed by a capture). The Galaxy can never be captured and the Nebula only ends the game,
  so neither counts as material; the Nebula's worth is the royal-safety term.
- **Mobility**: 3 per pseudo-legal move (own-piece captures included: they are legal, A3).
- **Nebula safety** (the royal piece; A2: no check, the game ends when a Galaxy takes it): by how many
  Galaxy moves (king steps through empty squares, warps between empty Black Holes) the enemy Galaxy
  reaches the own Nebula: 1 move costs 400, 2 moves 120, 3 moves 40.
- **Hyperspace obligations and pool** (the variant's own term, A6/A11): 25 for each own piece in
  hyperspace (a Spaceship there cannot shoot, a Galaxy there cannot reach the Nebula but by warps),
  15 more for each one under an obligation (its next moves are forced), and a Planet standing on a
  Black Hole loses a third of its value while the opponent holds 2b (the opponent decides when 2b
  empties and the Planet is obliterated), a sixth while the own side holds it.
"""

from __future__ import annotations

from pbem.engine.base import Seat
from pbem.variants.outer_space.geometry import IS_BH, KING
from pbem.variants.outer_space.model import (
    EMPTY,
    HYPER_A,
    HYPER_BH,
    HYPER_C,
    ORDINARY_BLACK_HOLES,
    OuterSpaceState,
)
from pbem.variants.outer_space.rules import _pseudo

__all__ = ["PIECE_VALUES", "evaluate", "galaxy_distance", "hyperspace_term"]

PIECE_VALUES = {"C": 100, "P": 250, "S": 450, "G": 0, "N": 0}
_MOBILITY = 3
_NEBULA_DANGER = {1: 400, 2: 120, 3: 40}
_IN_HYPERSPACE = 25
_OBLIGED = 15
_BLACK_HOLES = (*ORDINARY_BLACK_HOLES, HYPER_BH)
_HYPER_STEPS = {HYPER_A: (HYPER_BH,), HYPER_BH: (HYPER_A, HYPER_C), HYPER_C: (HYPER_BH,)}


def galaxy_distance(board: str, galaxy: int, nebula: int, limit: int = 3) -> int | None:
    """Galaxy moves from ``galaxy`` to a capture of the Nebula on ``nebula`` (at most ``limit``), or None."""
    frontier, seen = [galaxy], {galaxy}
    for moves in range(1, limit + 1):
        following: list[int] = []
        for cell in frontier:
            steps = KING[cell] if cell < 40 else _HYPER_STEPS[cell]
            if nebula in steps:
                return moves
            targets = [s for s in steps if board[s] == EMPTY]
            if IS_BH[cell]:
                targets += [bh for bh in _BLACK_HOLES if bh != cell and board[bh] == EMPTY]
            for target in targets:
                if target not in seen:
                    seen.add(target)
                    following.append(target)
        frontier = following
    return None


def _side(state: OuterSpaceState, white: bool) -> int:
    board = state.board
    own = str.isupper if white else str.islower
    score = 0
    for cell in board:
        if cell != EMPTY and own(cell):
            score += PIECE_VALUES[cell.upper()]
    nebula_moved = state.nebula_moved[0 if white else 1]
    score += _MOBILITY * len(_pseudo(board, white, not nebula_moved))
    nebula, galaxy = board.find("N" if white else "n"), board.find("g" if white else "G")
    if nebula >= 0 and galaxy >= 0:
        distance = galaxy_distance(board, galaxy, nebula)
        if distance is not None:
            score -= _NEBULA_DANGER[distance]
    return score + hyperspace_term(state, white)


def hyperspace_term(state: OuterSpaceState, white: bool) -> int:
    """The hyperspace obligations and pool term of one side (see the module's list of terms)."""
    board = state.board
    own = str.isupper if white else str.islower
    score = 0
    for square in (HYPER_A, HYPER_BH, HYPER_C):
        cell = board[square]
        if cell != EMPTY and own(cell):
            score -= _IN_HYPERSPACE
            if state.ages[square - 40] >= (4 if square == HYPER_BH else 3):
                score -= _OBLIGED
    holder = board[HYPER_BH]
    if holder != EMPTY:
        share = 6 if own(holder) else 3
        planet = "P" if white else "p"
        for bh in ORDINARY_BLACK_HOLES:
            if board[bh] == planet:
                score -= PIECE_VALUES["P"] // share
    return score


def evaluate(state: OuterSpaceState) -> int:
    """The position's score for the side to move, in centipawns."""
    score = _side(state, True) - _side(state, False)
    return score if state.turn is Seat.WHITE else -score
