"""Outer Space Chess engine: the start table, one test per ruling (A1-A18), notation, CLI and playouts.

Positions that are impractical to reach by play are written in the engine's position string
(documented in pbem/variants/outer_space/model.py): ranks 8..1 of ordinary space, hyperspace
2a2b2c, side to move, ages of 2a,2b,2c, Nebula-moved flags, plies without capture, move number.
Upper case is White.
"""

from __future__ import annotations

import random
import re

import pytest

from pbem.cli import main as cli
from pbem.engine.base import Outcome, Seat
from pbem.engine.errors import IllegalMoveError, InvalidMoveError, MoveError
from pbem.variants import get_variant
from pbem.variants.outer_space.engine import VARIANT, OuterSpaceChess
from pbem.variants.outer_space.model import INITIAL_POSITION, PASS, SQUARES, WHITE_ON_RANK_1, Move, OuterSpaceState

ENGINE = OuterSpaceChess()

#: Spec 1.8, White's 24 moves in the initial position, written canonically.
START_MOVES = sorted([
    "C1a1-1a2", "C1a1x1b2", "C1e1-1e2", "C1e1x1d2",
    "C1b2-1b3", "C1b2x1b1", "C1b2x1c3", "C1d2-1d3", "C1d2x1d1", "C1d2x1c3",
    "C1c3-1c4", "C1c3x1c2",
    "P1b1-1a3", "P1b1x1c3", "P1b1x1d2", "P1d1-1e3", "P1d1x1c3", "P1d1x1b2",
    "N1c1x1b1", "N1c1x1d1", "N1c1x1c2",
    "S1c2x1b1", "S1c2x1d1",
    "G2c-2b",
])


def play(*moves: str, state: OuterSpaceState | None = None) -> OuterSpaceState:
    state = ENGINE.setup() if state is None else state
    for text in moves:
        state = ENGINE.apply(state, ENGINE.parse_action(state, text)).state
    return state


def moves(state: OuterSpaceState) -> list[str]:
    return sorted(ENGINE.describe(state, action) for action in ENGINE.legal_actions(state))


def piece_moves(state: OuterSpaceState, letter: str, origin: str | None = None) -> set[str]:
    return {m for m in moves(state) if m.startswith(letter + (origin or ""))}


def at(state: OuterSpaceState, square: str) -> str:
    return state.board[SQUARES[square]]


def refused(state: OuterSpaceState, text: str) -> str:
    with pytest.raises(IllegalMoveError) as error:
        ENGINE.parse_action(state, text)
    return str(error.value)


def mirror(text: str) -> str:
    """White's move as Black's: rank r becomes 9 - r, 2a and 2c swap."""
    text = re.sub(r"1([a-e])([1-8])", lambda m: f"1{m.group(1)}{9 - int(m.group(2))}", text)
    return re.sub(r"2([ac])", lambda m: "2" + {"a": "c", "c": "a"}[m.group(1)], text)


#: Three quiet moves each, so that White's next turn is turn 4 (no hyperspace piece moves).
THREE_QUIET = ["C1a1-1a2", "C1a8-1a7", "C1a2-1a3", "C1a7-1a6", "C1e1-1e2", "C1e8-1e7"]


# -- registry, start position, protocol ------------------------------------------------------------


def test_registered_under_key_and_aliases() -> None:
    assert VARIANT is OuterSpaceChess
    for name in ("outer-space", "Outer-Space-Chess", "OSC"):
        assert isinstance(get_variant(name), OuterSpaceChess)
    assert OuterSpaceChess.rulings == tuple(f"A{n}" for n in range(1, 19))


def test_start_position_has_exactly_the_24_moves_of_the_table() -> None:
    state = ENGINE.setup()
    assert len(START_MOVES) == 24
    assert moves(state) == START_MOVES
    assert ENGINE.perft(state, 1) == 24


