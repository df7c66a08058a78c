"""Tri-d (Victor Rules Space Chess) engine: start counts, one test per ruling (V1-V17), notation, draws,
diagram, CLI, and random games cross-checked against a naive move generator written from the spec
(tests/variants/judges.py), which shares no code with the engine beyond the stored-state format."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pbem.cli.main import main as cli_main
from pbem.cli.main import perft as generic_perft
from pbem.engine.base import Audience, Outcome, Seat, Transition
from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem.variants import get_variant
from pbem.variants.tri_d.engine import VARIANT, TriDChess
from pbem.variants.tri_d.geometry import geometry_for
from pbem.variants.tri_d.model import BOARD, PIN_INDEX, PINS, Move, TriDState
from tests.variants.judges import SPEC_TABLE, pin_cells, reference_moves, square_label, surfaces_of

ENGINE = TriDChess()

#: Spec 2.7: the 17 legal moves of the initial position (V3, V4, V6, V7).
START_MOVES = sorted([
    "Pb2(2)-b3(2)", "Pb2(2)-b4(2)", "Pc2(2)-c3(2)", "Pc2(2)-c4(2)",
    "Pd2(2)-d3(2)", "Pd2(2)-d4(2)", "Pe2(2)-e3(2)", "Pe2(2)-e4(2)",
    "Nb1(2)-c3(2)", "Nb1(2)-b3(4)", "Ne1(2)-d3(2)", "Ne1(2)-e3(4)",
    "Bc1(2)-c3(4)", "Bc1(2)-c5(6)", "Bd1(2)-d3(4)", "Bd1(2)-d5(6)",
    "O-O",
])

#: A piece that keeps a hand-made position from being a bare-kings draw (it plays no part).
FILLER = {"e7(6)": "p"}

#: Empty attack boards that fill a hand-made position up to four, owned by White unless said otherwise.
SPARE = {"b1(1)": "white", "e1(1)": "white"}


def engine_with(**options: str) -> TriDChess:
    engine = get_variant("tri-d", {key.replace("_", "-"): value for key, value in options.items()})
    assert isinstance(engine, TriDChess)
    return engine


def play(*moves: str, state: TriDState | None = None,
         engine: TriDChess = ENGINE) -> tuple[TriDState, list[Transition[TriDState]]]:
    """Play ``moves`` through parse_action and apply, as the server does."""
    state = engine.setup() if state is None else state
    transitions: list[Transition[TriDState]] = []
    for text in moves:
        transition = engine.apply(state, engine.parse_action(state, text))
        transitions.append(transition)
        state = transition.state
    return state, transitions


def canonical(state: TriDState, engine: TriDChess = ENGINE) -> list[str]:
    return sorted(engine.describe(state, action) for action in engine.legal_actions(state))


def position(pieces: dict[str, str], boards: dict[str, str], turn: str = "white", engine: TriDChess = ENGINE,
             **extra: Any) -> TriDState:
    """A hand-made position in the stored format: pieces by square (``*`` unmoved, ``^`` rook's pawn)."""
    data = {"format": "tri-d/1", "pieces": pieces, "turn": turn,
            "boards": [{"pin": pin, "owner": owner} for pin, owner in boards.items()],
            "rules": {"castle_on_first_move": True, "carried_double_step": True, "knight_two_routes": True}}
    data.update(extra)
    return engine.load(data)


def pieces_of(state: TriDState) -> dict[str, str]:
    return dict(ENGINE.dump(state)["pieces"])


def owners_of(state: TriDState) -> dict[str, str]:
    return {b["pin"]: b["owner"] for b in ENGINE.dump(state)["boards"]}


def mirror(move: str) -> str:
    """White's move as Black's mirror image: rank r -> 9 - r, level L -> 8 - L (spec 2.3)."""
    out = []
    i = 0
    while i < len(move):
        if move[i] in "abcdef" and i + 4 < len(move) and move[i + 2] == "(":
            out.append(f"{move[i]}{9 - int(move[i + 1])}({8 - int(move[i + 3])})")
            i += 5
        else:
            out.append(move[i])
            i += 1
    return "".join(out)


# -- registry, setup and counts -------------------------------------------------------------------


def test_registered_under_key_and_aliases() -> None:
    assert VARIANT is TriDChess
    for name in ("tri-d", "Victor", "STAR-TREK", "space-chess-victor"):
        assert isinstance(get_variant(name), TriDChess)
    assert TriDChess.rulings == tuple(f"V{n}" for n in range(1, 18))


def test_start_position_has_exactly_the_17_moves_of_the_spec_table() -> None:
    assert canonical(ENGINE.setup()) == START_MOVES


def test_black_has_17_moves_after_Pb2_b4() -> None:
    # Derivation: Black's start is White's mirror (spec 2.3), so Black has the mirror images of the
    # 17 moves of spec 2.7. White's pawn on b4(2) takes none of them away (no black piece's path
    # crosses b4(2)) and adds none: the skipped b3(2) could be taken en passant only by a black pawn on
    # a4/c4(2) or, by the vertical capture, on a3/c3(4); there is none. So 17, the mirrored list.
    state, _ = play("Pb2(2)-b4(2)")
    assert canonical(state) == sorted(mirror(m) for m in START_MOVES)
    assert len(canonical(state)) == 17


def test_perft_2_is_17_squared_minus_the_two_bishop_blocks() -> None:
    # 17 x 17 = 289, less 2: after Bc1(2)-c5(6) or Bd1(2)-d5(6) the bishop stands on the target of
    # Black's c7(6) or d7(6) double step. No other White first move touches Black's 17 moves.
    state = ENGINE.setup()
    assert ENGINE.perft(state, 1) == 17
    assert ENGINE.perft(state, 2) == 17 * 17 - 2
    after_bishop, _ = play("Bc1(2)-c5(6)")
    assert "Pc7(6)-c5(6)" not in canonical(after_bishop) and len(canonical(after_bishop)) == 16


def test_fast_perft_agrees_with_the_generic_apply_based_count() -> None:
    state = ENGINE.setup()
    assert ENGINE.perft(state, 3) == generic_perft(_Plain(), state, 3) == 5807
    midgame, _ = play("Nb1(2)-c3(2)", "Nb8(6)-c6(6)", "Qb0(1)-b3(4)", "Nc6(6)-b8(6)", "Pb2(2)-b4(2)",
                      "Nb8(6)-c6(6)", "Pb1(1)-b1(2)", "Nc6(6)-b8(6)", "Pb1(2)-b2(2)", "Nb8(6)-c6(6)",
                      "Ra0(1)-b0(1)", "Nc6(6)-b8(6)", "Rb0(1)-b1(1)", "Nb8(6)-c6(6)", "Rb1(1)-b1(2)",
                      "Nc6(6)-b8(6)", "@b1(1)-b4(1)", "Pe7(6)-e5(6)")
    assert ENGINE.perft(midgame, 2) == generic_perft(_Plain(), midgame, 2)


class _Plain(TriDChess):
    """The engine without its fast perft, so pbem.cli.perft takes the apply-based path."""

    perft = None  # type: ignore[assignment]


def test_setup_options_are_checked() -> None:
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        get_variant("tri-d", {"colour": "red"}).setup()
    with pytest.raises(ValueError, match="first-move-castling takes yes or no"):
        get_variant("tri-d", {"first-move-castling": "maybe"}).setup()
    with pytest.raises(ValueError, match="knight-routes takes both or destination"):
        get_variant("tri-d", {"knight-routes": "any"}).setup()
    assert get_variant("tri-d", {"first-move-castling": "yes"}).setup() == ENGINE.setup()


# -- one test per ruling --------------------------------------------------------------------------


def test_V1_adjacency_matches_the_spec_table_for_all_24_pins() -> None:
    from pbem.variants.tri_d.geometry import ADJACENT

    assert sorted(PIN_INDEX) == sorted(SPEC_TABLE)
    for name, (squares, adjacent) in SPEC_TABLE.items():
        pin = PINS[PIN_INDEX[name]]
        level = name[-2]
        assert sorted(f"{sq}({level})" for sq in squares.split()) == sorted(
            square_label(c) for c in pin.cells), name
        assert sorted(PINS[j].name for j in ADJACENT[PIN_INDEX[name]]) == sorted(adjacent.split()), name
    counts = sorted(len(adj.split()) for _, adj in SPEC_TABLE.values())
    assert counts.count(3) == 8 and counts.count(4) == 8 and counts.count(5) == 8


def test_V1_an_empty_attack_board_moves_to_every_free_adjacent_pin() -> None:
    state = position({"c2(2)": "K", "d7(6)": "k", **FILLER}, {"b3(3)": "white", "b6(3)": "white", "b1(1)": "black",
                                                     "e8(7)": "white"})
    moves = [m for m in canonical(state) if m.startswith("@b3(3)")]
    # b6(3) is taken by another board; e3(3), b3(5), b1(3), b4(3) are free.
    assert moves == sorted(f"@b3(3)-{p}" for p in ("e3(3)", "b3(5)", "b1(3)", "b4(3)"))
    with pytest.raises(IllegalMoveError, match="another attack board already stands at b6"):
        ENGINE.parse_action(state, "@b3(3)-b6(3)")
    after, _ = play("@b3(3)-b3(5)", state=state)
    assert "b3(5)" in owners_of(after) and "b3(3)" not in owners_of(after)


def test_V2_attack_boards_start_at_levels_1_and_7() -> None:
    assert owners_of(ENGINE.setup()) == {"b1(1)": "white", "e1(1)": "white", "b8(7)": "black",
                                         "e8(7)": "black"}


def test_V3_main_board_pawns_on_rank_2_and_pieces_on_rank_1() -> None:
    pieces = pieces_of(ENGINE.setup())
    assert [pieces[f"{f}2(2)"] for f in "bcde"] == ["P*"] * 4
    assert [pieces[f"{f}1(2)"] for f in "bcde"] == ["N", "B", "B", "N"]
    assert [pieces[f"{f}7(6)"] for f in "bcde"] == ["p*"] * 4
    assert [pieces[f"{f}8(6)"] for f in "bcde"] == ["n", "b", "b", "n"]
    # The seed's rook's-pawn example "a1(1) to b2(2), assuming the NP has moved" works this way.
    state, _ = play("Pb2(2)-b4(2)", "Pc7(6)-c6(6)")
    assert "Pa1(1)-b2(2)" in canonical(state)


def test_V4_the_pieces_on_the_attack_boards() -> None:
    pieces = pieces_of(ENGINE.setup())
    white = {sq: pieces[sq] for sq in pieces if sq.endswith("(1)")}
    assert white == {"a0(1)": "R*", "b0(1)": "Q", "e0(1)": "K*", "f0(1)": "R*",
                     "a1(1)": "P*^", "b1(1)": "P*", "e1(1)": "P*", "f1(1)": "P*^"}
    black = {sq: pieces[sq] for sq in pieces if sq.endswith("(7)")}
    assert black == {"a9(7)": "r*", "b9(7)": "q", "e9(7)": "k*", "f9(7)": "r*",
                     "a8(7)": "p*^", "b8(7)": "p*", "e8(7)": "p*", "f8(7)": "p*^"}
    assert len(pieces) == 32


def test_V5_rook_slides_any_distance_and_the_knight_example_is_ignored() -> None:
    boards = {"b1(3)": "white", "b3(3)": "white", "b4(3)": "white", "b6(3)": "white"}
    state = position({"a0(3)": "R", "c2(2)": "K", "d7(6)": "k"}, boards)
    rook = [m for m in canonical(state) if m.startswith("Ra0(3)")]
    assert "Ra0(3)-a7(3)" in rook  # seven ranks along level 3, beyond the seed's "R=1..5"
    assert "Ra0(3)-a0(7)" not in rook  # no surface there
    # "AB at b6(5): b3(4) -> b5(5)": b5(5) lies on no board at b6(5), so it is no move.
    knight = position({"b3(4)": "N", "c2(2)": "K", "d7(6)": "k"}, {"b6(5)": "white", **SPARE, "e8(7)": "black"})
    assert not any(m.startswith("Nb3(4)-b5(5)") for m in canonical(knight))
    with pytest.raises(IllegalMoveError, match=r"b5\(5\) is an implied position"):
        ENGINE.parse_action(knight, "Nb3(4)-b5(5)")


def test_V6_queenside_castling_needs_the_queen_gone() -> None:
    state, _ = play("Nb1(2)-c3(2)", "Nb8(6)-c6(6)")
    with pytest.raises(IllegalMoveError, match="queen's start square must be empty"):
        ENGINE.parse_action(state, "O-O-O")
    state, _ = play("Qb0(1)-b3(4)", "Nc6(6)-b8(6)", state=state)
    assert "O-O-O" in canonical(state)
    castled, transitions = play("O-O-O", state=state)
    assert transitions[0].record == "O-O-O"
    pieces = pieces_of(castled)
    assert pieces["b0(1)"] == "K" and pieces["e0(1)"] == "R" and "a0(1)" not in pieces


def test_V6_kingside_swaps_king_and_rook_and_is_legal_on_move_one() -> None:
    castled, _ = play("O-O")
    pieces = pieces_of(castled)
    assert pieces["f0(1)"] == "K" and pieces["e0(1)"] == "R"
    banned = engine_with(first_move_castling="no")
    start = banned.setup()
    assert len(canonical(start, banned)) == 16 and "O-O" not in canonical(start, banned)
    with pytest.raises(IllegalMoveError, match="not allowed as a first move"):
        banned.parse_action(start, "O-O")
    later, _ = play("Nb1(2)-c3(2)", "Nb8(6)-c6(6)", engine=banned, state=start)
    assert "O-O" in canonical(later, banned)


def test_V6_no_castling_after_the_king_has_moved_and_come_back() -> None:
    state, _ = play("Ne1(2)-d3(2)", "Nb8(6)-c6(6)", "Ke0(1)-e1(2)", "Nc6(6)-b8(6)", "Ke1(2)-e0(1)",
                    "Nb8(6)-c6(6)")
    assert "O-O" not in canonical(state)
    with pytest.raises(IllegalMoveError, match="your king has moved"):
        ENGINE.parse_action(state, "O-O")


def test_V6_no_castling_in_check_or_onto_an_attacked_square() -> None:
    base = {"e0(1)": "K*", "f0(1)": "R*", "d7(6)": "k"}
    boards = {"e1(1)": "white", "e4(1)": "black", "b8(7)": "black", "b1(1)": "white"}
    assert "O-O" in canonical(position(base, boards))
    attacked = position({**base, "f4(1)": "r"}, boards)  # down the f-file through implied f3, f2
    assert "O-O" not in canonical(attacked)
    with pytest.raises(IllegalMoveError, match="destination is attacked"):
        ENGINE.parse_action(attacked, "O-O")
    checked = position({**base, "e4(1)": "r"}, boards)
    assert ENGINE.view(checked, Seat.WHITE).status[1] == "White is in check."
    with pytest.raises(IllegalMoveError, match="cannot castle out of check"):
        ENGINE.parse_action(checked, "O-O")


def test_V7_knight_level_step_by_either_route() -> None:
    # No board at b1(3), one at b3(3): vertical first (at b1) skips to b3(4); horizontal first ends
    # on the board at b3(3). Both are moves; with knight-routes=destination only the second.
    pieces = {"b1(2)": "N", "e2(2)": "K", "d7(6)": "k"}
    boards = {"b3(3)": "white", **SPARE, "e8(7)": "black"}
    both = [m for m in canonical(position(pieces, boards)) if m.startswith("Nb1(2)-b3")]
    assert both == ["Nb1(2)-b3(3)", "Nb1(2)-b3(4)"]
    narrow = engine_with(knight_routes="destination")
    state = position(pieces, boards, engine=narrow, rules={"knight_two_routes": False})
    assert [m for m in canonical(state, narrow) if m.startswith("Nb1(2)-b3")] == ["Nb1(2)-b3(3)"]


def test_V8_vertical_diagonal_steps_look_at_the_destination_column() -> None:
    # A board at b1(3), none at c2(3): the king's up-and-diagonal step to b1 lands on the board.
    king = position({"c2(2)": "K", "d7(6)": "k", **FILLER}, {"b1(3)": "white", "e1(1)": "white", "b8(7)": "black",
                                                   "e8(7)": "black"})
    assert "Kc2(2)-b1(3)" in canonical(king)
    # The pawn's sideways-up capture: the board at b3(3) is in the destination column b2.
    pawn = position({"c2(2)": "P", "b2(3)": "n", "e1(2)": "K", "d7(6)": "k"},
                    {"b3(3)": "white", **SPARE, "e8(7)": "black"})
    assert "Pc2(2)xb2(3)" in canonical(pawn)


def test_V9_only_the_rook_s_pawn_has_the_diagonal_exception() -> None:
    state, _ = play("Pb2(2)-b4(2)", "Pb7(6)-b5(6)", "Pc2(2)-c4(2)", "Pc7(6)-c5(6)")
    moves = canonical(state)
    assert "Pa1(1)-b2(2)" in moves
    assert not any(m.startswith("Pb1(1)-c2") for m in moves)
    with pytest.raises(IllegalMoveError, match=r"the pawn on b1\(1\) cannot move to c2\(2\)"):
        ENGINE.parse_action(state, "Pb1(1)-c2(2)")


def test_V10_a_board_with_one_pawn_moves_and_the_pawn_keeps_its_cell() -> None:
    boards = {"b1(1)": "white", "e4(1)": "white", "b8(7)": "black", "e8(7)": "black"}
    kings = {"c2(2)": "K", "d7(6)": "k"}
    outer_file = position({**kings, "a1(1)": "P"}, boards)
    assert {m for m in canonical(outer_file) if m.startswith("@b1(1)")} == {"@b1(1)-e1(1)", "@b1(1)-b4(1)",
                                                                         "@b1(1)-b1(3)"}
    after, _ = play("@b1(1)-e1(1)", state=outer_file)
    assert pieces_of(after)["f1(1)"] == "P"  # outer file to outer file; a rigid shift would give d1
    after, _ = play("@b1(1)-b1(3)", state=outer_file)  # inversion with a pawn aboard
    assert pieces_of(after)["a1(3)"] == "P"
    outer_rank = position({**kings, "b0(1)": "P"}, boards)
    after, _ = play("@b1(1)-b4(1)", state=outer_rank)
    assert pieces_of(after)["b5(1)"] == "P"  # outer rank 0 to outer rank 5; a rigid shift gives b3
    two = position({**kings, "a1(1)": "P", "b1(1)": "P"}, boards)
    with pytest.raises(IllegalMoveError, match="carries 2 pieces"):
        ENGINE.parse_action(two, "@b1(1)-b1(3)")


def test_V10_a_carried_pawn_promotes_on_arrival() -> None:
    state = position({"a7(5)": "P", "c2(2)": "K", "d5(4)": "k"},
                     {"b6(5)": "white", **SPARE, "e8(7)": "black"})
    moves = [m for m in canonical(state) if m.startswith("@b6(5)-b8(5)")]
    assert moves == ["@b6(5)-b8(5)=B", "@b6(5)-b8(5)=N", "@b6(5)-b8(5)=Q", "@b6(5)-b8(5)=R"]
    assert "@b6(5)-b6(3)" in canonical(state)
    with pytest.raises(AmbiguousMoveError, match="promotes to"):
        ENGINE.parse_action(state, "@b6(5)-b8(5)")
    after, transitions = play("@b6(5)-b8(5)=Q", state=state)
    assert pieces_of(after)["a9(5)"] == "Q"
    assert transitions[0].record.startswith("@b6(5)-b8(5)=Q")
    assert after.halfmove == 0  # a promotion is irreversible


def test_V11_a_carried_pawn_keeps_its_double_step() -> None:
    pieces = {"e1(1)": "P*", "c2(2)": "K", "d7(6)": "k"}
    boards = {"e1(1)": "white", "e3(3)": "white", "b8(7)": "black", "b1(1)": "white"}
    state, _ = play("@e1(1)-e1(3)", "Kd7(6)-c7(6)", state=position(pieces, boards))
    assert {"Pe1(3)-e2(3)", "Pe1(3)-e3(3)"} <= set(canonical(state))
    meder = engine_with(carried_double_step="no")
    start = position(pieces, boards, engine=meder, rules={"carried_double_step": False})
    state, _ = play("@e1(1)-e1(3)", "Kd7(6)-c7(6)", state=start, engine=meder)
    moves = canonical(state, meder)
    assert "Pe1(3)-e2(3)" in moves and "Pe1(3)-e3(3)" not in moves


def test_V12_a_board_passes_to_the_side_whose_pieces_alone_stand_on_it() -> None:
    state = position({"e4(1)": "P", "e2(2)": "n", "b3(4)": "K", "e6(6)": "k"},
                     {"e4(1)": "white", "b1(1)": "white", "e1(1)": "white", "e8(7)": "black"}, turn="black")
    state, transitions = play("Ne2(2)xe4(1)", state=state)  # two ranks and one level down onto the board
    assert owners_of(state)["e4(1)"] == "black"
    assert any("e4(1) now belongs to Black" in n.text for n in transitions[0].notes)
    state, _ = play("Kb3(4)-b4(4)", "Ne4(1)-e2(2)", state=state)
    assert owners_of(state)["e4(1)"] == "black"  # empty now, and it keeps its last owner
    with pytest.raises(IllegalMoveError, match=r"the attack board at e4\(1\) belongs to Black"):
        ENGINE.parse_action(state, "@e4(1)-b4(1)")
    state, _ = play("Kb4(4)-b3(4)", state=state)
    assert "@e4(1)-b4(1)" in canonical(state)


def test_V13_check_through_implied_positions() -> None:
    state = position({"e2(2)": "B", "b1(2)": "K", "d3(4)": "k"}, {**SPARE, "b8(7)": "black", "e8(7)": "black"})
    after, transitions = play("Be2(2)-d1(2)", state=state)
    assert transitions[0].record == "Be2(2)-d1(2)+"  # d1(2) -> d2(3) implied -> d3(4)
    assert ENGINE.view(after, Audience.PUBLIC).status[1] == "Black is in check."
    # Every answer leaves the (R,L) diagonal through the implied position, and d4(5)... stays barred.
    assert "Kd3(4)-d4(4)" in canonical(after) and "Kd3(4)-c3(4)" in canonical(after)
    assert not any(m.endswith("d3(4)") for m in canonical(after))


def test_V14_an_attack_board_on_rank_8_is_no_promotion_square() -> None:
    state = position({"a7(5)": "P", "c2(2)": "K", "d5(4)": "k"},
                     {"b6(5)": "white", "b8(5)": "white", "b1(1)": "white", "e8(7)": "black"})
    assert "Pa7(5)-a8(5)" in canonical(state)
    assert not any(m.startswith("Pa7(5)-a8(5)=") for m in canonical(state))
    state, _ = play("Pa7(5)-a8(5)", "Kd5(4)-d4(4)", state=state)
    assert [m for m in canonical(state) if m.startswith("Pa8(5)")] == [
        "Pa8(5)-a9(5)=B", "Pa8(5)-a9(5)=N", "Pa8(5)-a9(5)=Q", "Pa8(5)-a9(5)=R"]


def test_V15_a_board_changes_level_only_by_inversion() -> None:
    state = position({"c2(2)": "K", "d7(6)": "k", **FILLER}, {"b3(3)": "white", **SPARE, "e8(7)": "black"})
    for text in canonical(state):
        if text.startswith("@b3(3)-"):
            target = text[len("@b3(3)-"):]
            assert target[-2] == "3" or target == "b3(5)", text
    with pytest.raises(IllegalMoveError, match=r"b5\(5\) is not adjacent to b3\(3\)"):
        ENGINE.parse_action(state, "@b3(3)-b5(5)")


def test_V16_rook_s_pawn_moves_diagonally_onto_the_main_board() -> None:
    assert "Pa1(1)-b2(2)" not in canonical(ENGINE.setup())  # the knight's pawn stands there
    state, _ = play("Pb2(2)-b4(2)", "Pe7(6)-e5(6)", "Pa1(1)-b2(2)")
    assert "Pf8(7)-e7(6)" in canonical(state)  # Black's mirror: inward, forward, down
    state, _ = play("Pf8(7)-e7(6)", state=state)
    assert pieces_of(state)["e7(6)"] == "p^"
    # Never a capture: an enemy on b2(2) blocks it.
    blocked = position({"a1(1)": "P^", "b2(2)": "n", "c3(2)": "K", "d7(6)": "k"},
                       {"b1(1)": "white", "e1(1)": "white", "b8(7)": "black", "e8(7)": "black"})
    assert not any(m.startswith("Pa1(1)") for m in canonical(blocked))


def test_V17_a_promoted_rook_never_castles() -> None:
    boards = {"e1(1)": "white", "e4(1)": "white", "e5(7)": "white", "e8(7)": "white"}
    state = position({"e0(1)": "K*", "f8(7)": "P", "d5(4)": "k"}, boards)
    state, _ = play("Pf8(7)-f9(7)=R", "Kd5(4)-d6(4)", "Rf9(7)-f4(7)", "Kd6(4)-d5(4)", "Rf4(7)-f4(1)",
                    "Kd5(4)-d6(4)", "Rf4(1)-f0(1)", "Kd6(4)-d5(4)", state=state)
    assert pieces_of(state)["f0(1)"] == "R" and pieces_of(state)["e0(1)"] == "K*"
    assert "O-O" not in canonical(state)
    with pytest.raises(IllegalMoveError, match="a promoted rook never castles"):
        ENGINE.parse_action(state, "O-O")
    original = position({"e0(1)": "K*", "f0(1)": "R*", "d5(4)": "k"}, boards)
    assert "O-O" in canonical(original)


# -- pawns ----------------------------------------------------------------------------------------


def test_en_passant_in_both_capture_geometries() -> None:
    waits = ["Ne1(2)-d3(2)", "Nd3(2)-e1(2)"] * 3
    descent = ["Pc7(6)-c6(6)", "Pc6(6)-c6(4)", "Pc6(4)-c5(4)", "Pc5(4)-c4(4)"]
    # Same level: Black's pawn has come down to c4(2); White's b-pawn double-steps past it.
    flat, _ = play(*_interleave(waits, [*descent, "Pc4(4)-c4(2)"]), "Pb2(2)-b4(2)")
    assert "Pc4(2)xb3(2)ep" in canonical(flat)
    taken, transitions = play("Pc4(2)xb3(2)ep", state=flat)
    assert transitions[0].record == "Pc4(2)xb3(2)ep"
    assert "b4(2)" not in pieces_of(taken) and pieces_of(taken)["b3(2)"] == "p"
    assert taken.halfmove == 0
    # Sideways and down: a black pawn on c3(4) takes on b3(2), the level between having no board.
    vertical, _ = play(*_interleave(waits, [*descent, "Pc4(4)-c3(4)"]), "Pb2(2)-b4(2)")
    assert "Pc3(4)xb3(2)ep" in canonical(vertical)
    assert ENGINE.parse_action(vertical, "c3(4)xb3(2)") == ENGINE.parse_action(vertical, "Pc3(4)xb3(2)ep")
    taken, _ = play("Pc3(4)xb3(2)ep", state=vertical)
    assert "b4(2)" not in pieces_of(taken) and pieces_of(taken)["b3(2)"] == "p"
    # The right lapses after one move.
    later, _ = play("Nb8(6)-c6(6)", "Nd3(2)-e1(2)", state=vertical)
    assert not any(m.endswith("ep") for m in canonical(later))


def _interleave(white: list[str], black: list[str]) -> list[str]:
    return [move for pair in zip(white, black, strict=False) for move in pair]


def test_promotion_on_main_board_rank_8() -> None:
    state = position({"c7(6)": "P", "b3(2)": "K", "e3(4)": "k"}, {**SPARE, "b8(7)": "black", "e8(7)": "black"})
    assert [m for m in canonical(state) if m.startswith("Pc7(6)")] == [
        "Pc7(6)-c8(6)=B", "Pc7(6)-c8(6)=N", "Pc7(6)-c8(6)=Q", "Pc7(6)-c8(6)=R"]
    with pytest.raises(AmbiguousMoveError):
        ENGINE.parse_action(state, "Pc7(6)-c8(6)")
    after, transitions = play("c7(6)-c8(6)=n", state=state)
    assert pieces_of(after)["c8(6)"] == "N" and transitions[0].record == "Pc7(6)-c8(6)=N"


# -- results and draws ----------------------------------------------------------------------------


MATE_BOARDS = {"b8(7)": "white", "b5(7)": "white", "e8(7)": "black", "b1(1)": "white"}


def test_checkmate_along_an_attack_board_rank_through_implied_squares() -> None:
    # Rank 9 from a9(7) to f9(7) crosses the implied c9(7) and d9(7); the rook on b8(7) holds rank 8
    # the same way and the queen holds e8(6), the king's way down.
    state = position({"a4(7)": "R", "b8(7)": "R", "e6(6)": "Q", "b1(2)": "K", "f9(7)": "k"}, MATE_BOARDS)
    after, transitions = play("Ra4(7)-a9(7)", state=state)
    assert transitions[0].record == "Ra4(7)-a9(7)#"
    assert ENGINE.outcome(after) == Outcome.win(Seat.WHITE, "checkmate")
    assert ENGINE.to_act(after) is None and list(ENGINE.legal_actions(after)) == []
    assert ENGINE.view(after, Audience.PUBLIC).status == ("Game over: 1-0 (checkmate).",)
    with pytest.raises(IllegalMoveError, match="the game is over"):
        ENGINE.apply(after, Move(0, 0, 0))


def test_stalemate_is_a_draw_but_a_movable_board_is_a_move() -> None:
    pieces = {"b8(7)": "R", "c8(6)": "Q", "e7(6)": "N", "b1(2)": "K", "f9(7)": "k"}
    boards = {"b8(7)": "white", "e8(7)": "black", "b1(1)": "white", "e1(1)": "white"}
    state = position(pieces, boards, turn="black")
    assert ENGINE.outcome(state) == Outcome.draw("stalemate")
    owns_empty_board = position(pieces, {**boards, "b1(1)": "black"}, turn="black")
    assert ENGINE.outcome(owns_empty_board) is None
    assert canonical(owns_empty_board) == ["@b1(1)-b1(3)", "@b1(1)-b4(1)"]


def test_bare_kings_end_the_game() -> None:
    state = position({"b1(2)": "K", "e6(6)": "k"}, {**SPARE, "b8(7)": "black", "e8(7)": "black"})
    assert ENGINE.outcome(state) == Outcome.draw("insufficient material (only the kings are left)")


def test_fifty_move_claim_and_seventy_five_move_end() -> None:
    pieces = {"b1(2)": "K", "e6(6)": "k", "c3(4)": "N"}
    boards = {**SPARE, "b8(7)": "black", "e8(7)": "black"}
    state, _ = play("Nc3(4)-d5(4)", state=position(pieces, boards, halfmove=99))
    assert ENGINE.claim_draw(state) == Outcome.draw("50-move rule") and ENGINE.outcome(state) is None
    state, _ = play("Nc3(4)-d5(4)", state=position(pieces, boards, halfmove=149))
    assert ENGINE.outcome(state) == Outcome.draw("75-move rule")
    assert list(ENGINE.legal_actions(state)) == []
    # Attack-board moves count as quiet moves (no pawn moves, nothing is captured).
    quiet, _ = play("@b1(1)-b4(1)", state=position(pieces, boards, halfmove=10))
    assert quiet.halfmove == 11


def test_threefold_claim_and_fivefold_end() -> None:
    shuffle = ("Nb1(2)-c3(2)", "Nb8(6)-c6(6)", "Nc3(2)-b1(2)", "Nc6(6)-b8(6)")
    state, _ = play(*shuffle)
    assert ENGINE.claim_draw(state) is None
    state, _ = play(*shuffle, state=state)
    assert ENGINE.claim_draw(state) == Outcome.draw("threefold repetition")
    assert ENGINE.outcome(state) is None
    state, _ = play(*shuffle, *shuffle, state=state)
    assert ENGINE.outcome(state) == Outcome.draw("fivefold repetition")
    assert ENGINE.to_act(state) is None


# -- notation -------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Nb1(2)-b3(4)", "nb1(2)-b3(4)", "NB1(2)-B3(4)", "b1(2)-b3(4)", "b1(2)b3(4)", "Nb1(2)xb3(4)",
    "1. Nb1(2)-b3(4)", "1... Nb1(2)-b3(4)", "Nb1(2)-b3(4)+", "N b1(2) - b3(4)", "Nb1 (2)-b3 (4)!?",
    "Nb1(2)-b3(4) // develop",
])
def test_many_spellings_of_one_move(text: str) -> None:
    state = ENGINE.setup()
    assert ENGINE.describe(state, ENGINE.parse_action(state, text)) == "Nb1(2)-b3(4)"


