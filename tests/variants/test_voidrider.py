"""Voidrider Chess engine: the start table, one test per ruling (W1-W11), an independent perft and playouts."""

from __future__ import annotations

import random

import pytest

from pbem.cli.main import main as cli_main
from pbem.engine.base import Seat, Transition
from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from pbem.variants import get_variant
from pbem.variants.voidrider.engine import VARIANT, VoidriderChess
from pbem.variants.voidrider.geometry import SQUARE_NAMES, parse_square
from pbem.variants.voidrider.helptext import RULINGS
from pbem.variants.voidrider.model import Move, VoidriderState
from pbem.variants.voidrider.rules import repetitions
from tests.variants.judges import VoidriderReference, as_reference

ENGINE = VoidriderChess()

#: The spec's table (voidrider.md section 5.6): the 23 moves of either side at the start.
START_MOVES = sorted([
    "Vb1~a1", "Vb1~c1", "Vb1~d1", "Vb1~e1",
    "Vf1~g1", "Vf1~e1", "Vf1~d1", "Vf1~c1",
    "Ra2~a1", "Ra2~a3", "Rg2~g1", "Rg2~g3",
    "Nb2-c4", "Nf2-e4",
    "Bc2~c1", "Be2~e1",
    "Pb3-b4", "Pc3-c4", "Pd3-d4", "Pe3-e4", "Pf3-f4", "Pb3~a3", "Pf3~g3",
])
#: The same for Black, mirrored onto ranks 9/8/7.
START_MOVES_BLACK = sorted([
    "Vb9~a9", "Vb9~c9", "Vb9~d9", "Vb9~e9",
    "Vf9~g9", "Vf9~e9", "Vf9~d9", "Vf9~c9",
    "Ra8~a9", "Ra8~a7", "Rg8~g9", "Rg8~g7",
    "Nb8-c6", "Nf8-e6",
    "Bc8~c9", "Be8~e9",
    "Pb7-b6", "Pc7-c6", "Pd7-d6", "Pe7-e6", "Pf7-f6", "Pb7~a7", "Pf7~g7",
])


def play(*moves: str, state: VoidriderState | None = None) -> tuple[VoidriderState, list[Transition[VoidriderState]]]:
    """Play ``moves`` through parse_action and apply, as the mail service does."""
    state = ENGINE.setup() if state is None else state
    transitions: list[Transition[VoidriderState]] = []
    for text in moves:
        transition = ENGINE.apply(state, ENGINE.parse_action(state, text))
        transitions.append(transition)
        state = transition.state
    return state, transitions


def canonical(state: VoidriderState) -> list[str]:
    return sorted(ENGINE.describe(state, action) for action in ENGINE.legal_actions(state))


def at(state: VoidriderState, square: str) -> str:
    """What is on a cell: ' ' void, '.' an empty space, or a piece letter."""
    return state.board[parse_square(square)]


def positioned(rows: list[str], turn: str = "white", castling: str = "", halfmove: int = 0) -> VoidriderState:
    """A state in the storage format: nine rows of seven cells, rank 9 first; ' ' void, '.' empty space."""
    return ENGINE.load({"format": "voidrider-chess/1", "board": rows, "turn": turn, "castling": castling,
                        "halfmove": halfmove, "fullmove": 20})


def refused(state: VoidriderState, text: str, kind: type[MoveError] = IllegalMoveError) -> str:
    with pytest.raises(kind) as error:
        ENGINE.parse_action(state, text)
    return str(error.value)


# -- registry, start position, command line ---------------------------------------------------------


def test_registered_under_key_and_alias() -> None:
    assert VARIANT is VoidriderChess
    assert isinstance(get_variant("voidrider"), VoidriderChess)
    assert isinstance(get_variant("Voidrider-Chess"), VoidriderChess)
    assert VoidriderChess.title == "Voidrider Chess"
    assert VoidriderChess.rulings == tuple(f"W{n}" for n in range(1, 12))


def test_start_has_43_spaces_and_the_table_of_23_moves() -> None:
    state = ENGINE.setup()
    assert sum(cell != " " for cell in state.board) == 43
    assert canonical(state) == START_MOVES
    after, _ = play("Pd3-d4")
    assert canonical(after) == START_MOVES_BLACK