def test_black_reply_count_is_24_and_mirrors_white() -> None:
    state = play("C1a1-1a2")
    assert len(moves(state)) == 24
    assert moves(state) == sorted(mirror(m) for m in START_MOVES)
    # Only G2c-2b changes Black's options (G2a-2b is then blocked): 23 * 24 + 23 = 575.
    assert len(moves(play("G2c-2b"))) == 23
    assert ENGINE.perft(ENGINE.setup(), 2) == 575


def test_options_are_refused() -> None:
    assert get_variant("outer-space", {}).setup() == ENGINE.setup()
    with pytest.raises(ValueError, match="no options"):
        get_variant("outer-space", {"hyperspace": "5"}).setup()


def test_position_string_round_trips_and_validates() -> None:
    state = ENGINE.setup()
    assert ENGINE.position(INITIAL_POSITION) == state
    assert INITIAL_POSITION == "cpnpc/1csc1/2c2/5/5/2C2/1CSC1/CPNPC g1G w 0,0,0 - 0 1"
    assert ENGINE.load(ENGINE.dump(state)) == state
    for bad in ("cpnpc/1csc1 g1G w 0,0,0 - 0 1",                             # 2 ranks
                "5/5/5/5/5/5/5/N3n C2 w 0,0,0 - 0 1",                         # a Cluster in hyperspace
                "5/5/5/5/5/1S3/5/N3n 3 w 0,0,0 - 0 1",                        # a Spaceship on a Black Hole
                "5/5/5/5/5/5/5/N3n g2 x 0,0,0 - 0 1"):
        with pytest.raises(ValueError):
            ENGINE.position(bad)


# -- the rulings ----------------------------------------------------------------------------------------


def test_A1_white_is_the_rank_1_side_with_galaxy_on_2c_and_moves_first() -> None:
    assert WHITE_ON_RANK_1
    state = ENGINE.setup()
    assert state.turn is Seat.WHITE and ENGINE.to_act(state) is Seat.WHITE
    assert [at(state, s) for s in ("1c1", "1c2", "1c3", "2c")] == ["N", "S", "C", "G"]
    assert [at(state, s) for s in ("1c8", "1c7", "1c6", "2a")] == ["n", "s", "c", "g"]
    assert "G2c-2b" in moves(state)
    assert "Black's" in refused(state, "G2a-2b")


def test_A2_no_check_moving_next_to_a_galaxy_is_legal_and_the_capture_ends_the_game() -> None:
    state = ENGINE.position("5/5/5/2n2/5/2G2/5/N4 g2 b 0,0,0 - 0 10")
    assert "N1c5-1c4" in moves(state)  # next to White's Galaxy: no check, so legal
    state = play("N1c5-1c4", state=state)
    assert ENGINE.outcome(state) is None and "G1c3x1c4" in moves(state)
    transition = ENGINE.apply(state, ENGINE.parse_action(state, "G1c3x1c4"))
    assert transition.record == "G1c3x1c4"
    assert ENGINE.outcome(transition.state) == Outcome("1-0", "White's Galaxy captured Black's Nebula")
    assert any("captured Black's Nebula" in n.text for n in transition.notes)
    assert ENGINE.to_act(transition.state) is None and list(ENGINE.legal_actions(transition.state)) == []


def test_A3_own_pieces_capturable_but_never_a_galaxy_or_own_nebula() -> None:
    state = ENGINE.position("5/5/5/S4/2n2/2NC1/2G2/1C3 g2 w 0,0,0 - 0 10")
    assert "N1c3x1d3" in moves(state)  # the Nebula takes its own Cluster
    assert "S1a5x" not in " ".join(moves(state))  # the Nebula on 1c3 blocks the shot at 1d2 and beyond
    assert "its own Nebula" in refused(state, "G1c2x1c3")
    assert "Galaxy can never be captured" in refused(state, "C1b1x1c2")
    assert "only a Galaxy can capture a Nebula" in refused(state, "C1d3x1c4")
    assert "only a Galaxy can capture a Nebula" in refused(state, "N1c3x1c4")
    # From the start: own captures are most of the table (spec 1.8; 8 moves without them).
    assert len([m for m in START_MOVES if "x" in m]) == 16


