"""Helpers the variant tests share (test modules never import from each other)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess

from pbem.engine.base import Variant

PERFT_DIR = Path(__file__).parent / "perft"


def independent_perft(board: chess.Board, depth: int) -> int:
    """Hyperspace Chess public tree by python-chess alone: board moves plus, per eligible piece,
    'remove it and pass' unless that exposes the own king."""
    if depth == 0:
        return 1
    total = 0
    for move in list(board.legal_moves):
        board.push(move)
        total += independent_perft(board, depth - 1)
        board.pop()
    color = board.turn
    for square in chess.SquareSet(board.occupied_co[color] & ~board.pawns & ~board.kings):
        child = board.copy(stack=False)
        child.remove_piece_at(square)
        king = child.king(color)
        if king is not None and child.is_attacked_by(not color, king):
            continue
        child.castling_rights &= ~chess.BB_SQUARES[square]
        child.ep_square = None
        child.turn = not color
        total += independent_perft(child, depth - 1)
    return total


def generic_perft(engine: Variant[Any, Any], state: Any, depth: int) -> int:
    """Leaf count by applying every legal action: the obviously right, slow count."""
    if depth == 0:
        return 1
    actions = list(engine.legal_actions(state))
    if depth == 1:
        return len(actions)
    return sum(generic_perft(engine, engine.apply(state, action).state, depth - 1) for action in actions)


@dataclass
class PerftCase:
    """One block of a ``.perft`` file: an id, a start position with moves, and ``perft N count`` lines."""

    id: str
    moves: list[str] = field(default_factory=list)
    counts: dict[int, int] = field(default_factory=dict)


def read_perft(key: str) -> list[PerftCase]:
    """The blocks of ``perft/<key>.perft`` (``#`` comments and blank lines ignored)."""
    cases: list[PerftCase] = []
    path = PERFT_DIR / f"{key}.perft"
    if not path.exists():
        return cases
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip() if raw.lstrip().startswith("#") else raw.strip()
        if not line:
            continue
        word, _, rest = line.partition(" ")
        if word == "id":
            cases.append(PerftCase(rest.strip()))
        elif word == "start":
            pass  # the variant's initial position (the only start these files use)
        elif word == "moves":
            cases[-1].moves.extend(rest.split())
        elif word == "perft":
            depth, count = rest.split()
            cases[-1].counts[int(depth)] = int(count)
        else:
            raise ValueError(f"{path}: unknown line {raw!r}")
    return cases


def position(engine: Variant[Any, Any], moves: list[str]) -> Any:
    state = engine.setup()
    for text in moves:
        state = engine.apply(state, engine.parse_action(state, text)).state
    return state
