"""Round-robin schedules by Berger tables: who meets whom in which round, and with which colour."""

from __future__ import annotations

__all__ = ["berger_table", "double_round_robin"]

#: One round: (white, black) pairs of player numbers 0..n-1.
Round = list[tuple[int, int]]


def berger_table(players: int) -> list[Round]:
    """The rounds of a single round robin of ``players`` (numbered 0..players-1).

    The circle method: the last number stays put, the others turn one place
    per round. Every number but the fixed one passes each place of the circle
    once, half of them on the white side and half on the black side, plus one
    game against the fixed number, whose colour alternates by round: so every
    player's whites and blacks differ by at most one. With an odd count a
    dummy takes the fixed place, and its games (the byes) are left out, which
    keeps everybody else exactly balanced.
    """
    if players < 2:
        raise ValueError(f"a round robin needs at least 2 players, not {players}")
    size = players + players % 2
    fixed = size - 1
    circle = list(range(size - 1))
    rounds: list[Round] = []
    for number in range(size - 1):
        places = circle[number:] + circle[:number]
        pairs: Round = []
        first = places[0]
        pair = (fixed, first) if number % 2 else (first, fixed)
        if fixed < players:  # the dummy's opponent has a bye this round
            pairs.append(pair)
        pairs.extend((places[index], places[size - 1 - index]) for index in range(1, size // 2))
        rounds.append(pairs)
    return rounds


def double_round_robin(players: int) -> list[Round]:
    """Two cycles: the second repeats the first with colours reversed."""
    first = berger_table(players)
    return first + [[(black, white) for white, black in pairs] for pairs in first]