def test_setup_refuses_options() -> None:
    with pytest.raises(ValueError, match="no options"):
        get_variant("voidrider", {"board": "big"}).setup()


def test_cli_moves_and_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["moves", "voidrider"]) == 0
    assert capsys.readouterr().out.split() == START_MOVES
    assert cli_main(["show", "voidrider-chess", "Vb1~e1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(ENGINE.view(play("Vb1~e1")[0], Seat.WHITE).diagram)
    assert "|:k:|" in out and "Black to move (move 1)." in out
    assert cli_main(["perft", "voidrider", "2"]) == 0
    assert capsys.readouterr().out.split()[-1] == "529"
    assert cli_main(["moves", "voidrider", "Kd2~d1"]) == 1
    assert "ruling W2" in capsys.readouterr().err


def test_diagram_frames_spaces_and_leaves_void_blank() -> None:
    state, _ = play("Vb1~e1", "Bc8~c9")
    lines = ENGINE.view(state, Seat.WHITE).diagram.splitlines()
    assert lines[0].split() == list("abcdefg")

    def row(rank: int) -> str:
        return next(line for line in lines if line.startswith(f"{rank} "))

    def content(rank: int, file: str) -> str:
        column = "abcdefg".index(file)
        return row(rank)[4 + 4 * column:7 + 4 * column]

    def frame_above(rank: int, file: str) -> str:
        column = "abcdefg".index(file)
        return lines[lines.index(row(rank)) - 1][4 + 4 * column:7 + 4 * column]

    # e1 (dark) holds the Voidrider; b1 is void now: blank, and no frame above or below it.
    assert content(1, "e") == ":V:" and content(1, "b") == "   " and frame_above(1, "b") == "---"
    assert lines[lines.index(row(1)) + 1][8:11] == "   "
    # Black's bishop stands on c9 (dark); c8 is void and blank; empty spaces always show a mark.
    assert content(9, "c") == ":b:" and content(8, "c") == "   "
    assert content(5, "b") == " . " and content(4, "b") == ":::"
    assert content(8, "a") == " r " and content(8, "d") == ":k:"
    assert max(len(line) for line in lines) <= 72
    flipped = ENGINE.view(state, Seat.BLACK).diagram.splitlines()
    assert flipped[0].split() == list("gfedcba") and flipped[2].startswith("1 ")


# -- one test per ruling ----------------------------------------------------------------------------


def test_W1_voidrider_space_move_goes_any_distance_along_void() -> None:
    start = ENGINE.setup()
    moves = canonical(start)
    assert {"Vb1~c1", "Vb1~d1", "Vb1~e1"} <= set(moves)  # not only the far end (that would give 19)
    assert "Vb1~f1" not in moves and "Vf1~b1" not in moves  # the line ends at the other Voidrider
    # Every stopping cell must have a side-neighbour; a cell without one may still be passed over.
    state = positioned([
        "k......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "K....  ",
        "V  .   ",
    ])
    rider = sorted(m for m in canonical(state) if m.startswith("Va1~"))
    # b1 touches b2, c1 touches c2, d1 is a space; nothing beyond it.
    assert rider == ["Va1~b1", "Va1~c1"]
    lonely = positioned([
        "k......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "K  ....",
        "V      ",
    ])
    # b1 and c1 have no side-neighbour but the way goes on: d1 touches d2, e1 e2, and so on.
    assert sorted(m for m in canonical(lonely) if m.startswith("Va1~")) == ["Va1~d1", "Va1~e1", "Va1~f1", "Va1~g1"]


def test_W2_the_vacated_cell_does_not_count_as_neighbour() -> None:
    state = ENGINE.setup()
    assert "Kd2~d1" not in canonical(state)
    assert len(canonical(state)) == 23  # 24 if the vacated cell counted
    assert "ruling W2" in refused(state, "Kd2~d1")
    assert "ruling W2" in refused(state, "Kd2-d1")  # a plain '-' to void is read as '~'


def test_W3_spaces_never_leave_the_7x9_area() -> None:
    state, _ = play("Vb1~a1", "Vb9~a9")
    # From a1 the Voidrider's space goes east only: west and south of it lies no cell of the area.
    assert sorted(m for m in canonical(state) if m.startswith("Va1")) == ["Va1~b1", "Va1~c1", "Va1~d1", "Va1~e1"]
    assert "outside the 7x9 area" in refused(state, "Va1~a0", InvalidMoveError)
    assert "outside the 7x9 area" in refused(state, "Va1-h1", InvalidMoveError)
    rim = positioned([
        "k......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "......K",
    ])
    # On g1 the only void cells are outside the area: the king has no space move at all.
    assert not [m for m in canonical(rim) if m.startswith("Kg1~")]


def test_W4_a_space_move_may_isolate_other_spaces() -> None:
    state, _ = play("Bc2~c1", "Pd7-d6")
    assert "Nb2~c2" in canonical(state)
    after, _ = play("Nb2~c2", state=state)
    assert at(after, "b2") == " " and at(after, "a2") == "R"
    # The rook's space on a2 now shares no side with any space, and that is allowed.
    assert all(at(after, sq) == " " for sq in ("a1", "a3", "b2"))
    assert "Ra2~b2" in canonical(play("Pd6-d5", state=after)[0])  # it may still move its space back


def test_W5_sliders_stop_at_void_knights_leap_voidriders_ride() -> None:
    # At the start the rooks have no ordinary move: a1 and a3 are void.
    assert not [m for m in canonical(ENGINE.setup()) if m.startswith("Ra2-")]
    state = positioned([
        "  n...k",
        "  .....",
        "B      ",
        "       ",
        "R n    ",
        "       ",
        "V n  p ",
        "       ",
        "K...N  ",
    ])
    moves = canonical(state)
    assert "Va3xc3" in moves  # rides over the void on b3
    assert "Ra5xc5" not in moves and not [m for m in moves if m.startswith("Ra5-")]
    assert "Ba7xc9" not in moves  # b8 is void
    assert "Ne1xf3" in moves  # leaps, the cells around are void
    assert "void blocks a rook" in refused(state, "Ra5xc5")
    assert "void blocks a bishop" in refused(state, "Ba7xc9")
    # From the start: with c2 void and d3 empty, the Voidrider on b1 rides over c2 to d3.
    played, _ = play("Bc2~c1", "Pd7-d6", "Pd3-d4", "Pd6-d5")
    assert "Vb1-d3" in canonical(played)


def test_W6_promotion_by_move_or_forward_space_move_is_compulsory() -> None:
    state = positioned([
        " .  .n ",
        "k.P.P..",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "K......",
    ])
    pawn_moves = sorted(m for m in canonical(state) if m.startswith("P"))
    expected = sorted(f"{move}={p}" for move in ("Pc8~c9", "Pe8-e9", "Pe8xf9") for p in "VRBN")
    assert pawn_moves == expected
    assert "add =V, =R, =B or =N" in refused(state, "Pc8~c9", AmbiguousMoveError)
    assert "no queen" in refused(state, "Pc8~c9=Q", InvalidMoveError)
    after, transitions = play("pc8-c9=v", state=state)  # a plain '-' to void, lower case
    assert transitions[0].record.startswith("Pc8~c9=V") and at(after, "c9") == "V" and at(after, "c8") == " "
    assert any("promoted to a Voidrider" in note.text for note in transitions[0].notes)
    black = positioned([
        "k......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".p.....",
        "  ...K.",
    ], turn="black")
    assert sorted(m for m in canonical(black) if m.startswith("P")) == sorted(f"Pb2~b1={p}" for p in "VRBN")


def test_W7_castling_rights_and_spaces_between_king_and_rook() -> None:
    ready, _ = play("Nf2-e4", "Nb8-c6", "Pf3-f4", "Nc6-b8", "Be2-f3", "Nb8-c6")
    assert "O-O" in canonical(ready)
    castled, transitions = play("O-O", state=ready)
    assert transitions[0].record == "O-O"
    assert (at(castled, "f2"), at(castled, "e2"), at(castled, "d2"), at(castled, "g2")) == ("K", "R", ".", ".")
    assert ENGINE.parse_action(ready, "Kd2-f2") == ENGINE.parse_action(ready, "0-0")
    # A gap of void between king and rook forbids castling.
    gap, _ = play("Nf2-e4", "Nb8-c6", "Be2~e1", "Nc6-b8")
    assert at(gap, "e2") == " " and at(gap, "f2") == "."
    assert "O-O" not in canonical(gap)
    assert "e2 is void" in refused(gap, "O-O")
    # A space move is a move: the rook that went to g3 and back has lost its right.
    back, _ = play("Nf2-e4", "Nb8-c6", "Pf3-f4", "Nc6-b8", "Be2-f3", "Nb8-c6", "Rg2~g3", "Nc6-b8",
                   "Rg3~g2", "Nb8-c6")
    assert at(back, "g2") == "R" and "O-O" not in canonical(back)
    assert "space move counts, ruling W7" in refused(back, "O-O")


def test_W8_space_moves_are_judged_on_the_new_geometry() -> None:
    shield = positioned([
        "k......",
        ".......",
        ".......",
        "...v...",
        "... ...",
        "... ...",
        ".. B...",
        "...K...",
        ".......",
    ])
    moves = canonical(shield)
    # Carrying d3 away leaves void between the Voidrider and the king: illegal.
    assert "Bd3~c3" not in moves
    assert "ruling W8" in refused(shield, "Bd3~c3")
    # Moving off d3 leaves an empty space there, which still stops the Voidrider.
    assert {"Bd3-e4", "Bd3-c4", "Bd3~d4"} <= set(moves)
    check = positioned([
        "k......",
        ".......",
        ".......",
        "...v...",
        "... ...",
        "..N ...",
        "... ...",
        "...K...",
        ".......",
    ])
    assert ENGINE.view(check, Seat.WHITE).status[1] == "White is in check."
    moves = canonical(check)
    # A space carried into the void line blocks the check; an ordinary knight move cannot.
    assert "Nc4~d4" in moves and "Nc4-b6" not in moves
    assert all(m.startswith(("K", "Nc4~d4", "Nc4xd6")) for m in moves)


def test_W9_every_pawn_move_resets_the_fifty_move_count() -> None:
    state, _ = play("Nb2-c4", "Nb8-c6", "Vb1~a1")
    assert state.halfmove == 3
    sideways, _ = play("Pb7~a7", state=state)
    assert sideways.halfmove == 0
    assert play("Vf1~g1", state=sideways)[0].halfmove == 1
    late = positioned([
        "k......",
        ".......",
        ".p.....",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "K......",
    ], turn="black", halfmove=99)
    assert ENGINE.claim_draw(late) is None
    assert ENGINE.claim_draw(play("Ka9-b9", state=late)[0]) is not None  # 100 half-moves: claimable
    spaced = positioned([
        "k......",
        ".......",
        " p.....",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "K......",
    ], turn="black", halfmove=99)
    assert ENGINE.claim_draw(play("Pb7~a7", state=spaced)[0]) is None  # the pawn's space move reset it


def test_W10_repetition_compares_pieces_and_spaces() -> None:
    # White and Black each bring the Voidrider round a triangle: the pieces stand as before, the spaces differ.
    first, _ = play("Nb2-c4", "Nb8-c6", "Ra2-b2", "Ra8-b8")
    second, _ = play("Vb1-a2", "Vb9-a8", "Va2~a1", "Va8~a9", "Va1-b1", "Va9-b9", state=first)
    pieces = [c if c not in " ." else "_" for c in first.board]
    assert [c if c not in " ." else "_" for c in second.board] == pieces
    assert first.board != second.board and first.turn is second.turn and first.castling == second.castling
    assert (at(first, "a2"), at(first, "a1"), at(second, "a2"), at(second, "a1")) == (".", " ", " ", ".")
    # Counting by pieces alone this would be the second occurrence; with the spaces it is the first.
    assert repetitions(first) == 1 and repetitions(second) == 1
    assert not any("occurred" in line for line in ENGINE.view(second, Seat.WHITE).status)
    # A real repetition, space moves included, is recognised and may be claimed on the third time.
    cycle = ["Vb1~a1", "Vb9~a9", "Va1~b1", "Va9~b9"]
    twice, _ = play(*cycle, *cycle)
    assert repetitions(twice) == 3
    assert "occurred 3 times" in ENGINE.view(twice, Seat.WHITE).status[-1]
    assert ENGINE.claim_draw(twice) is not None
    assert ENGINE.claim_draw(twice).reason == "threefold repetition"  # type: ignore[union-attr]
    assert ENGINE.claim_draw(play(*cycle)[0]) is None
    assert ENGINE.outcome(twice) is None
    five, _ = play(*cycle * 4)
    assert ENGINE.outcome(five) is not None and ENGINE.outcome(five).reason == "fivefold repetition"  # type: ignore[union-attr]


def test_W11_the_voidrider_attacks_and_checks_across_void() -> None:
    state = positioned([
        ".......",
        ".......",
        ".......",
        ".......",
        "   k.  ",
        "V......",
        ".......",
        ".......",
        "K......",
    ])
    _, transitions = play("Va4~a5", state=state)
    assert transitions[0].record == "Va4~a5+"  # b5 and c5 are void, d5 holds the king
    check = transitions[0].state
    assert ENGINE.view(check, Seat.BLACK).status[1] == "Black is in check."
    moves = canonical(check)
    # The king may not carry its space along the line toward the rider: c5 would be its first space.
    assert "Kd5~c5" not in moves and "in check" in refused(check, "Kd5~c5")
    # Stepping to e5 leaves d5 an empty space, which is then the rider's first space: e5 is safe.
    assert "Kd5-e5" in moves
    ride, _ = play("Kd5-d6", "Va5-d5", state=check)
    assert at(ride, "d5") == "V" and at(ride, "a5") == "."


# -- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Vb1~e1", "vb1~e1", "VB1~E1", "b1~e1", "Vb1-e1", "b1-e1", "b1e1", "Vb1 ~ e1", "1. Vb1~e1", "Vb1~e1!?",
    "Vb1\u2013e1", "Vb1~e1 // the long way",
])
def test_many_spellings_of_one_space_move(text: str) -> None:
    state = ENGINE.setup()
    assert ENGINE.parse_action(state, text) == Move(parse_square("b1"), parse_square("e1"), space=True)


