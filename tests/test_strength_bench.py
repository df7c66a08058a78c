"""bench/strength.py plays its pairings and reports whole figures (a tiny load; no timing is asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_strength_plays_each_pairing_with_colours_alternated(tmp_path: Path) -> None:
    out = tmp_path / "strength.json"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "strength.py"), "--games", "2", "--max-level", "2",
                           "--variants", "voidrider", "hyperspace", "--max-plies", "16", "--json", str(out)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr  # 1: a target missed (16 plies decide little)
    pairings = json.loads(out.read_text())
    assert [(p["variant"], p["high"], p["low"]) for p in pairings] == [
        ("voidrider", 1, 0), ("voidrider", 2, 1), ("hyperspace", 1, 0), ("hyperspace", 2, 1)]
    for p in pairings:
        assert p["games"] == 2 and p["wins"] + p["draws"] + p["losses"] == 2
        assert 0 <= p["score"] <= 1 and p["high_seconds_per_move"] > 0
    assert "| voidrider | level 1 - random | 2 |" in done.stdout
