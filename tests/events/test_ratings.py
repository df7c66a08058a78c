"""Elo: expected scores, K factors and the provisional period."""

from __future__ import annotations

import pytest

from pbem.events.ratings import PROVISIONAL_GAMES, Elo, expected, rated_game


def test_expected_score() -> None:
    assert expected(1500, 1500) == 0.5
    assert expected(1900, 1500) == pytest.approx(10 / 11)


def test_a_newcomer_moves_by_k40_and_an_established_player_by_k20() -> None:
    white, black = rated_game(Elo(), Elo(1500, PROVISIONAL_GAMES), 1.0)
    assert white == Elo(1520, 1) and black == Elo(1490, PROVISIONAL_GAMES + 1)
    white, black = rated_game(Elo(1600, 30), Elo(1600, 30), 0.5)
    assert (white.rating, black.rating) == (1600, 1600)


def test_provisional_until_ten_games_and_shown_with_a_question_mark() -> None:
    assert str(Elo(1523.6, 9)) == "1524?" and Elo(1500, 9).provisional
    assert str(Elo(1523.4, 10)) == "1523" and not Elo(1500, 10).provisional
