"""`pbem analyse VARIANT [MOVE ...] [--level N | --seconds S]`: best move, score, line, depth and nodes."""

from __future__ import annotations

import pytest

from pbem.cli.main import main, options_first
from pbem.variants import all_variants, get_variant

KEYS = [variant.key for variant in all_variants()]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def field(lines: list[str], name: str) -> str:
    return next(line.split(": ", 1)[1] for line in lines if line.startswith(f"{name}: "))


@pytest.mark.parametrize("key", KEYS)
def test_analyse_prints_a_legal_best_move_its_score_and_line(capsys: pytest.CaptureFixture[str], key: str) -> None:
    status, lines, err = run(capsys, "analyse", key, "--level", "2")
    assert status == 0, err
    engine = get_variant(key)
    state = engine.setup()
    legal = {engine.describe(state, a) for a in engine.legal_actions(state)}
    best = field(lines, "best move")
    assert best in legal
    line = field(lines, "line").split()
    assert line[0] == best and len(line) >= 2
    assert field(lines, "score").split()[0].lstrip("+-").isdigit()
    assert lines[-1].startswith("depth 2, ") and "nodes" in lines[-1]


def test_analyse_after_moves_finds_the_mate(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "analyse", "hyperspace", "e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "--level", "2")
    assert status == 0
    assert field(lines, "best move") == "Qh5xf7" and field(lines, "score").startswith("mate in 1")


def test_analyse_for_black_scores_from_blacks_side(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "analyse", "hyperspace", "f3", "e5", "g4", "--level", "2")
    assert status == 0
    assert field(lines, "best move") == "Qd8-h4" and "black" in field(lines, "score")


def test_an_illegal_move_exits_1_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, err = run(capsys, "analyse", "voidrider", "Pd3-d4", "Pd3-d4")
    assert status == 1 and lines == []
    assert "move 2" in err and "'Pd3-d4'" in err


def test_a_finished_game_exits_1(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "analyse", "hyperspace", "f3", "e5", "g4", "Qh4")
    assert status == 1 and "game is over" in err and "checkmate" in err


def test_level_and_seconds_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "analyse", "tri-d", "--level", "9")
    assert status == 1 and "--level is 1 to 5" in err
    status, _, err = run(capsys, "analyse", "tri-d", "--seconds", "0")
    assert status == 1 and "--seconds" in err
    with pytest.raises(SystemExit):
        main(["analyse", "tri-d", "--level", "1", "--seconds", "1"])
    capsys.readouterr()


def test_seconds_search_at_least_one_ply(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "analyse", "outer-space", "--seconds", "0.2")
    assert status == 0 and int(lines[-1].split()[1].rstrip(",")) >= 1


def test_options_reach_the_engine(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = run(capsys, "analyse", "space-chess", "-o", "centre-star=no", "--level", "1")
    assert status == 0 and field(lines, "best move")
    status, _, err = run(capsys, "analyse", "space-chess", "-o", "speed=fast")
    assert status == 1 and "unknown option" in err


def test_level_and_seconds_may_follow_the_moves() -> None:
    assert options_first(["analyse", "x", "e4", "--level", "2", "e5"]) == ["analyse", "--level", "2", "x", "e4", "e5"]
    assert options_first(["analyse", "x", "--seconds=1", "e4"]) == ["analyse", "--seconds=1", "x", "e4"]
