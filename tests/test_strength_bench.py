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


def test_games_log_takes_a_stopped_run_up_again(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"

    def run(games: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, str(REPO / "bench" / "strength.py"), "--games", str(games),
                               "--levels", "2", "--variants", "outer-space", "--max-plies", "12",
                               "--games-log", str(log)], cwd=REPO, capture_output=True, text=True, timeout=600)

    first = run(2)
    assert first.returncode in (0, 1), first.stderr
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    assert "2 games played" in first.stdout and "0 taken from the games log" in first.stdout
    second = run(3)  # a longer run of the same pairing plays only the third game
    assert "1 games played" in second.stdout and "2 taken from the games log" in second.stdout
    after = log.read_text().splitlines()
    assert after[:2] == lines and len(after) == 3
    games = [json.loads(line) for line in after]
    assert sorted(g["number"] for g in games) == [0, 1, 2]
    assert [g["high_is_white"] for g in sorted(games, key=lambda g: g["number"])] == [True, False, True]
    assert all(g["max_plies"] == 12 and g["plies"] <= 12 for g in games)


def test_levels_without_randomness_start_each_pair_from_its_own_opening(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "strength.py"), "--games", "4", "--levels", "4",
                           "--variants", "outer-space", "--max-plies", "4", "--opening-plies", "3",
                           "--games-log", str(log)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    games = sorted((json.loads(line) for line in log.read_text().splitlines()), key=lambda g: g["number"])
    openings = [tuple(g["opening"]) for g in games]
    assert all(len(o) == 3 for o in openings)
    assert openings[0] == openings[1] and openings[2] == openings[3]  # a pair: one opening, both colours
    assert openings[0] != openings[2]  # and each pair its own
    assert [g["high_is_white"] for g in games] == [True, False, True, False]


def test_a_noisy_level_starts_from_the_initial_position(tmp_path: Path) -> None:
    log = tmp_path / "games.jsonl"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "strength.py"), "--games", "2", "--levels", "3",
                           "--variants", "outer-space", "--max-plies", "4", "--games-log", str(log)],
                          cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    assert all(json.loads(line)["opening"] == [] for line in log.read_text().splitlines())  # level 2 is noisy
