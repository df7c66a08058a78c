"""What the search needs of Outer Space Chess: a position key, capture values and a quick successor."""

from __future__ import annotations

from collections.abc import Hashable

from pbem.variants.outer_space.evaluation import PIECE_VALUES
from pbem.variants.outer_space.model import SQUARES, Action, Move, OuterSpaceState
from pbem.variants.outer_space.rules import PASS_MOVE, RawMove, play

__all__ = ["NEBULA_CAPTURE", "capture_values", "position_key", "raw_move", "successor"]

#: What taking the enemy Nebula is worth to move ordering: it ends the game.
NEBULA_CAPTURE = 20_000


def position_key(state: OuterSpaceState) -> Hashable:
    """Board, side to move, hyperspace ages and the Nebula-moved flags (not the counters)."""
    return state.board, state.turn, state.ages, state.nebula_moved


def raw_move(action: Action) -> RawMove:
    """The rules' tuple for an action (the ``via`` is informational, the rules never read it)."""
    if not isinstance(action, Move):
        return PASS_MOVE
    via = SQUARES[action.via] if action.via else -1
    return SQUARES[action.origin], SQUARES[action.target], via, action.is_shot


def capture_values(state: OuterSpaceState, action: Action) -> tuple[int, int] | None:
    """(victim, mover) for a capture of an enemy piece; own-piece captures (A3) are not gains."""
    if not isinstance(action, Move) or not action.capture:
        return None
    victim = state.board[SQUARES[action.target]]
    mover = state.board[SQUARES[action.origin]]
    if victim.isupper() == mover.isupper():
        return None
    if victim.upper() == "N":
        return NEBULA_CAPTURE, 0
    return PIECE_VALUES[victim.upper()], 0 if action.is_shot else PIECE_VALUES[mover.upper()]


def successor(state: OuterSpaceState, action: Action) -> OuterSpaceState:
    return play(state, raw_move(action)).state
