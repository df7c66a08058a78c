"""Tiebreaks on small events computed by hand."""

from __future__ import annotations

import pytest

from pbem.events.tiebreaks import Outcome, normalise, rank

A, B, C, D, E = 1, 2, 3, 4, 5
# A three-round Swiss of five (each player has one bye):
#   R1: A-B 1-0, C-D draw, E bye;  R2: E-A 0-1, B-C draw, D bye;  R3: A-D draw, C-E 0-1, B bye.
SWISS = [Outcome(A, B, "1-0"), Outcome(C, D, "1/2-1/2"), Outcome(E, A, "0-1"), Outcome(B, C, "1/2-1/2"),
         Outcome(A, D, "1/2-1/2"), Outcome(C, E, "0-1")]
BYES = {E: 1, D: 1, B: 1}


def by_player(rows: list) -> dict[int, object]:
    return {row.player: row for row in rows}


def test_hand_computed_values() -> None:
    rows = by_player(rank([A, B, C, D, E], SWISS, BYES, ("buchholz", "median", "sb", "wins")))
    # Points: A 1+1+½, B 0+½+bye, C ½+½+0, D ½+bye+½, E bye+0+1.
    assert {p: r.points for p, r in rows.items()} == {A: 2.5, B: 1.5, C: 1.0, D: 2.0, E: 2.0}
    # Wins count games won, not byes.
    assert {p: r.values["wins"] for p, r in rows.items()} == {A: 2, B: 0, C: 0, D: 0, E: 1}
    # Buchholz: the opponents' points, a bye counting as the player's own points.
    #   A: B 1.5 + E 2 + D 2; B: A 2.5 + C 1 + bye 1.5; C: D 2 + B 1.5 + E 2; D: C 1 + bye 2 + A 2.5;
    #   E: bye 2 + A 2.5 + C 1.
    assert {p: r.values["buchholz"] for p, r in rows.items()} == {A: 5.5, B: 5.0, C: 5.5, D: 5.5, E: 5.5}
    # Median Buchholz drops the highest and the lowest contribution.
    assert {p: r.values["median"] for p, r in rows.items()} == {A: 2.0, B: 1.5, C: 2.0, D: 2.0, E: 2.0}
    # Sonneborn-Berger: beaten opponents' points plus half the drawn opponents' points.
    #   A: B 1.5 + E 2 + ½·D 2 = 4.5; B: ½·C 1 = 0.5; C: ½·D 2 + ½·B 1.5 = 1.75; D: ½·C 1 + ½·A 2.5 = 1.75;
    #   E: C 1 = 1.
    assert {p: r.values["sb"] for p, r in rows.items()} == {A: 4.5, B: 0.5, C: 1.75, D: 1.75, E: 1.0}


def test_order_follows_the_chosen_tiebreaks() -> None:
    # D and E tie on points, Buchholz and median; D's Sonneborn-Berger is higher, E has more wins.
    order = [row.player for row in rank([A, B, C, D, E], SWISS, BYES, ("buchholz", "median", "sb", "wins"))]
    assert order == [A, D, E, B, C]
    order = [row.player for row in rank([A, B, C, D, E], SWISS, BYES, ("wins", "sb"))]
    assert order == [A, E, D, B, C]


def test_players_tied_on_everything_share_the_rank_in_start_order() -> None:
    rows = rank([A, B, C, D, E], SWISS, BYES, ("h2h",))  # D and E never met
    assert [(row.player, row.rank, row.shared) for row in rows] == [
        (A, 1, False), (D, 2, True), (E, 2, True), (B, 4, False), (C, 5, False)]


def test_head_to_head_among_the_players_still_tied() -> None:
    # A round robin of four: 1 and 3 tie on points (1½), wins (1) and Sonneborn-Berger (1¾); 1 beat 3.
    games = [Outcome(0, 1, "1-0"), Outcome(0, 2, "1-0"), Outcome(0, 3, "1/2-1/2"), Outcome(1, 2, "1/2-1/2"),
             Outcome(1, 3, "1-0"), Outcome(2, 3, "0-1")]
    rows = rank([0, 1, 2, 3], games, {}, ("wins", "sb", "h2h"))
    assert [row.player for row in rows] == [0, 1, 3, 2]
    assert [row.values["h2h"] for row in rows] == [0.0, 1.0, 0.0, 0.0]
    assert rows[1].values["sb"] == rows[2].values["sb"] == 1.75
    # Without head-to-head they share second place.
    assert [row.rank for row in rank([0, 1, 2, 3], games, {}, ("wins", "sb"))] == [1, 2, 2, 4]


def test_tiebreak_names_and_aliases() -> None:
    assert normalise(["Baumbach", "sonneborn-berger,head-to-head", "median"]) == ("wins", "sb", "h2h", "median")
    with pytest.raises(ValueError, match="unknown tiebreak 'koya'"):
        normalise(["koya"])