@pytest.mark.parametrize("text", ["O-O", "o-o", "0-0", "OO"])
def test_castling_spellings(text: str) -> None:
    assert ENGINE.describe(ENGINE.setup(), ENGINE.parse_action(ENGINE.setup(), text)) == "O-O"


def test_spec_notation_examples() -> None:
    _state, transitions = play("Pb2(2)-b4(2)", "Pc7(6)-c6(6)", "Nb1(2)-b3(4)", "Pc6(6)-c5(6)", "Bc1(2)-c5(6)")
    assert [t.record for t in transitions] == ["Pb2(2)-b4(2)", "Pc7(6)-c6(6)", "Nb1(2)-b3(4)",
                                               "Pc6(6)-c5(6)", "Bc1(2)xc5(6)"]
    queen = position({"c3(2)": "Q", "c5(4)": "n", "b1(2)": "K", "e6(6)": "k"},
                     {**SPARE, "b8(7)": "black", "e8(7)": "black"})
    assert "Qc3(2)xc5(4)" in canonical(queen)  # an (R,L) diagonal through implied c4(3)


def test_error_messages_say_why() -> None:
    start = ENGINE.setup()
    cases = {
        "hello": (InvalidMoveError, "not a move"),
        "Pb2(2)-b4(9)": (InvalidMoveError, "files run a-f, ranks 0-9, levels 1-7"),
        "Kb2(2)-b4(2)": (IllegalMoveError, "there is a pawn on b2(2), not a king"),
        "Pb3(1)-b4(1)": (IllegalMoveError, "b3(1) is an implied position"),
        "Pc3(2)-c4(2)": (IllegalMoveError, "there is no piece on c3(2)"),
        "Pb7(6)-b5(6)": (IllegalMoveError, "the pawn on b7(6) is Black's, not yours"),
        "Nb1(2)-c1(2)": (IllegalMoveError, "occupied by your own bishop"),
        "Nb1(2)-b5(2)": (IllegalMoveError, "b5(2) is an implied position"),
        "Nb1(2)-d3(4)": (IllegalMoveError, "its legal moves go to b3(4), c3(2)"),
        "Ra0(1)-a1(1)": (IllegalMoveError, "occupied by your own pawn"),
        "Qb0(1)-c0(1)": (IllegalMoveError, "c0(1) is an implied position"),
        "O-O-O": (IllegalMoveError, "queen's start square must be empty"),
        "@b1(1)-b1(3)": (IllegalMoveError, "carries 4 pieces"),
        "@b8(7)-b8(5)": (IllegalMoveError, "belongs to Black"),
        "@b4(1)-b1(3)": (IllegalMoveError, "there is no attack board at b4(1)"),
        "@c1(1)-b1(3)": (InvalidMoveError, "c1(1) is not a pin position"),
        "@b1(1)": (InvalidMoveError, "names two pins"),
        "": (InvalidMoveError, "no move found"),
    }
    for text, (kind, words) in cases.items():
        with pytest.raises(kind) as raised:
            ENGINE.parse_action(start, text)
        assert words in str(raised.value), (text, str(raised.value))
    checked = position({"e0(1)": "K", "e4(1)": "r", "d7(6)": "k"},
                       {"e1(1)": "white", "e4(1)": "black", "b1(1)": "white", "b8(7)": "black"})
    with pytest.raises(IllegalMoveError, match="your king is in check and this move does not end the check"):
        ENGINE.parse_action(checked, "@b1(1)-b4(1)")