def test_A4_pass_only_after_a_nebula_move_with_nothing_else_legal() -> None:
    assert "may pass only" in refused(ENGINE.setup(), "pass")
    flagged = ENGINE.position("4n/5/2g2/5/5/5/5/N4 Gs1 w 1,0,0 w 7 10")
    assert list(ENGINE.legal_actions(flagged)) == [PASS]
    after = play("pass", state=flagged)
    assert after.nebula_moved == (False, False) and after.quiet == 8 and after.turn is Seat.BLACK
    assert after.move_number == 10
    # Without the flag the same player has Nebula moves and no pass.
    free = ENGINE.position("4n/5/2g2/5/5/5/5/N4 Gs1 w 1,0,0 - 7 10")
    assert PASS not in list(ENGINE.legal_actions(free)) and moves(free)
    assert all(m.startswith("N1a1") for m in moves(free))
    assert "may pass only" in refused(free, "pass")
    # After the pass the Nebula may move again on the next turn.
    back = play("G1c6-1c7", state=after)
    assert any(m.startswith("N1a1") for m in moves(back))


def test_A5_stalemate_is_a_draw_but_a_blocked_duty_is_not_stalemate() -> None:
    stuck = ENGINE.position("5/5/5/5/5/5/n4/Ng3 Gs1 w 0,0,0 - 0 10")
    assert list(ENGINE.legal_actions(stuck)) == []
    assert ENGINE.outcome(stuck) == Outcome.draw("stalemate")
    # The Galaxy on 2a (age 3) should go to 2b, which is occupied: White chooses freely.
    blocked = ENGINE.position("4n/5/2g2/5/5/5/C4/N4 Gs1 w 3,0,0 - 0 10")
    assert ENGINE.outcome(blocked) is None
    assert moves(blocked) == sorted(["C1a2-1a3", "C1a2-1b1", "N1a1x1a2", "N1a1-1b1", "N1a1-1c1",
                                     "N1a1-1d1", "N1a1-1e1"])


def test_A6_galaxy_must_reach_2b_on_turn_4_and_leave_on_turn_5() -> None:
    state = play(*THREE_QUIET)
    assert state.move_number == 4 and state.ages == (3, 0, 3)  # three White and three Black turns
    assert moves(state) == ["G2c-2b"]
    assert "must move to 2b" in refused(state, "C1e2-1e3")
    assert "must move to 2b" in ENGINE.view(state, Seat.WHITE).diagram
    state = play("G2c-2b", "C1e7-1e6", state=state)
    assert state.ages == (4, 4, 0)  # moving within hyperspace does not reset the age
    assert moves(state) == ["G2b-1b3", "G2b-1b6", "G2b-1c4", "G2b-1c5", "G2b-1d3", "G2b-1d6"]
    assert "must leave hyperspace" in refused(state, "G2b-2c")
    state = play("G2b-1c4", state=state)
    assert at(state, "1c4") == "G" and state.ages == (4, 0, 0)  # leaving resets


def test_A6_spaceship_entry_turn_does_not_count() -> None:
    state = play("C1c3-1c4", "C1a8-1a7", "C1c4-1c5", "C1a7-1a6", "S1c2-2b/1c4")
    assert at(state, "2b") == "S" and state.ages == (2, 0, 3)  # the entry turn does not count
    state = play("C1a6-1a5", "C1a1-1a2", "C1a5-1a4", "C1a2-1a3", "C1e8-1e7", "C1e1-1e2", "C1e7-1e6",
                 "C1e2-1e3", "C1e6-1e5", state=state)
    # White's turn 7 began with the ship at age 3: still free. Now, turn 8, age 4: only exits.
    assert state.move_number == 8 and state.ages == (7, 4, 7)
    assert moves(state) and all(m.startswith("S2b-1") for m in moves(state))
    # Black's Galaxy (age 7 on 2a) has waited all along: 2b was occupied.
    assert "must move to 2b once free" in ENGINE.view(state, Seat.WHITE).diagram