def test_error_messages_say_why() -> None:
    state = ENGINE.setup()
    assert "no queen" in refused(state, "Qd2-d3", InvalidMoveError)
    assert "there is a knight on b2, not a rook" in refused(state, "Rb2-c4")
    assert "Black's, not yours" in refused(state, "Nb8-c6")
    assert "no double step" in refused(state, "Pd3-d5")
    assert "d1 is void" in refused(state, "Kd1-d2")
    assert "nothing to capture on e1" in refused(state, "Vb1xe1")
    assert "which ends on void" in refused(state, "Pd3~d4")
    assert "one cell only" in refused(state, "Ra2~a4")
    assert "first space" in refused(state, "Vb1-b4")
    assert "there is no piece on c4" in refused(state, "Nc4-b2")
    assert "not a move" in refused(state, "hello", InvalidMoveError)


def test_pawn_never_moves_its_space_backward() -> None:
    state, _ = play("Pb3~a3", "Pd7-d6", "Pa3~a4", "Pd6-d5")
    # a3 is void again and touches a2, but it is behind the pawn.
    assert at(state, "a3") == " " and at(state, "a2") == "R" and "Pa4~a3" not in canonical(state)
    assert "never moves its space backward" in refused(state, "Pa4~a3")


def test_mate_record_and_result() -> None:
    game = ["Nf2-e4", "Bc8~c9", "Rg2-f2", "Pe7-e6", "Vb1~d1", "Nb8~c8", "Vf1-g2", "Ra8~b8", "Vg2xg8",
            "Nc8-b6", "Vg8xf9", "Pf7-f6", "Ne4xf6", "Nb6-c8", "Vf9xe8"]
    state, transitions = play(*game)
    assert transitions[8].record == "Vg2xg8"
    assert any("across the void" in note.text for note in transitions[8].notes)
    assert transitions[-1].record == "Vf9xe8#"
    outcome = ENGINE.outcome(state)
    assert outcome is not None and outcome.result == "1-0" and outcome.reason == "checkmate"
    assert ENGINE.to_act(state) is None and list(ENGINE.legal_actions(state)) == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        ENGINE.parse_action(state, "Kd8-d7")


