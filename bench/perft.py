"""Perft speed of every variant engine next to python-chess on standard chess, measured in one run.

Usage: python bench/perft.py [VARIANT ...] [--seconds S] [--max-depth D] [--json]

For each engine the depth grows from 1 until one depth takes at least S
seconds (or --max-depth is reached); the last depth gives the nodes/s. The
same is done for python-chess's legal move generator on the standard start
position right before and after each engine, and each variant's ratio to the
mean of those two is printed.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import chess

from pbem.cli.main import perft
from pbem.variants import all_variants, get_variant


@dataclass
class Measure:
    name: str
    depth: int
    nodes: int
    seconds: float

    @property
    def nodes_per_second(self) -> float:
        return self.nodes / self.seconds if self.seconds else 0.0


def chess_perft(board: chess.Board, depth: int) -> int:
    """Leaf count by python-chess's own move generator (the reference speed)."""
    if depth <= 1:
        return board.legal_moves.count() if depth == 1 else 1
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += chess_perft(board, depth - 1)
        board.pop()
    return total


def grow(name: str, count: Callable[[int], int], seconds: float, max_depth: int) -> Measure:
    """Deepen until one depth costs ``seconds``; the deepest depth measured is the figure."""
    measure = Measure(name, 0, 1, 0.0)
    for depth in range(1, max_depth + 1):
        started = time.perf_counter()
        nodes = count(depth)
        measure = Measure(name, depth, nodes, time.perf_counter() - started)
        if measure.seconds >= seconds:
            break
    return measure


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("variants", nargs="*", help="variant keys (default: all)")
    parser.add_argument("--seconds", type=float, default=2.0, help="stop deepening once a depth takes this long")
    parser.add_argument("--max-depth", type=int, default=6)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args()

    keys = args.variants or [variant.key for variant in all_variants()]

    def reference() -> Measure:
        return grow("python-chess (standard chess)", lambda d: chess_perft(chess.Board(), d), args.seconds,
                    args.max_depth)

    # The reference is measured right before and after each engine and averaged: on a machine whose load
    # changes, a ratio to one reference taken minutes earlier says more about the load than the engine.
    rows: list[tuple[Measure, float]] = []
    before = reference()
    for key in keys:
        engine = get_variant(key)
        start = engine.setup()
        measure = grow(key, lambda d, e=engine, s=start: perft(e, s, d), args.seconds, args.max_depth)
        after = reference()
        rows.append((measure, (before.nodes_per_second + after.nodes_per_second) / 2))
        before = after

    if args.json:
        print(json.dumps({
            "python": platform.python_version(),
            "variants": [asdict(m) | {"nodes_per_second": m.nodes_per_second, "reference_nodes_per_second": ref,
                                      "ratio": m.nodes_per_second / ref} for m, ref in rows],
        }, indent=2))
        return 0
    print(f"{'engine':<14}{'depth':>6}{'nodes':>12}{'seconds':>9}{'nodes/s':>11}{'python-chess':>14}{'ratio':>8}")
    for measure, ref in rows:
        print(f"{measure.name:<14}{measure.depth:>6}{measure.nodes:>12}{measure.seconds:>9.2f}"
              f"{measure.nodes_per_second:>11.0f}{ref:>14.0f}{measure.nodes_per_second / ref:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
