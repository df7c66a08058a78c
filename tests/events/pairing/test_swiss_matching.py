"""Swiss pairings over whole simulated events: no rematch, at most one bye each, score groups, colours."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from pbem.events.pairing.swiss_matching import Entrant, PairingError, pair_round


def simulate(players: int, rounds: int, seed: int) -> tuple[list[list[tuple[int, int]]], dict[int, int],
                                                             dict[int, list[str]]]:
    """Play ``rounds`` rounds with random results; the boards of each round, byes and colours per player."""
    rng = random.Random(seed)
    score = dict.fromkeys(range(players), 0.0)
    colours: dict[int, list[str]] = {p: [] for p in range(players)}
    opponents: dict[int, set[int]] = {p: set() for p in range(players)}
    byes: Counter[int] = Counter()
    history = []
    for _ in range(rounds):
        entrants = [Entrant(p, score[p], p + 1, tuple(colours[p]), frozenset(opponents[p]), byes[p] > 0)
                    for p in range(players)]
        pairing = pair_round(entrants, rng)
        seated = [p for board in pairing.boards for p in board] + ([pairing.bye] if pairing.bye is not None else [])
        assert sorted(seated) == list(range(players))  # everybody plays or has the bye, once
        assert (pairing.bye is None) == (players % 2 == 0)
        if pairing.bye is not None:
            byes[pairing.bye] += 1
            score[pairing.bye] += 1
        for white, black in pairing.boards:
            assert black not in opponents[white], f"rematch {white}-{black}"
            opponents[white].add(black)
            opponents[black].add(white)
            colours[white].append("w")
            colours[black].append("b")
            result = rng.choice((1.0, 0.5, 0.0))
            score[white] += result
            score[black] += 1 - result
        history.append(list(pairing.boards))
    return history, dict(byes), colours


@pytest.mark.parametrize("players", range(9, 41))
def test_seven_rounds_without_rematch_and_at_most_one_bye(players: int) -> None:
    _, byes, colours = simulate(players, 7, seed=players)
    assert all(count <= 1 for count in byes.values())
    assert sum(byes.values()) == (7 if players % 2 else 0)
    for player, seen in colours.items():
        assert abs(seen.count("w") - seen.count("b")) <= 3, (player, seen)


def test_first_round_pairs_top_half_against_bottom_half_with_alternating_colours() -> None:
    entrants = [Entrant(p, 0.0, p) for p in range(1, 9)]
    boards = pair_round(entrants, random.Random(1)).boards
    assert sorted(tuple(sorted(board)) for board in boards) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    top_white = [min(board) == board[0] for board in sorted(boards, key=min)]
    assert top_white in ([True, False, True, False], [False, True, False, True])


def test_players_meet_their_own_score_group() -> None:
    # Four on 1 point, four on 0: no pairing across the groups is needed, so none is made.
    entrants = [Entrant(p, 1.0 if p <= 4 else 0.0, p, ("w",) if p % 2 else ("b",)) for p in range(1, 9)]
    for white, black in pair_round(entrants, random.Random(2)).boards:
        assert (white <= 4) == (black <= 4)


def test_colour_goes_to_who_needs_it() -> None:
    a = Entrant(1, 1.0, 1, ("w", "w"), frozenset({3, 4}))
    b = Entrant(2, 1.0, 2, ("b", "b"), frozenset({5, 6}))
    assert pair_round([a, b], random.Random(3)).boards == ((2, 1),)


def test_bye_goes_to_the_lowest_ranked_player_without_one() -> None:
    entrants = [Entrant(1, 1.0, 1), Entrant(2, 1.0, 2), Entrant(3, 0.0, 3, had_bye=True), Entrant(4, 0.0, 4),
                Entrant(5, 0.0, 5, had_bye=True)]
    assert pair_round(entrants, random.Random(4)).bye == 4


def test_no_pairing_without_rematch_is_an_error() -> None:
    met = {1: {2, 3, 4}, 2: {1, 3, 4}, 3: {1, 2, 4}, 4: {1, 2, 3}}
    entrants = [Entrant(p, 1.5, p, ("w", "b", "w"), frozenset(met[p])) for p in met]
    with pytest.raises(PairingError):
        pair_round(entrants)