def test_bare_kings_and_stalemate_end_the_game() -> None:
    bare = positioned([
        "k......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
        "......K",
    ])
    assert ENGINE.outcome(bare) is not None and ENGINE.outcome(bare).result == "1/2-1/2"  # type: ignore[union-attr]
    stalemate = positioned([
        "k      ",
        "  R    ",
        " R     ",
        "       ",
        "       ",
        "       ",
        "       ",
        "       ",
        "K      ",
    ], turn="black")
    # a9's only neighbours are void and its space moves would be isolated: no move, no check.
    outcome = ENGINE.outcome(stalemate)
    assert outcome is not None and outcome.reason == "stalemate"


def test_help_lists_every_ruling_and_examples() -> None:
    text = ENGINE.help_text()
    assert [key for key, _ in RULINGS] == [f"W{n}" for n in range(1, 12)]
    flat = " ".join(text.split())
    for key, line in RULINGS:
        assert f"{key}: {line}" in flat
    for example in ("Vb1~e1", "Vb1xe4", "Pc8~c9=V", "O-O", "Ra2~a1", "history"):
        assert example in text
    assert max(len(line) for line in text.splitlines()) <= 100


# -- the independent move generator (tests/variants/judges.py): perft and playout positions ------


@pytest.mark.parametrize(("depth", "expected"), [(1, 23), (2, 529), (3, 12052)])
def test_perft_from_the_start(depth: int, expected: int) -> None:
    state = ENGINE.setup()
    assert ENGINE.perft(state, depth) == expected

    def by_apply(s: VoidriderState, d: int) -> int:
        actions = list(ENGINE.legal_actions(s))
        return len(actions) if d == 1 else sum(by_apply(ENGINE.apply(s, a).state, d - 1) for a in actions)

    if depth <= 2:
        assert by_apply(state, depth) == expected