def test_apply_refuses_an_illegal_move_object_with_a_reason() -> None:
    start = ENGINE.setup()
    with pytest.raises(IllegalMoveError, match="carries 4 pieces"):
        ENGINE.apply(start, Move(BOARD, PIN_INDEX["b1(1)"], PIN_INDEX["b1(3)"]))


# -- views, help, storage, CLI --------------------------------------------------------------------


def test_diagram_stacks_the_boards_with_attack_boards_beside_their_pins() -> None:
    view = ENGINE.view(ENGINE.setup(), Seat.WHITE)
    lines = view.diagram.splitlines()
    assert max(len(line) for line in lines) <= 72
    assert [line for line in lines if "= level" in line] == [
        "B = level 6, Black's board", "N = level 4, neutral", "W = level 2, White's board"]
    assert [line for line in lines if "attack boards:" in line] == [
        "  attack boards: b8(7) Black, e8(7) Black", "  attack boards: none",
        "  attack boards: b1(1) White, e1(1) White"]
    rows = [line for line in lines if line.startswith("  9 ")]
    assert rows == ["  9    r q                       k r    9"]
    assert "  1         P P   N B B N   P P         1" in lines
    assert "  0         R Q             K R         0" in lines
    assert view.diagram == ENGINE.view(ENGINE.setup(), Seat.BLACK).diagram
    assert view.status == ("White to move (move 1).",)
    # After an attack-board move the board is drawn beside its new pin (inverted: level 3 column).
    moved, _ = play("@b1(1)-b1(3)", state=position({"a1(1)": "P", "c2(2)": "K", "d7(6)": "k"}, {
        "b1(1)": "white", "e4(1)": "white", "b8(7)": "black", "e8(7)": "black"}))
    lines = ENGINE.view(moved, Audience.PUBLIC).diagram.splitlines()
    assert "  1    P .        . . . .               1" in lines
    assert "  attack boards: e4(1) White, b1(3) White" in lines