def test_A7_second_galaxy_waits_while_2b_is_held_then_must_go() -> None:
    state = play(*THREE_QUIET, "G2c-2b")
    # Black's Galaxy is at age 3 on 2a, but 2b is occupied: Black chooses freely.
    assert state.ages[0] == 3 and len(moves(state)) > 1 and "G2a-2b" not in moves(state)
    state = play("C1e7-1e6", "G2b-1c4", state=state)
    assert moves(state) == ["G2a-2b"]  # carried out as soon as it is legal
    state = play("G2a-2b", "C1e2-1e3", state=state)
    assert moves(state) == ["G2b-1b3", "G2b-1b6", "G2b-1c5", "G2b-1d3", "G2b-1d6"]  # 1c4 holds White's


def test_A8_spaceship_enters_on_an_empty_black_hole_and_is_banned_while_2b_is_held() -> None:
    blocked = play("C1c3-1c4", "C1a8-1a7")
    assert piece_moves(blocked, "S") == {"S1c2-1c3", "S1c2x1b1", "S1c2x1d1"}  # occupied 1c4 blocks
    open_ = play("C1c4-1c5", "C1a7-1a6", state=blocked)
    assert piece_moves(open_, "S") == {"S1c2-1c3", "S1c2-2b/1c4", "S1c2x1b1", "S1c2x1d1"}
    entered = play("S1c2-2b/1c4", state=open_)
    assert at(entered, "2b") == "S" and at(entered, "1c2") == "." and at(entered, "1c4") == "."
    # A first step onto an empty Black Hole is an entry, even along a rank (1c3 up to 1c4).
    one_step = ENGINE.position("4n/5/5/5/5/2S2/5/N3G g2 w 0,0,0 - 0 10")
    assert piece_moves(one_step, "S") == {"S1c3-2b/1b3", "S1c3-2c/1d3", "S1c3-1c2", "S1c3-1c1"}
    held = play("G2c-2b", "C1a8-1a7", "C1c3-1c4", "C1a7-1a6", "C1c4-1c5", "C1e8-1e7")
    assert piece_moves(held, "S") == {"S1c2-1c3", "S1c2x1b1", "S1c2x1d1"}
    assert "2b is occupied" in refused(held, "S1c2-2b")


A9_OPENING = ["G2c-2b", "C1a8-1a7", "G2b-1c5", "G2a-2b", "C1c3-1c4", "G2b-1d6", "S1c2-1c3", "C1a7-1a6"]


def test_A9_first_step_entry_may_continue_along_the_file_direction() -> None:
    state = play(*A9_OPENING)
    assert piece_moves(state, "S") == {"S1c3-1c2", "S1c3-2a/1b3", "S1c3-2b/1b3", "S1c3-2c/1d3",
                                       "S1c3x1b2", "S1c3x1d2"}
    state = play("S1c3-2a/1b3", state=state)
    assert at(state, "2a") == "S" and at(state, "2b") == "." and state.ages == (0, 0, 0)
    # A rank-wise first step has no appropriate square: the ship stays on 2b.
    rank_wise = ENGINE.position("4n/5/5/5/4G/5/1S3/N3g 3 w 0,0,0 - 0 10")
    assert {m for m in moves(rank_wise) if "-2" in m} == {"S1b2-2b/1b3"}
    # The continuation needs an empty target: 2a holds Black's Galaxy.
    held = ENGINE.position("4n/5/5/5/4G/2S2/5/N4 g2 w 0,0,0 - 0 10")
    assert {m for m in moves(held) if "-2" in m} == {"S1c3-2b/1b3", "S1c3-2c/1d3"}


