"""Berger tables: every pair meets once, nobody plays twice in a round, colours differ by at most one."""

from __future__ import annotations

from collections import Counter

import pytest

from pbem.events.pairing.berger import berger_table, double_round_robin


@pytest.mark.parametrize("players", range(3, 13))
def test_every_pair_meets_once_with_balanced_colours(players: int) -> None:
    table = berger_table(players)
    assert len(table) == players - 1 + players % 2
    meetings: Counter[frozenset[int]] = Counter()
    balance: Counter[int] = Counter()
    for pairs in table:
        seated = [player for pair in pairs for player in pair]
        assert len(seated) == len(set(seated)), pairs  # nobody twice in a round
        assert len(pairs) == players // 2  # with an odd count exactly one player rests
        for white, black in pairs:
            meetings[frozenset((white, black))] += 1
            balance[white] += 1
            balance[black] -= 1
    assert set(meetings) == {frozenset((a, b)) for a in range(players) for b in range(a + 1, players)}
    assert set(meetings.values()) == {1}
    assert max(abs(balance[player]) for player in range(players)) <= 1
    if players % 2:  # the dummy's games are dropped without unbalancing anybody
        assert all(balance[player] == 0 for player in range(players))


def test_four_players_fixed_player_alternates_colours() -> None:
    assert berger_table(4) == [[(0, 3), (1, 2)], [(3, 1), (2, 0)], [(2, 3), (0, 1)]]


@pytest.mark.parametrize("players", [3, 4, 7, 8])
def test_double_round_robin_plays_each_pair_once_with_each_colour(players: int) -> None:
    games = [pair for pairs in double_round_robin(players) for pair in pairs]
    assert len(games) == players * (players - 1)
    assert len(set(games)) == len(games)  # (a, b) and (b, a) both appear, each once
    assert all((black, white) in games for white, black in games)


def test_fewer_than_two_players_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        berger_table(1)
