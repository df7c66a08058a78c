"""Outer Space Chess notation: canonical text of a move, and reading a player's move line."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from pbem.engine.errors import IllegalMoveError, InvalidMoveError
from pbem.engine.notation import move_error, strip_annotation, strip_comment_and_number, typography
from pbem.variants.outer_space.explain import pass_refusal, refusal
from pbem.variants.outer_space.model import EMPTY, NAMES, PASS, PIECE_NAMES, SQUARES, Action, Move, OuterSpaceState
from pbem.variants.outer_space.rules import PASS_MOVE, RawMove, describe_piece, legal_moves, routes

__all__ = ["action_map", "describe", "obliteration_mark", "parse", "to_action"]

_RECORD_NOTES = re.compile(r"\([^)]*\)")  # "(P1b6†)" marks copied from a record line
_SQUARE = r"(1[a-e][1-8]|2[abc])"
_MOVE = re.compile(rf"^([cpsgn])?{_SQUARE}[-x:]?{_SQUARE}(?:/{_SQUARE})?$")
_CHESS_SQUARES = re.compile(r"^[cpsgn]?[a-e][1-8][-x:]?[a-e][1-8]")
_EXAMPLES = "e.g. 'C1c3-1c4', 'S1c2x1e4', 'S2b-1a3/1b3', 'G2c-2b' or 'pass'"


def to_action(state: OuterSpaceState, move: RawMove) -> Action:
    if move == PASS_MOVE:
        return PASS
    origin, target, via, shot = move
    board = state.board
    return Move(board[origin].upper(), NAMES[origin], NAMES[target], shot or board[target] != EMPTY,
                NAMES[via] if via >= 0 else None)


@lru_cache(maxsize=64)
def action_map(state: OuterSpaceState) -> Mapping[Action, RawMove]:
    """The legal actions of ``state`` (in generation order) with their internal moves; read-only (cached)."""
    return MappingProxyType({to_action(state, move): move for move in legal_moves(state)})


def describe(action: Action) -> str:
    """Canonical notation: ``C1c3-1c4``, ``S1c2x1e4``, ``S2b-1a3/1b3``, ``pass``."""
    if not isinstance(action, Move):
        return "pass"
    via = f"/{action.via}" if action.via else ""
    return f"{action.piece}{action.origin}{'x' if action.capture else '-'}{action.target}{via}"


def obliteration_mark(cell: str, square: int) -> str:
    """The record's note for an obliterated Planet, as in the spec: ``(P1b6†)``."""
    return f"({cell.upper()}{NAMES[square]}\u2020)"


def _clean(text: str) -> str:
    line = _RECORD_NOTES.sub(" ", strip_comment_and_number(typography(text)))
    return strip_annotation("".join(line.split()).lower())


def parse(state: OuterSpaceState, text: str) -> Action:
    """One move line as a legal action: case-insensitive, piece letter and ``/via`` optional."""
    line = _clean(text)
    actions = action_map(state)
    if not line:
        raise move_error(InvalidMoveError, text, f"no move found; write {_EXAMPLES}")
    if line == "pass":
        if PASS in actions:
            return PASS
        raise move_error(IllegalMoveError, text, pass_refusal(state) if actions else "the game is over")
    match = _MOVE.match(line)
    if match is None:
        hint = (" (squares start with the board number: 1c3 in ordinary space, 2a 2b 2c in hyperspace)"
                if _CHESS_SQUARES.match(line) else "")
        raise move_error(InvalidMoveError, text, f"not a move; write {_EXAMPLES}{hint}")
    letter, origin_name, target_name, via_name = match.groups()
    origin, target = SQUARES[origin_name], SQUARES[target_name]
    if not actions:
        raise move_error(IllegalMoveError, text, "the game is over")
    cell = state.board[origin]
    if letter and cell != EMPTY and cell.upper() != letter.upper():
        raise move_error(IllegalMoveError, text, f"the piece on {origin_name} is {describe_piece(cell)}, "
                                             f"not a {PIECE_NAMES[letter.upper()]}")
    found = [a for a, m in actions.items() if m[0] == origin and m[1] == target]
    if not found:
        raise move_error(IllegalMoveError, text, refusal(state, origin, target))
    action = found[0]  # A17: one move per (piece, from, final square)
    if via_name is not None:
        assert isinstance(action, Move)
        if action.via is None:
            raise move_error(IllegalMoveError, text, "only a Spaceship entering or leaving hyperspace goes via a "
                                                 "Black Hole; leave out the '/...'")
        possible = [NAMES[bh] for bh in routes(state, origin, target)]
        if via_name not in possible:
            raise move_error(IllegalMoveError, text, f"the Spaceship cannot reach {target_name} via {via_name}; "
                                                 f"it can via {' or '.join(possible)}")
    return action