def test_A10_exit_through_an_empty_black_hole_then_one_or_two_clear_steps() -> None:
    state = play(*A9_OPENING, "S1c3-2b/1b3", "C1e8-1e7")
    assert piece_moves(state, "S") == {
        "S2b-1a3/1b3", "S2b-1c3/1b3", "S2b-1b4/1b3", "S2b-1b5/1b3", "S2b-1e3/1d3", "S2b-1d4/1d3",
        "S2b-1d5/1d3", "S2b-2a", "S2b-2c"}
    # One move per final square: the other route names the same move.
    assert ENGINE.parse_action(state, "S2b-1b5/1b6") == ENGINE.parse_action(state, "S2b-1b5/1b3")
    assert "Black Hole" in refused(state, "S2b-1d3")  # never ends on a Black Hole
    assert "via 1c4" in refused(state, "S2b-1c3/1c4")  # 1c4 holds a Cluster
    exited = play("S2b-1b5", state=state)
    assert at(exited, "1b5") == "S" and at(exited, "2b") == "." and at(exited, "1b3") == "."
    # Not over another Black Hole: 1c5 -> 1c4 -> 1c3 is no route, though 1c3 is reachable via 1c4.
    free = ENGINE.position("3gn/5/5/5/5/5/5/N3G 1S1 w 0,4,0 - 0 10")
    assert ENGINE.parse_action(free, "S2b-1c3/1c4") == Move("S", "2b", "1c3", via="1b3")
    assert "via 1c5" in refused(free, "S2b-1c3/1c5")
    assert all(m.startswith("S2b-1") for m in moves(free))  # age 4: must leave (A6)


@pytest.mark.parametrize("vacate", ["G2b-1b6", "G2b-2c"])
def test_A11_vacating_2b_removes_every_planet_on_a_black_hole(vacate: str) -> None:
    state = play("G2c-2b", "C1a8-1a7", "P1b1-1a3", "P1b8-1a6", "P1a3-1c4", "P1a6-1c5")
    assert at(state, "1c4") == "P" and at(state, "1c5") == "p"  # 2b is occupied: they survive
    transition = ENGINE.apply(state, ENGINE.parse_action(state, vacate))
    assert at(transition.state, "1c4") == "." and at(transition.state, "1c5") == "."
    assert transition.record == f"{vacate} (P1c4\u2020) (P1c5\u2020)"
    assert sum("destroyed" in n.text for n in transition.notes) == 2
    assert transition.state.quiet == 7  # obliteration is not a capture (A12)
    # With 2b empty a Planet landing on a Black Hole is removed at once.
    landing = ENGINE.apply(play("P1b1-1a3", "C1a8-1a7"), Move("P", "1a3", "1c4"))
    assert at(landing.state, "1c4") == "." and landing.record == "P1a3-1c4 (P1c4\u2020)"


def test_A12_thirty_moves_each_without_capture_draw_and_obliteration_does_not_reset() -> None:
    position = "4n/4g/5/5/5/P4/C4/N3G 3 w 0,0,0 - {quiet} 40"
    near = ENGINE.position(position.format(quiet=59))
    drawn = play("G1e1-1e2", state=near)
    assert ENGINE.outcome(drawn) == Outcome.draw("30-move rule: 30 moves each without a capture")
    assert list(ENGINE.legal_actions(drawn)) == []
    assert ENGINE.outcome(play("N1a1x1a2", state=near)) is None  # an own-piece capture resets
    assert play("N1a1x1a2", state=near).quiet == 0
    assert ENGINE.outcome(play("P1a3-1c4", state=near)) is not None  # obliteration does not
    assert ENGINE.outcome(play("G1e1-1e2", state=ENGINE.position(position.format(quiet=58)))) is None
    # A pass counts as a ply.
    passing = ENGINE.position("4n/5/2g2/5/5/5/5/N4 Gs1 w 1,0,0 w 59 40")
    assert ENGINE.outcome(play("pass", state=passing)) is not None


def test_A13_no_draw_by_repetition() -> None:
    start = ENGINE.position("1p2n/4g/5/5/5/5/5/NP2G 3 w 0,0,0 - 0 10")
    state = start
    for _ in range(4):
        state = play("P1b1-1a3", "P1b8-1a6", "P1a3-1b1", "P1a6-1b8", state=state)
    assert state.board == start.board and state.quiet == 16
    assert ENGINE.outcome(state) is None and ENGINE.claim_draw(state) is None