def test_reference_generator_agrees_at_depth_two() -> None:
    total = 0
    start = ENGINE.setup()
    for move in ENGINE.legal_actions(start):
        child = ENGINE.apply(start, move).state
        assert {as_reference(m) for m in ENGINE.legal_actions(child)} == VoidriderReference.of(child).legal()
        total += len(VoidriderReference.of(child).legal())
    assert total == 529


# -- random playouts ------------------------------------------------------------------------------


def test_random_playouts_round_trip_never_raise_and_keep_the_invariants() -> None:
    rng = random.Random(20250702)
    plies = 0
    checked_reference = 0
    endings: set[str] = set()
    for game in range(30):
        state = ENGINE.setup()
        for _ply in range(110):
            assert ENGINE.load(ENGINE.dump(state)) == state
            assert sum(c != " " for c in state.board) == 43
            assert state.board.count("K") == 1 and state.board.count("k") == 1
            actions = list(ENGINE.legal_actions(state))
            if ENGINE.outcome(state) is not None:
                assert actions == []
                endings.add(ENGINE.outcome(state).reason)  # type: ignore[union-attr]
                break
            if game % 6 == 0 and _ply % 3 == 0:
                assert {as_reference(m) for m in actions} == VoidriderReference.of(state).legal()
                checked_reference += 1
            texts = [ENGINE.describe(state, a) for a in actions]
            assert len(set(texts)) == len(texts)
            for action, text in zip(actions, texts, strict=True):
                assert ENGINE.parse_action(state, text) == action
                assert ENGINE.parse_action(state, text.lower()) == action
            action = rng.choice(actions)
            before = ENGINE.dump(state)
            transition = ENGINE.apply(state, action)
            assert ENGINE.dump(state) == before  # apply never mutates its input
            assert transition.record.rstrip("+#") == ENGINE.describe(state, action)
            new = transition.state
            if action.space:
                frm, to = action.from_cell, action.to_cell
                # The moved space stays in the area, lands on former void, and touches another space.
                assert state.board[to] == " " and new.board[frm] == " " and new.board[to] != " "
                fd, rd = to % 7 - frm % 7, to // 7 - frm // 7
                assert fd == 0 or rd == 0
                assert abs(fd) + abs(rd) == 1 or state.board[frm] in "Vv"
                sides = [to + d for d, ok in ((1, to % 7 < 6), (-1, to % 7 > 0), (7, to < 56), (-7, to >= 7)) if ok]
                assert any(new.board[s] != " " for s in sides), SQUARE_NAMES[to]
            state = new
            plies += 1
    assert plies > 3000
    assert checked_reference > 50
    assert endings  # some games end (mate, stalemate or bare kings)
