"""The engine tools of the command line: `pbem moves`, `perft`, `show`, `variants`, as interface.md section 1 says."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest

from pbem.cli.main import main, options_first
from pbem.variants import all_variants
from tests.variants.helpers import independent_perft


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def test_the_installed_console_script_lists_27_hyperspace_moves() -> None:
    script = str(Path(sys.executable).with_name("pbem"))  # the venv's script, whatever PATH says
    assert shutil.which(script), "pbem console script not installed next to the interpreter"
    completed = subprocess.run([script, "moves", "hyperspace"], capture_output=True, text=True, timeout=60)
    lines = completed.stdout.splitlines()
    assert completed.returncode == 0, completed.stderr
    assert len(lines) == 27
    assert sum("@1" in line for line in lines) == 7 and lines == sorted(lines)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_perft_hyperspace_agrees_with_an_independent_count(capsys: pytest.CaptureFixture[str], depth: int) -> None:
    status, lines, _ = run(capsys, "perft", "hyperspace", str(depth))
    assert status == 0 and int(lines[-1]) == independent_perft(chess.Board(), depth)


def test_moves_after_moves_accepts_input_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "moves", "hyperspace", "e4", "1... e7e5")
    board = chess.Board()
    board.push_san("e4")
    board.push_san("e5")
    assert status == 0 and len([line for line in lines if "@" not in line]) == board.legal_moves.count()


def test_illegal_move_exits_1_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = run(capsys, "moves", "hyperspace", "e4", "e4")
    assert status == 1 and lines == []
    assert "move 2" in err and "'e4'" in err


def test_unknown_variant_names_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", "checkers")
    assert status == 1 and "hyperspace" in err


def test_options_are_checked_by_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "perft", "hyperspace", "1", "-o", "speed=fast")
    assert status == 1 and "no options" in err
    status, _, err = run(capsys, "moves", "hyperspace", "--option", "nonsense")
    assert status == 1 and "KEY=VALUE" in err


def test_options_may_follow_the_moves() -> None:
    assert options_first(["moves", "x", "e4", "-o", "a=b", "e5"]) == ["moves", "-o", "a=b", "x", "e4", "e5"]
    assert options_first(["perft", "x", "2", "--option=a=b"]) == ["perft", "--option=a=b", "x", "2"]


def test_show_prints_the_diagram_after_moves(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "show", "hyperspace", "e4")
    text = "\n".join(lines)
    assert status == 0 and "a b c d e f g h" in text
    rank_4 = next(line for line in lines if line.startswith("4 "))
    assert rank_4.split()[5] == "P"  # the e-file of rank 4 holds the pawn that moved


def test_variants_lists_every_registered_variant(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "variants")
    assert status == 0 and len(lines) == len(all_variants())
    assert any(line.startswith("hyperspace") and "hyperspace-chess" in line for line in lines)