def test_A14_nebula_treats_black_holes_as_ordinary_squares() -> None:
    state = ENGINE.position("4n/5/5/5/N4/5/5/4G 1g1 w 0,0,0 - 0 10")
    assert {"N1a4-1c4", "N1a4-1d4", "N1a4-1e4"} <= piece_moves(state, "N")
    state = play("N1a4-1c4", state=state)
    assert at(state, "1c4") == "N" and at(state, "2b") == "g"


def test_A15_zones_before_the_move_with_the_moving_nebula_still_blocking() -> None:
    state = ENGINE.position("2n2/5/5/2N2/5/5/5/4G g2 w 0,0,0 - 0 10")
    # Black's Nebula ray stops at White's Nebula on 1c5, so 1c4-1c2 are not in its zone.
    assert "N1c5-1c1" in moves(state)
    assert "N1c5-1c6" in moves(state)  # landing in a zone is allowed
    assert "capture zone of Black's Nebula on 1c8" in refused(state, "N1c5-1c7")
    # Own pieces' zones and the opponent Galaxy's zone count for White's Nebula.
    crowded = ENGINE.position("4n/5/5/5/5/1C3/3g1/N4 2G w 0,0,0 - 0 10")
    assert piece_moves(crowded, "N") == {"N1a1-1a2", "N1a1-1a3", "N1a1-1a4", "N1a1-1b1", "N1a1-1c1"}
    assert "White's Star Cluster on 1b3" in refused(crowded, "N1a1-1a5")
    assert "Black's Galaxy on 1d2" in refused(crowded, "N1a1-1d1")


def test_A16_forced_pass_even_when_the_nebula_cannot_move_and_ages_grow() -> None:
    state = ENGINE.position("5/5/5/5/5/5/n4/Ng3 Gs1 w 2,0,0 w 0 10")
    assert list(ENGINE.legal_actions(state)) == [PASS]
    assert "you must pass" in refused(state, "N1a1-1b1")
    assert any("must pass" in line for line in ENGINE.view(state, Seat.WHITE).status)
    transition = ENGINE.apply(state, PASS)
    assert transition.record == "pass"
    assert transition.state.ages == (3, 0, 0)  # White's Galaxy aged; Black's Spaceship did not
    # Black frees 2b: White's Galaxy, now age 3, must go there (A6).
    assert moves(play("S2b-2c", state=transition.state)) == ["G2a-2b"]


def test_A17_one_move_per_final_square_with_the_smallest_black_hole_as_via() -> None:
    state = ENGINE.position("4n/5/5/1S3/2G2/5/5/N4 g2 w 0,0,0 - 0 10")
    listed = moves(state)
    assert len(listed) == len(set(listed))
    assert {m for m in listed if m.startswith("S1b5-2")} == {"S1b5-2b/1b3", "S1b5-2c/1c5"}
    wanted = ENGINE.parse_action(state, "S1b5-2b/1b3")
    for text in ("S1b5-2b/1c5", "s1b5-2b/1b6", "1b5-2b", "S1B5-2B"):
        assert ENGINE.parse_action(state, text) == wanted
    # Step and warp between adjacent Black Holes: one move each.
    assert piece_moves(state, "G") == {f"G1c4-{s}" for s in (
        "1b3", "1c3", "1d3", "1b4", "1d4", "1c5", "1d5", "1b6", "1d6", "2b")}


def test_A18_straight_paths_2a_2c_over_empty_2b_and_no_shots_from_hyperspace() -> None:
    state = ENGINE.position("4n/5/5/5/5/5/5/N3G S2 w 0,0,0 - 0 10")
    assert piece_moves(state, "S") == {"S2a-2b", "S2a-2c"}
    over = play("S2a-2c", state=state)
    assert at(over, "2c") == "S" and over.ages == (0, 0, 1)
    assert piece_moves(ENGINE.position("4n/5/5/5/5/5/5/N3G Sg1 w 0,0,0 - 0 10"), "S") == set()
    shooter = ENGINE.position("4n/5/5/5/5/5/c4/N3G 1S1 w 0,0,0 - 0 10")
    assert piece_moves(shooter, "S") and all("x" not in m for m in piece_moves(shooter, "S"))
    line = ENGINE.position("4n/5/5/5/5/4N/5/S3G g2 w 0,0,0 - 0 10")
    assert piece_moves(line, "S") == {"S1a1-1a2", "S1a1-1a3", "S1a1-1b1", "S1a1-1c1"}


