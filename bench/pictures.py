"""What a board picture costs: CPU time of render_png for each variant's real board (its start position as
White sees it, the first move highlighted) and for the renderer's test layouts, at scale 1 and 2 (median, p90).

The figure and tile caches are warmed by one render first, as they are in a running server; the PNG's band
cache is emptied before each timed draw (a position none of whose rows were drawn before: the worst case).
Usage: python bench/pictures.py [--runs 200] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pbem.engine.base import Seat  # noqa: E402
from pbem.engine.board_view import BoardView  # noqa: E402
from pbem.pictures.render import PNG_ENCODER, draw_png, render_png  # noqa: E402
from pbem.variants import all_variants  # noqa: E402
from tests.pictures.views import LAYOUTS  # noqa: E402


def variant_board(key: str) -> BoardView:
    """The board a player sees after the first listed move of ``key``, that move highlighted."""
    engine = next(v for v in all_variants() if v.key == key)()
    state = engine.setup()
    transition = engine.apply(state, next(iter(engine.legal_actions(state))))
    board = engine.view(transition.state, Seat.WHITE, transition.highlights).board
    assert board is not None
    return board

TARGET_MS = 3.0  # median at scale 1 for the 8x8 board with 32 pieces


def measure(runs: int) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    boards = {f"variant {v.key}": (lambda key=v.key: variant_board(key)) for v in all_variants()}
    for name, make in {**boards, **LAYOUTS}.items():
        view = make()
        for scale in (1, 2):
            size = len(render_png(view, scale))  # warms the figure and tile caches
            times = []
            for _ in range(runs):
                PNG_ENCODER.clear()
                start = time.process_time()
                draw_png(view, scale)  # past the cache of finished pictures: a new position
                times.append((time.process_time() - start) * 1000)
            times.sort()
            rows.append({"layout": name, "scale": scale, "median_ms": statistics.median(times),
                         "p90_ms": times[min(len(times) - 1, int(len(times) * 0.9))], "bytes": size})
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    rows = measure(args.runs)
    print(f"{'layout':<24} {'scale':>5} {'median ms':>10} {'p90 ms':>8} {'bytes':>8}")
    for row in rows:
        print(f"{row['layout']:<24} {row['scale']:>5} {row['median_ms']:>10.2f} {row['p90_ms']:>8.2f}"
              f" {row['bytes']:>8}")
    chess = next(r for r in rows if r["layout"] == "chess" and r["scale"] == 1)
    median = chess["median_ms"]
    assert isinstance(median, float)
    print(f"8x8, 32 pieces, scale 1: median {median:.2f} ms (target <= {TARGET_MS} ms)")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0 if median <= TARGET_MS else 1


if __name__ == "__main__":
    sys.exit(main())
