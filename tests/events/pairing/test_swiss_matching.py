"""Swiss pairings over whole simulated events: no rematch, at most one bye each, score groups, colours."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- The top score group is paired first -------------------------------------------------------
# Found by tests/e2e/test_events.py (six players, three rounds, the higher number always wins): with the start
# order drawn as p4, p6, p2, p5, p1, p3 (seeds 1 to 6) and event id 1, round 3 floated both 2/2 leaders down
# (6-3, 5-2, 1-4) instead of pairing them (6-5, 3-1, 2-4). Both pairings have two one-point score differences,
# so a sum of score differences could not tell them apart, and the colours (two mild clashes) decided.


def test_two_leaders_meet_rather_than_both_float_down() -> None:
    # Round 3 of that event: id = the player's strength, start rank, colours and opponents of rounds 1 and 2.
    entrants = [
        Entrant(6, 2.0, 2, ("w", "b"), frozenset({1, 4})),
        Entrant(5, 2.0, 4, ("w", "b"), frozenset({4, 3})),
        Entrant(2, 1.0, 3, ("b", "w"), frozenset({3, 1})),
        Entrant(3, 1.0, 6, ("w", "w"), frozenset({2, 5})),
        Entrant(4, 0.0, 1, ("b", "w"), frozenset({5, 6})),
        Entrant(1, 0.0, 5, ("b", "b"), frozenset({6, 2})),
    ]
    boards = pair_round(entrants, random.Random("1:3")).boards
    assert {frozenset(board) for board in boards} == {frozenset({5, 6}), frozenset({1, 3}), frozenset({2, 4})}


def strongest_alone_on_top(order: list[int], seed: int) -> tuple[bool, dict[int, float]]:
    """A Swiss of as many rounds as Swiss.start gives it, players seeded in ``order``; the higher id always wins."""
    players = len(order)
    rounds = min(players - 1 + players % 2, max(1, math.ceil(math.log2(players))))
    rng = random.Random(seed)
    score = dict.fromkeys(order, 0.0)
    colours: dict[int, list[str]] = {p: [] for p in order}
    opponents: dict[int, set[int]] = {p: set() for p in order}
    byes: set[int] = set()
    for _ in range(rounds):
        entrants = [Entrant(p, score[p], rank, tuple(colours[p]), frozenset(opponents[p]), p in byes)
                    for rank, p in enumerate(order, start=1)]
        pairing = pair_round(entrants, rng)
        if pairing.bye is not None:
            byes.add(pairing.bye)
            score[pairing.bye] += 1
        for white, black in pairing.boards:
            score[max(white, black)] += 1
            colours[white].append("w")
            colours[black].append("b")
            opponents[white].add(black)
            opponents[black].add(white)
    strongest = max(order)
    return all(score[p] < score[strongest] for p in order if p != strongest), score


def test_the_failing_event_ends_with_the_strongest_alone_on_top() -> None:
    alone, score = strongest_alone_on_top([4, 6, 2, 5, 1, 3], seed=0)
    assert alone, score


def test_every_start_order_of_six_players_ends_with_the_strongest_alone_on_top() -> None:
    # The end-to-end test's event, whatever the drawing of lots: 56 of the 720 orders left two players on 3/3.
    failing = [order for order in itertools.permutations(range(1, 7))
               if not strongest_alone_on_top(list(order), seed=1)[0]]
    assert failing == []


# With an even number of players (no byes) the players on a full score cannot have met, so their group pairs
# within itself (a lone one floats): each round at most halves them (rounded up), and ceil(log2 n) rounds leave
# one. With byes it need not hold:
# the bye goes first to the lowest-ranked player without one (rule 2), which can leave two leaders unable to meet.
# Five players whose strengths in start order are 1, 2, 4, 3, 5: round 3 gives the bye to 1 (0 points), and
# then 4-5 would leave 2-3, a rematch.
@settings(max_examples=400)  # the failure this guards against hit 7% of the orders of 6 players, 1% of 10
@given(order=st.integers(min_value=1, max_value=8).flatmap(lambda half: st.permutations(range(1, 2 * half + 1))),
       seed=st.integers(min_value=0, max_value=2**32))
def test_with_strictly_ordered_strengths_the_strongest_finishes_alone_on_top(order: list[int], seed: int) -> None:
    alone, score = strongest_alone_on_top(order, seed)
    assert alone, score