# -- other rules ---------------------------------------------------------------------------------------


def test_nebula_may_not_move_twice_in_a_row() -> None:
    state = play("N1c1x1b1", "C1a8-1a7")
    assert not piece_moves(state, "N")
    assert "may not move twice in a row" in refused(state, "N1b1-1c1")
    state = play("C1a1-1a2", "C1a7-1a6", state=state)
    assert piece_moves(state, "N")


def test_spaceship_shoots_without_moving() -> None:
    state = play("C1d2-1d3", "C1b7-1b6", "C1d3-1d4", "C1b6-1b5")
    assert "S1c2x1e4" not in moves(state)
    state = ENGINE.position("4n/5/5/5/4c/5/2S2/N3G g2 w 0,0,0 - 5 10")
    transition = ENGINE.apply(state, ENGINE.parse_action(state, "S1c2x1e4"))
    assert transition.record == "S1c2x1e4"
    assert at(transition.state, "1c2") == "S" and at(transition.state, "1e4") == "."
    assert transition.state.quiet == 0


# -- notation ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["C1c3-1c4", "c1c3-1c4", "1c3-1c4", "1C3 1C4", "1c31c4", "1. C1c3-1c4",
                                  "C1c3-1c4!?", "1c3x1c4", "C1c3-1c4 // the cluster"])
def test_many_spellings_of_one_move(text: str) -> None:
    assert ENGINE.parse_action(ENGINE.setup(), text) == Move("C", "1c3", "1c4")


def test_errors_name_the_problem() -> None:
    state = ENGINE.setup()
    with pytest.raises(InvalidMoveError, match="board number"):
        ENGINE.parse_action(state, "c3-c4")
    with pytest.raises(InvalidMoveError, match="not a move"):
        ENGINE.parse_action(state, "frobnicate")
    assert "not a Planet" in refused(state, "P1c3-1c4")
    assert "no piece on 1c5" in refused(state, "1c5-1c6")
    assert "via a Black Hole" in refused(state, "C1c3-1c4/1c4")
    assert "Star Cluster moves" in refused(state, "C1c3-1c5")
    with pytest.raises(IllegalMoveError, match="game is over"):
        ENGINE.apply(play("N1c5-1c4", "G1c3x1c4", state=ENGINE.position("5/5/5/2n2/5/2G2/5/N4 g2 b 0,0,0 - 0 10")),
                     PASS)


def test_record_with_obliteration_marks_parses_back() -> None:
    state = play("P1b1-1a3", "C1a8-1a7")
    assert ENGINE.parse_action(state, "P1a3-1c4 (P1c4\u2020)") == Move("P", "1a3", "1c4")


# -- diagram and CLI -------------------------------------------------------------------------------------------


def test_diagram_shows_both_boards_black_holes_and_ages() -> None:
    view = ENGINE.view(play("G2c-2b"), Seat.BLACK)
    lines = view.diagram.splitlines()
    assert max(len(line) for line in lines) <= 72
    assert all(line.isascii() for line in lines)
    assert " 6 | . | * | c | * | . | 6" in lines[5]
    assert "| g |*G*| . |" in view.diagram
    assert "2b: White Galaxy, age 1" in view.diagram and "2a: Black Galaxy, age 0" in view.diagram
    assert view.to_move is Seat.BLACK and view.move_number == 1
    assert ENGINE.view(play("G2c-2b"), Seat.BLACK) == ENGINE.view(play("G2c-2b"), Seat.WHITE)