def test_help_text_lists_every_ruling_and_the_notation() -> None:
    text = ENGINE.help_text()
    for ruling in TriDChess.rulings:
        assert f"  {ruling}: " in text
    for example in ("Nb1(2)-b3(4)", "@b1(1)-b1(3)", "@b6(5)-b8(5)=Q", "O-O-O", "Pd5(6)xe6(6)ep"):
        assert example in text
    assert max(len(line) for line in text.splitlines()) <= 78


def test_dump_load_round_trip_and_bad_data() -> None:
    state, _ = play("Pb2(2)-b4(2)", "Pc7(6)-c5(6)")
    assert ENGINE.load(ENGINE.dump(state)) == state
    data = ENGINE.dump(state)
    with pytest.raises(ValueError, match="no surface"):
        ENGINE.load({**data, "pieces": {**data["pieces"], "c0(1)": "Q"}})
    with pytest.raises(ValueError, match="exactly one king"):
        ENGINE.load({**data, "pieces": {k: v for k, v in data["pieces"].items() if v != "k*"}})
    with pytest.raises(ValueError, match="format"):
        ENGINE.load({"format": "hyperspace-chess/1"})


def test_cli_moves_show_and_perft(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["moves", "tri-d"]) == 0
    assert capsys.readouterr().out.split() == START_MOVES
    assert cli_main(["show", "victor", "Pb2(2)-b4(2)"]) == 0
    out = capsys.readouterr().out
    assert "W = level 2" in out and "Black to move (move 1)." in out
    assert cli_main(["perft", "tri-d", "2"]) == 0
    assert capsys.readouterr().out.split()[-1] == "287"
    assert cli_main(["moves", "tri-d", "Pb2(2)-b5(2)"]) == 1


