"""Knockout brackets and match decisions."""

from __future__ import annotations

from pbem.events.pairing.bracket import MatchState, bracket_order, first_round, match_state


def test_seeds_one_and_two_can_only_meet_in_the_final() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(4) == [1, 4, 2, 3]


def test_top_seeds_get_the_byes() -> None:
    assert first_round([10, 20, 30, 40, 50]) == [(10, None), (40, 50), (20, None), (30, None)]


def test_a_match_starts_with_alternating_colours_and_waits_for_its_games() -> None:
    assert match_state(1, 2, [], 2, "extra").start == ((1, 2), (2, 1))
    assert match_state(1, 2, [(1, 2, "1-0"), (2, 1, "*")], 2, "extra") == MatchState(None)
    assert match_state(1, None, [], 2, "extra").winner == 1


def test_a_decided_match() -> None:
    state = match_state(1, 2, [(1, 2, "1/2-1/2"), (2, 1, "1-0")], 2, "extra")
    assert (state.winner, state.how) == (2, "1.5-0.5")


def test_a_tied_match_by_each_tiebreak_rule() -> None:
    tied = [(1, 2, "1-0"), (2, 1, "1-0")]
    extra = match_state(1, 2, tied, 2, "extra")
    assert extra.winner is None and extra.start == ((1, 2), (2, 1))
    assert match_state(1, 2, [*tied, (1, 2, "1-0"), (2, 1, "1/2-1/2")], 2, "extra").winner == 1
    assert match_state(1, 2, tied, 2, "seed").winner == 1
    lots = {match_state(1, 2, tied, 2, "lot", seed=str(n)).winner for n in range(20)}
    assert lots == {1, 2}  # a real drawing of lots ...
    assert match_state(1, 2, tied, 2, "lot", seed="7") == match_state(1, 2, tied, 2, "lot", seed="7")  # ... kept