def test_cli_moves_perft_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["moves", "outer-space"]) == 0
    assert capsys.readouterr().out.split() == START_MOVES
    assert cli.main(["moves", "osc", "C1c3-1c4"]) == 0
    assert len(capsys.readouterr().out.split()) == 24
    assert cli.main(["perft", "outer-space", "3"]) == 0
    assert capsys.readouterr().out.split()[-1] == str(ENGINE.perft(ENGINE.setup(), 3))
    assert cli.main(["show", "outer-space-chess", "G2c-2b"]) == 0
    out = capsys.readouterr().out
    assert "Hyperspace (2)" in out and "Ordinary space (1)" in out and "2b: White Galaxy, age 1" in out
    assert cli.main(["moves", "osc", "pass"]) == 1
    assert "may pass only" in capsys.readouterr().err


def test_perft_matches_the_generic_count() -> None:
    assert ENGINE.perft(ENGINE.setup(), 3) == cli.perft(_Generic(), ENGINE.setup(), 3)


class _Generic(OuterSpaceChess):
    """The engine without its fast perft, so cli.perft walks legal_actions and apply."""

    perft = None  # type: ignore[assignment]


def test_help_lists_every_ruling() -> None:
    text = ENGINE.help_text()
    for ruling in OuterSpaceChess.rulings:
        assert f"  {ruling}: " in text
    assert "S2b-1a3/1b3" in text and "pass" in text


# -- random playouts ------------------------------------------------------------------------------------------------


def test_random_playouts_never_raise_and_keep_the_invariants() -> None:
    rng = random.Random(20250701)
    plies = games = 0
    endings: dict[str, int] = {}
    while plies < 3000:
        games += 1
        state = ENGINE.setup()
        while True:
            assert ENGINE.load(ENGINE.dump(state)) == state
            for square in ("1b3", "1d3", "1c4", "1c5", "1b6", "1d6"):
                assert at(state, square) not in "Ss", "a Spaceship ended a turn on a Black Hole"
            actions = list(ENGINE.legal_actions(state))
            over = ENGINE.outcome(state)
            if over is not None:
                assert actions == []
                endings[over.reason] = endings.get(over.reason, 0) + 1
                break
            assert actions
            texts = [ENGINE.describe(state, a) for a in actions]
            assert len(set(texts)) == len(texts)
            for action, text in zip(actions, texts, strict=True):
                assert ENGINE.parse_action(state, text) == action
                assert ENGINE.parse_action(state, text.lower()) == action
            white = state.turn is Seat.WHITE
            owner = str.isupper if white else str.islower
            due_exit = (owner(at(state, "2b")) and state.ages[1] >= 4
                        and any(t.startswith(f"{at(state, '2b').upper()}2b-1") for t in texts))
            for side in ("2a", "2c"):
                if owner(at(state, side)) and state.ages[SQUARES[side] - 40] >= 3 and at(state, "2b") == ".":
                    assert all(t[1:].startswith(("2a-2b", "2c-2b")) for t in texts)
            if due_exit:
                assert all(t.startswith(f"{at(state, '2b').upper()}2b-1") for t in texts)
            action = rng.choice(actions)
            before = ENGINE.dump(state)
            transition = ENGINE.apply(state, action)
            assert ENGINE.dump(state) == before
            assert transition.record.startswith(ENGINE.describe(state, action))
            if due_exit:
                assert transition.state.board[SQUARES["2b"]] == "."  # it left as soon as it could
            state = transition.state
            plies += 1
    assert games > 5 and sum(endings.values()) == games


def test_playouts_with_bad_text_raise_only_move_errors() -> None:
    rng = random.Random(7)
    state = ENGINE.setup()
    junk = ["", "x", "pass", "S2b-1a3/1b3", "G2a-2b", "N1c1-1c8", "C9z9-1a1", "1a1-1a1", "S1c2x1c3", "2b-2c"]
    for _ in range(200):
        for text in junk:
            try:
                action = ENGINE.parse_action(state, text)
            except MoveError as error:
                assert str(error).startswith(("invalid move", "illegal move"))
                continue
            assert action in list(ENGINE.legal_actions(state))
        actions = list(ENGINE.legal_actions(state))
        if not actions:
            state = ENGINE.setup()
            continue
        state = ENGINE.apply(state, rng.choice(actions)).state