# -- random games against the naive reference -----------------------------------------------------


def test_random_games_never_raise_round_trip_and_keep_the_invariants() -> None:
    rng = random.Random(20240604)
    plies = board_moves = 0
    for game in range(22):
        state = ENGINE.setup()
        for ply in range(140):
            actions = list(ENGINE.legal_actions(state))
            _check_invariants(state)
            if ply % 11 == game % 11:
                assert sorted(ENGINE.describe(state, a) for a in actions) == sorted(reference_moves(state)), (
                    game, ply)
            for action in actions:
                text = ENGINE.describe(state, action)
                assert ENGINE.parse_action(state, text) == action, text
                assert ENGINE.parse_action(state, text.lower()) == action, text
            assert ENGINE.load(ENGINE.dump(state)) == state
            if not actions:
                assert ENGINE.outcome(state) is not None
                break
            # Prefer attack-board moves now and then, so that the board geometry really changes.
            boards = [a for a in actions if a.kind == BOARD]
            action = rng.choice(boards if boards and rng.random() < 0.5 else actions)
            transition = ENGINE.apply(state, action)
            board_moves += action.kind == BOARD
            assert transition.record.endswith(("+", "#")) == _in_check(transition.state)
            state = transition.state
            plies += 1
    assert plies > 2500 and board_moves > 100


def _in_check(state: TriDState) -> bool:
    from pbem.variants.tri_d.rules import in_check

    return in_check(state)


def _check_invariants(state: TriDState) -> None:
    data = ENGINE.dump(state)
    surfaces = surfaces_of(owners_of(state))
    assert set(data["pieces"]) <= surfaces
    assert sorted(v.lower().rstrip("*") for v in data["pieces"].values()).count("k") == 2
    assert len(data["boards"]) == 4
    for pin, owner in owners_of(state).items():
        colours = {("white" if v[0].isupper() else "black") for sq, v in data["pieces"].items()
                   if sq in pin_cells(pin)}
        if len(colours) == 1:
            assert colours == {owner}, (pin, owner)  # V12
    for square, piece in data["pieces"].items():
        if piece[0] in "Pp":
            last = ("8", "9") if piece[0] == "P" else ("1", "0")
            rank, level = square[1], int(square[3])
            assert not (rank == last[1] or (rank == last[0] and level % 2 == 0)), (square, piece)
    geo = geometry_for(tuple(sorted(PIN_INDEX[p] for p in owners_of(state))))
    assert {square_label(p) for p in geo.squares} == surfaces


# -- the naive reference (tests/variants/judges.py), written from spec 2.2-2.4 --------------------


def test_reference_agrees_at_the_start_and_in_hand_made_positions() -> None:
    assert sorted(reference_moves(ENGINE.setup())) == START_MOVES
    samples = [
        position({"a7(5)": "P", "c2(2)": "K", "d5(4)": "k"}, {"b6(5)": "white", **SPARE, "e8(7)": "black"}),
        position({"c2(2)": "K", "b2(3)": "n", "d7(6)": "k", "b1(2)": "N"},
                 {"b3(3)": "white", **SPARE, "e8(7)": "black"}),
        position({"e0(1)": "K*", "f0(1)": "R*", "a0(1)": "R*", "d7(6)": "k", "f4(1)": "r"},
                 {"e1(1)": "white", "e4(1)": "black", "b8(7)": "black", "b1(1)": "white"}),
    ]
    for state in samples:
        assert canonical(state) == sorted(reference_moves(state))
