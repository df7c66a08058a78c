"""Space Chess engine: start counts, one test per ruling (S1-S16), notation, draws, CLI, and random games
cross-checked against an independent naive move generator written from the spec (bottom of this file)."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field

import pytest

from pbem.cli.main import main as cli_main
from pbem.cli.main import perft as generic_perft
from pbem.engine.base import Audience, Outcome, Seat, Transition
from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, MoveError
from pbem.variants import get_variant
from pbem.variants.space_chess.engine import VARIANT, SpaceChess
from pbem.variants.space_chess.model import Move, SpaceState

ENGINE = SpaceChess()

#: Spec 3.7: the 26 moves of the initial position (S1, S3, S4, S7).
START_MOVES = sorted([
    "Pa2(1)-a3(2)", "Pa2(1)-a4(2)", "Pb2(1)-b3(2)", "Pb2(1)-b4(2)", "Pc2(1)-c3(2)", "Pc2(1)-c4(2)",
    "Pd2(1)-d3(2)", "Pd2(1)-d4(2)", "Pe2(1)-e3(2)", "Pe2(1)-e4(2)", "Pf2(1)-f3(2)", "Pf2(1)-f4(2)",
    "Pg2(1)-g3(2)", "Pg2(1)-g4(2)", "Ph2(1)-h3(2)", "Ph2(1)-h4(2)",
    "Pc2(1)-c3(3)", "Pf2(1)-f3(3)", "Pd2(1)-d4(3)", "Pe2(1)-e4(3)",
    "Nb1(1)-a3(2)", "Nb1(1)-c3(2)", "Nb1(1)-c3(3)",
    "Ng1(1)-h3(2)", "Ng1(1)-f3(2)", "Ng1(1)-f3(3)",
])


def engine_with(**options: str) -> SpaceChess:
    engine = get_variant("space-chess", {key.replace("_", "-"): value for key, value in options.items()})
    assert isinstance(engine, SpaceChess)
    return engine


def play(*moves: str, state: SpaceState | None = None,
         engine: SpaceChess = ENGINE) -> tuple[SpaceState, list[Transition[SpaceState]]]:
    """Play ``moves`` through parse_action and apply, as the server does."""
    state = engine.setup() if state is None else state
    transitions: list[Transition[SpaceState]] = []
    for text in moves:
        transition = engine.apply(state, engine.parse_action(state, text))
        transitions.append(transition)
        state = transition.state
    return state, transitions


def canonical(state: SpaceState, engine: SpaceChess = ENGINE) -> list[str]:
    return sorted(engine.describe(state, action) for action in engine.legal_actions(state))


def moves_from(state: SpaceState, prefix: str, engine: SpaceChess = ENGINE) -> list[str]:
    return [text for text in canonical(state, engine) if text.startswith(prefix)]


def piece_on(state: SpaceState, name: str) -> str:
    """The letter on a square such as 'e4(2)' ('.' when empty), read from the storage form."""
    level = int(name[3]) - 1
    index = (int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])
    return str(ENGINE.dump(state)["levels"][level][index])


def positioned(pieces: dict[str, str], *, turn: str = "white", unmoved: tuple[str, ...] = (),
               halfmove: int = 0, options: dict[str, str] | None = None, ep: str | None = None,
               engine: SpaceChess = ENGINE) -> SpaceState:
    """A position through the documented storage form (see model.dump_state): square -> letter."""
    levels = [["."] * 64 for _ in range(3)]
    for name, letter in pieces.items():
        levels[int(name[3]) - 1][(int(name[1]) - 1) * 8 + "abcdefgh".index(name[0])] = letter
    defaults = engine.dump(engine.setup())["options"]
    return engine.load({
        "format": "space-chess/1", "levels": ["".join(level) for level in levels], "turn": turn,
        "unmoved": list(unmoved), "ep": ep, "halfmove": halfmove, "fullmove": 30,
        "options": {**defaults, **(options or {})}, "history": [],
    })


# -- registry, start position, options ------------------------------------------------------------


def test_registered_under_key_and_alias() -> None:
    assert VARIANT is SpaceChess
    assert isinstance(get_variant("space-chess"), SpaceChess)
    assert isinstance(get_variant("Chessex"), SpaceChess)
    assert SpaceChess.title == "Space Chess"
    assert SpaceChess.rulings == tuple(f"S{n}" for n in range(1, 17))


def test_start_position_has_the_26_moves_of_the_table() -> None:
    start = ENGINE.setup()
    assert canonical(start) == START_MOVES
    assert len(START_MOVES) == 26
    # Black's answer to a quiet move is the mirror image: 26 as well.
    after, _ = play("Pa2(1)-a3(2)")
    black = canonical(after)
    assert len(black) == 26
    assert "Ng8(3)-f6(1)" in black and "Pe7(3)-e5(1)" in black and "Pd7(3)-d5(2)" in black


@pytest.mark.parametrize(("options", "count", "gone"), [
    ({}, 26, []),
    ({"centre_star": "no"}, 24, ["Pd2(1)-d4(3)", "Pe2(1)-e4(3)"]),
    ({"two_level": "pawns"}, 24, ["Nb1(1)-c3(3)", "Ng1(1)-f3(3)"]),
    ({"centre_star": "no", "two_level": "pawns"}, 22,
     ["Nb1(1)-c3(3)", "Ng1(1)-f3(3)", "Pd2(1)-d4(3)", "Pe2(1)-e4(3)"]),
    ({"promotion": "enemy-level"}, 26, []),
    ({"first_move_stay": "in-check"}, 26, []),
])
def test_option_dependent_start_counts_of_spec_3_7(options: dict[str, str], count: int, gone: list[str]) -> None:
    engine = engine_with(**options)
    moves = canonical(engine.setup(), engine)
    assert len(moves) == count
    assert sorted(set(START_MOVES) - set(moves)) == sorted(gone)
    assert set(moves) <= set(START_MOVES)


def test_options_are_validated_stored_and_shown() -> None:
    with pytest.raises(ValueError, match=r"unknown option 'colour'.*promotion, first-move-stay"):
        get_variant("space-chess", {"colour": "red"}).setup()
    with pytest.raises(ValueError, match="bad value 'top' for option promotion: use any-level or enemy-level"):
        get_variant("space-chess", {"promotion": "top"}).setup()
    with pytest.raises(ValueError, match="last-resort or in-check"):
        get_variant("space-chess", {"first-move-stay": "maybe"}).setup()
    state = get_variant("space-chess", {"Promotion": "Enemy-Level", "center-star": "no"}).setup()
    assert state.options.promotion == "enemy-level" and state.options.centre_star == "no"
    assert ENGINE.load(ENGINE.dump(state)) == state
    status = ENGINE.view(state, Audience.PUBLIC).status
    assert "Options: promotion=enemy-level, centre-star=no (see 'help space-chess')." in status
    assert not any(line.startswith("Options") for line in ENGINE.view(ENGINE.setup(), Seat.WHITE).status)
    # The engine's own options (from get_variant, as the server builds it) apply too.
    assert engine_with(promotion="enemy-level").setup().options.promotion == "enemy-level"


def test_help_names_every_ruling_option_and_notation_example() -> None:
    text = ENGINE.help_text()
    for n in range(1, 17):
        assert f"  S{n}: " in text
    for needle in ("promotion=any-level|enemy-level", "first-move-stay=last-resort|in-check",
                   "centre-star=yes|no", "two-level=all|pawns", "Pe2(1)-e4(2)", "Pc2(1)-c3(3)", "O-O(2)",
                   "e4B = e4(2)", "challenge bob space-chess option promotion=enemy-level"):
        assert needle in text
    # The record example in the help is a real game.
    _, transitions = play("Pe2(1)-e4(2)", "Pd7(3)-d5(2)", "Pe4(2)xd5(2)", "Qd8(3)-d5(1)")
    first, second, third, fourth = (t.record for t in transitions)
    assert f"1. {first} {second} 2. {third} {fourth} ..." in text


# -- rulings ---------------------------------------------------------------------------------------


def test_S1_centre_squares_are_stars() -> None:
    start = ENGINE.setup()
    assert "Pd2(1)-d4(3)" in canonical(start) and "Pe2(1)-e4(3)" in canonical(start)
    # A later move ending on d5, e4 ... may transfer: the e-pawn on e4(2) takes on d5(2) and may leave.
    state, _ = play("Pe2(1)-e4(2)", "Pd7(3)-d5(2)")
    assert moves_from(state, "Pe4(2)x") == ["Pe4(2)xd5(1)", "Pe4(2)xd5(2)", "Pe4(2)xd5(3)"]
    no_centre = engine_with(centre_star="no")
    state, _ = play("Pe2(1)-e4(2)", "Pd7(3)-d5(2)", engine=no_centre)
    assert moves_from(state, "Pe4(2)x", no_centre) == ["Pe4(2)xd5(2)"]
    assert "*" in ENGINE.view(start, Audience.PUBLIC).diagram.splitlines()[5]  # d4/e4 on rank 4
    rank4 = no_centre.view(no_centre.setup(), Audience.PUBLIC).diagram.splitlines()[6]
    assert rank4.startswith("4 . . . . . . . .")


def test_S2_markings_on_every_level() -> None:
    # The seed's example: a rook on top-level a3 moves to the star c3 and may go to c3(2) or c3(1).
    state = positioned({"a3(3)": "R", "e1(1)": "K", "e8(3)": "k"})
    assert moves_from(state, "Ra3(3)-c3") == ["Ra3(3)-c3(1)", "Ra3(3)-c3(2)", "Ra3(3)-c3(3)"]
    assert moves_from(state, "Ra3(3)-b3") == ["Ra3(3)-b3(3)"]
    # Reached by play, a star on level 1 (king on f3(1)) and on level 3 (knight on e5(3)).
    state, _ = play("Pe2(1)-e4(2)", "Pa7(3)-a6(2)", "Bf1(1)-c4(2)", "Pb7(3)-b6(2)", "Ke1(1)-e2(1)",
                    "Pc7(3)-c6(2)")
    assert moves_from(state, "Ke2(1)-f3") == ["Ke2(1)-f3(1)", "Ke2(1)-f3(2)", "Ke2(1)-f3(3)"]
    state, _ = play("Ng1(1)-f3(3)", "Pa7(3)-a6(2)")
    assert moves_from(state, "Nf3(3)-e5") == ["Nf3(3)-e5(1)", "Nf3(3)-e5(2)", "Nf3(3)-e5(3)"]
    # The diagram marks stars and king symbols on all three levels.
    rank1 = ENGINE.view(ENGINE.setup(), Audience.PUBLIC).diagram.splitlines()[9]
    assert rank1.count("+") == 2 and rank1.endswith("R N B Q K B N R")


def test_S3_move_on_own_level_first_then_transfer() -> None:
    start = ENGINE.setup()
    assert not moves_from(start, "Nb1(1)-d2")  # d2(1) holds White's own pawn; d2(2) is empty
    with pytest.raises(IllegalMoveError, match=r"your own pawn stands on d2\(1\).*ruling S3"):
        ENGINE.parse_action(start, "Nb1(1)-d2(2)")
    # Once the pawn has gone, the same move lands on d2(1) and transfers.
    state, _ = play("Pd2(1)-d4(2)", "Pa7(3)-a6(2)")
    assert moves_from(state, "Nb1(1)-d2") == ["Nb1(1)-d2(2)"]


def test_S4_occupied_transfer_square_means_the_piece_stays() -> None:
    state, transitions = play("Pa2(1)-a3(2)", "Ph7(3)-h6(2)")
    assert moves_from(state, "Nb1(1)-a3") == ["Nb1(1)-a3(1)"]  # a3(2) holds the pawn: the knight stays
    state, transitions = play("Nb1(1)-a3(1)", state=state)
    assert piece_on(state, "a3(1)") == "N" and piece_on(state, "a3(2)") == "P"
    assert "stays on level 1: a3(2) is occupied (ruling S4)" in transitions[0].notes[0].text
    with pytest.raises(IllegalMoveError, match=r"a3\(2\) is occupied.*ruling S4"):
        play("Pa2(1)-a3(2)", "Ph7(3)-h6(2)", "Nb1(1)-a3(2)")


def s5_position(rook_on_level_2: bool, stay: str = "last-resort") -> SpaceState:
    """White in check on level 1 from the queen a5(1); the unmoved N b1 and Q d1 could block only by staying.

    With the black rook on a2(2), the king's escape e1-d2 with a transfer to d2(2) is covered too.
    """
    pieces = {"e1(1)": "K", "b1(1)": "N", "d1(1)": "Q", "f1(1)": "B", "e2(1)": "P", "f2(1)": "P",
              "a5(1)": "q", "e8(3)": "k"}
    if rook_on_level_2:
        pieces["a2(2)"] = "r"
    return positioned(pieces, unmoved=("e1(1)", "b1(1)", "d1(1)", "f1(1)", "e2(1)", "f2(1)"),
                      options={"first-move-stay": stay})


def test_S5_staying_on_the_level_only_as_the_last_way_out_of_check() -> None:
    blocks = ["Nb1(1)-c3(1)", "Nb1(1)-d2(1)", "Qd1(1)-d2(1)"]
    # Nothing else meets the check: the first moves may stay and block (without S5 this were mate).
    state = s5_position(rook_on_level_2=True)
    assert canonical(state) == blocks
    state, transitions = play("Nb1(1)-d2(1)", state=state)
    assert "stays on level 1 to meet the check (ruling S5)" in transitions[0].notes[0].text
    # The king can escape by stepping to d2 and transferring: then staying is not allowed.
    state = s5_position(rook_on_level_2=False)
    assert canonical(state) == ["Ke1(1)-d2(2)"]
    with pytest.raises(IllegalMoveError, match=r"only way out of check \(ruling S5\)"):
        ENGINE.parse_action(state, "Nb1(1)-c3(1)")
    # The video's reading as an option: any staying first move that ends the check.
    lenient = s5_position(rook_on_level_2=False, stay="in-check")
    assert canonical(lenient) == sorted(["Ke1(1)-d2(2)", *blocks])
    # Not in check, a first move never stays when it could transfer.
    with pytest.raises(IllegalMoveError, match="must transfer toward the middle level"):
        ENGINE.parse_action(ENGINE.setup(), "Pe2(1)-e4(1)")


S6_OPENING = ("Pe2(1)-e3(2)", "Pa7(3)-a6(2)", "Ng1(1)-h3(2)", "Ph7(3)-h6(2)", "Bf1(1)-d3(2)", "Pb7(3)-b6(2)")


def test_S6_castling_both_stay_or_both_transfer() -> None:
    state, _ = play(*S6_OPENING)
    assert moves_from(state, "O-O") == ["O-O", "O-O(2)"]
    stayed, transitions = play("O-O", state=state)
    assert transitions[0].record == "O-O"
    assert (piece_on(stayed, "g1(1)"), piece_on(stayed, "f1(1)")) == ("K", "R")
    moved, transitions = play("O-O(2)", state=state)
    assert transitions[0].record == "O-O(2)"
    assert (piece_on(moved, "g1(2)"), piece_on(moved, "f1(2)"), piece_on(moved, "h1(1)")) == ("K", "R", ".")
    # Another spelling: the king's own move.
    assert ENGINE.parse_action(state, "Ke1(1)-g1(2)") == ENGINE.parse_action(state, "0-0(b)")
    # g1(2) occupied (the knight came back there): they may only stay together.
    blocked, _ = play("Nh3(2)-g1(2)", "Pg7(3)-g6(2)", state=state)
    assert moves_from(blocked, "O-O") == ["O-O"]
    with pytest.raises(IllegalMoveError, match=r"g1\(2\) is occupied, so king and rook cannot transfer together"):
        ENGINE.parse_action(blocked, "O-O(2)")
    with pytest.raises(IllegalMoveError, match="pieces between king and rook"):
        ENGINE.parse_action(state, "O-O-O")


def test_S7_every_piece_may_transfer_two_levels_on_a_first_move_to_a_star() -> None:
    start = ENGINE.setup()
    assert "Nb1(1)-c3(3)" in canonical(start) and "Ng1(1)-f3(3)" in canonical(start)
    state, _ = play("Pe2(1)-e3(2)", "Pa7(3)-a6(2)")
    assert moves_from(state, "Qd1(1)-f3") == ["Qd1(1)-f3(2)", "Qd1(1)-f3(3)"]
    pawns_only = engine_with(two_level="pawns")
    state, _ = play("Pe2(1)-e3(2)", "Pa7(3)-a6(2)", engine=pawns_only)
    assert moves_from(state, "Qd1(1)-f3", pawns_only) == ["Qd1(1)-f3(2)"]
    assert "Pc2(1)-c3(3)" in canonical(pawns_only.setup(), pawns_only)
    with pytest.raises(IllegalMoveError, match=r"one or two from a star \(pawns only\)"):
        pawns_only.parse_action(pawns_only.setup(), "Nb1(1)-c3(3)")


def test_S8_a_capturing_first_move_transfers_like_any_first_move() -> None:
    # Black's knight reaches c3 on level 1; White's unmoved pieces take it and must transfer, 1 or 2 levels.
    state, _ = play("Pa2(1)-a3(2)", "Ng8(3)-f6(1)", "Pa3(2)-a4(2)", "Nf6(1)-d5(1)", "Pa4(2)-a5(2)",
                    "Nd5(1)-c3(1)")
    assert [m for m in canonical(state) if "xc3" in m] == [
        "Nb1(1)xc3(2)", "Nb1(1)xc3(3)", "Pb2(1)xc3(2)", "Pb2(1)xc3(3)", "Pd2(1)xc3(2)", "Pd2(1)xc3(3)"]
    after, transitions = play("Pd2(1)xc3(3)", state=state)
    assert transitions[0].notes[0].text == "Black's knight on c3(1) is captured."
    assert piece_on(after, "c3(3)") == "P" and piece_on(after, "c3(1)") == "."
    with pytest.raises(IllegalMoveError, match="transfer toward the middle level"):
        ENGINE.parse_action(state, "Pd2(1)xc3(1)")
    # Captures happen only on the mover's level: the black pawn d5(2) is out of reach of the e-pawn on e4(3).
    state, _ = play("Pe2(1)-e4(3)", "Pd7(3)-d5(2)")
    assert moves_from(state, "Pe4(3)") == ["Pe4(3)-e5(1)", "Pe4(3)-e5(2)", "Pe4(3)-e5(3)"]
    with pytest.raises(IllegalMoveError, match="captures happen only on the mover's own level"):
        ENGINE.parse_action(state, "Pe4(3)xd5(2)")


A_PAWN_TO_RANK_7 = ("Pa2(1)-a4(2)", "Pg7(3)-g6(2)", "Pa4(2)-a5(2)", "Pg6(2)-g5(2)", "Pa5(2)-a6(2)",
                    "Ph7(3)-h6(2)", "Pa6(2)-a7(2)", "Ph6(2)-h5(2)")


def test_S9_promotion_on_the_last_rank_of_any_level() -> None:
    state, _ = play(*A_PAWN_TO_RANK_7)
    assert moves_from(state, "Pa7") == ["Pa7(2)-a8(2)=B", "Pa7(2)-a8(2)=N", "Pa7(2)-a8(2)=Q", "Pa7(2)-a8(2)=R"]
    with pytest.raises(AmbiguousMoveError, match="promotes to"):
        ENGINE.parse_action(state, "Pa7(2)-a8(2)")
    after, transitions = play("a7b-a8b=n", state=state)
    assert transitions[0].record == "Pa7(2)-a8(2)=N" and piece_on(after, "a8(2)") == "N"
    # Option: only on the enemy level. On level 2 the pawn arrives and stays a pawn, without moves.
    enemy = engine_with(promotion="enemy-level")
    state, _ = play(*A_PAWN_TO_RANK_7, engine=enemy)
    assert moves_from(state, "Pa7", enemy) == ["Pa7(2)-a8(2)"]
    with pytest.raises(IllegalMoveError, match=r"only on the enemy level, level 3 \(option promotion=enemy-level\)"):
        enemy.parse_action(state, "Pa7(2)-a8(2)=Q")
    state, _ = play("Pa7(2)-a8(2)", "Ph5(2)-h4(2)", state=state, engine=enemy)
    assert piece_on(state, "a8(2)") == "P" and not moves_from(state, "Pa8", enemy)
    on_top = positioned({"b7(3)": "P", "e1(1)": "K", "e8(1)": "k"}, options={"promotion": "enemy-level"},
                        engine=enemy)
    assert moves_from(on_top, "Pb7", enemy) == ["Pb7(3)-b8(3)=B", "Pb7(3)-b8(3)=N", "Pb7(3)-b8(3)=Q",
                                                "Pb7(3)-b8(3)=R"]


def test_S10_passing_over_a_star_does_nothing() -> None:
    # The queen goes to h5(2); from there along h5-g4-f3-e2 on level 2 it passes the star f3.
    state, _ = play("Pe2(1)-e3(2)", "Pa7(3)-a6(2)", "Qd1(1)-h5(2)", "Pb7(3)-b6(2)")
    assert moves_from(state, "Qh5(2)-e2") == ["Qh5(2)-e2(2)"]
    assert moves_from(state, "Qh5(2)-f3") == ["Qh5(2)-f3(1)", "Qh5(2)-f3(2)", "Qh5(2)-f3(3)"]
    with pytest.raises(IllegalMoveError, match=r"only by ending its move on a star \(c3, f3, d4, e4"):
        ENGINE.parse_action(state, "Qh5(2)-e2(1)")


def test_S11_king_first_move_may_stay_later_symbols_and_stars() -> None:
    state, _ = play("Pe2(1)-e4(2)", "Pa7(3)-a6(2)", "Bf1(1)-c4(2)", "Pb7(3)-b6(2)")
    assert moves_from(state, "K") == ["Ke1(1)-e2(1)", "Ke1(1)-e2(2)", "Ke1(1)-f1(1)", "Ke1(1)-f1(2)"]
    state, _ = play("Ke1(1)-e2(1)", "Pc7(3)-c6(2)", state=state)
    assert moves_from(state, "K") == [
        "Ke2(1)-d3(1)", "Ke2(1)-e1(1)", "Ke2(1)-e3(1)", "Ke2(1)-f1(1)", "Ke2(1)-f1(2)",  # f1: king symbol, 1 level
        "Ke2(1)-f3(1)", "Ke2(1)-f3(2)", "Ke2(1)-f3(3)"]  # f3: a star, 1 or 2 levels
    with pytest.raises(IllegalMoveError, match="from a king symbol the king changes only one level"):
        ENGINE.parse_action(state, "Ke2(1)-f1(3)")
    # Other pieces get nothing from a king symbol.
    rook = positioned({"a1(2)": "R", "e3(1)": "K", "e8(3)": "k"})
    assert moves_from(rook, "Ra1(2)-f1") == ["Ra1(2)-f1(2)"]


def test_S12_en_passant_on_the_level_where_the_pawn_ended() -> None:
    state, _ = play("Pe2(1)-e4(2)", "Pa7(3)-a6(2)", "Pe4(2)-e5(2)", "Pd7(3)-d5(2)")
    assert moves_from(state, "Pe5(2)") == ["Pe5(2)-e6(2)", "Pe5(2)xd6(2)"]
    after, transitions = play("Pe5(2)xd6(2)", state=state)
    assert transitions[0].record == "Pe5(2)xd6(2)"  # x, and no e.p. suffix
    assert transitions[0].notes[0].text == "Black's pawn on d5(2) is captured."
    assert piece_on(after, "d5(2)") == "." and piece_on(after, "d6(2)") == "P"
    # The black pawn went on to level 1: no en passant from level 2.
    state, _ = play("Pe2(1)-e4(2)", "Pa7(3)-a6(2)", "Pe4(2)-e5(2)", "Pd7(3)-d5(1)")
    assert moves_from(state, "Pe5(2)") == ["Pe5(2)-e6(2)"]
    # Only at once: one move later the right is gone.
    state, _ = play("Pe2(1)-e4(2)", "Pa7(3)-a6(2)", "Pe4(2)-e5(2)", "Pd7(3)-d5(2)", "Ph2(1)-h3(2)",
                    "Ph7(3)-h6(2)")
    assert moves_from(state, "Pe5(2)") == ["Pe5(2)-e6(2)"]


def test_S13_check_and_legality_are_judged_on_the_king_s_level() -> None:
    # The fool's mate pattern is no check: the queen on h4(2) attacks only level 2.
    state, transitions = play("Pf2(1)-f3(2)", "Pe7(3)-e5(2)", "Pg2(1)-g4(2)", "Qd8(3)-h4(2)")
    assert transitions[-1].record == "Qd8(3)-h4(2)"
    assert ENGINE.outcome(state) is None and not any("check" in s for s in ENGINE.view(state, Seat.WHITE).status)
    # A king may step onto an attacked king symbol (or star) and transfer away.
    state = positioned({"e2(1)": "K", "h1(1)": "r", "e8(3)": "k"})
    assert "Ke2(1)-f1(2)" in canonical(state) and "Ke2(1)-f1(1)" not in canonical(state)
    with pytest.raises(IllegalMoveError, match="the king would be in check there"):
        ENGINE.parse_action(state, "Ke2(1)-f1(1)")
    # A real check on the king's level is announced and must be answered.
    state, transitions = play("Pe2(1)-e3(2)", "Pf7(3)-f6(2)", "Qd1(1)-f3(3)", "Pa7(3)-a6(2)", "Qf3(3)-h5(3)")
    assert transitions[-1].record == "Qf3(3)-h5(3)+"
    assert ENGINE.view(state, Seat.BLACK).status[1] == "Black's king on e8(3) is in check."


def test_S13_capture_that_transfers_away_opens_the_line() -> None:
    # Taking the pawn on the star e5(2) and leaving the level empties e5(2): the queen on e7(2)
    # would then attack the king on e2(2), so only the capture that stays on level 2 is legal.
    state, _ = play("Pe2(1)-e4(3)", "Pe7(3)-e5(2)", "Pd2(1)-d4(2)", "Qd8(3)-e7(2)", "Ke1(1)-e2(2)",
                    "Pa7(3)-a6(2)")
    assert moves_from(state, "Pd4(2)x") == ["Pd4(2)xe5(2)"]
    for text in ("Pd4(2)xe5(1)", "Pd4(2)xe5(3)"):
        with pytest.raises(IllegalMoveError):
            ENGINE.parse_action(state, text)
    assert ENGINE.perft(state, 1) == len(canonical(state))


S14_OPENING = ("Pe2(1)-e4(2)", "Pe7(3)-e6(2)", "Ng1(1)-h3(2)", "Bf8(3)-c5(2)", "Bf1(1)-c4(2)", "Pa7(3)-a6(2)")


def test_S14_castling_with_transfer_checks_the_final_square_too() -> None:
    # The black bishop on c5(2) covers g1(2) (d4, e3, f2 are empty on level 2): O-O is fine, O-O(2) is not.
    state, _ = play(*S14_OPENING)
    assert moves_from(state, "O-O") == ["O-O"]
    with pytest.raises(IllegalMoveError, match=r"in check on g1\(2\) after the transfer \(ruling S14\)"):
        ENGINE.parse_action(state, "O-O(2)")
    # The home-level conditions hold for O-O(2) too: a rook on f8(1) covers f1(1), so no castling at all.
    state = positioned({"e1(1)": "K", "h1(1)": "R", "f8(1)": "r", "e8(3)": "k"}, unmoved=("e1(1)", "h1(1)"))
    assert not moves_from(state, "O-O")
    with pytest.raises(IllegalMoveError, match=r"pass through check on f1\(1\)"):
        ENGINE.parse_action(state, "O-O(2)")


def test_S15_a_promoted_piece_counts_as_moved() -> None:
    # The c-pawn comes back to level 1 via the star c6 and promotes on c8(1).
    state, _ = play("Pc2(1)-c3(2)", "Ph7(3)-h6(2)", "Pc3(2)-c4(2)", "Ph6(2)-h5(2)", "Pc4(2)-c5(2)",
                    "Pg7(3)-g6(2)", "Pc5(2)-c6(1)", "Pg6(2)-g5(2)", "Pc6(1)-c7(1)", "Ph5(2)-h4(2)",
                    "Pc7(1)-c8(1)=Q", "Ph4(2)-h3(2)")
    assert moves_from(state, "Qc8(1)-c7") == ["Qc8(1)-c7(1)"]  # a first move would have to transfer
    assert "c8(1)" not in ENGINE.dump(state)["unmoved"]


def test_S16_castling_is_the_first_move_of_king_and_rook() -> None:
    state, _ = play(*S6_OPENING, "O-O", "Pc7(3)-c6(2)")
    assert moves_from(state, "Rf1(1)-e1") == ["Rf1(1)-e1(1)"]
    assert moves_from(state, "Kg1(1)-h1") == ["Kg1(1)-h1(1)"]
    assert not {"e1(1)", "h1(1)", "f1(1)", "g1(1)"} & set(ENGINE.dump(state)["unmoved"])
    state, _ = play(*S6_OPENING, "O-O(2)", "Pc7(3)-c6(2)")
    assert moves_from(state, "Rf1(2)-e1") == ["Rf1(2)-e1(2)"]
    # The other rook still has its first move to make (with the transfer), and no castling is left.
    assert moves_from(state, "Ra1(1)-b1") == []  # b1 holds the knight
    assert not moves_from(state, "O-O")


# -- results and draws -----------------------------------------------------------------------------


def test_mate_in_seven_with_two_level_transfers() -> None:
    state, transitions = play(
        "Pe2(1)-e3(2)", "Pa7(3)-a6(2)", "Bf1(1)-c4(2)", "Ph7(3)-h6(2)", "Qd1(1)-f3(3)", "Pa6(2)-a5(2)",
        "Nb1(1)-c3(3)", "Ph6(2)-h5(2)", "Nc3(3)-e4(3)", "Pa5(2)-a4(2)", "Ne4(3)-g5(3)", "Pb7(3)-b6(2)")
    state, transitions = play("Qf3(3)xf7(3)", state=state)
    assert transitions[0].record == "Qf3(3)xf7(3)#"
    assert ENGINE.outcome(state) == Outcome.win(Seat.WHITE, "checkmate")
    assert ENGINE.to_act(state) is None and list(ENGINE.legal_actions(state)) == []
    assert ENGINE.view(state, Audience.PUBLIC).status[0] == "Game over: 1-0 (checkmate)."
    with pytest.raises(IllegalMoveError, match="the game is over"):
        ENGINE.parse_action(state, "Ke8(3)-f7(3)")
    # The same attack without the bishop: the king escapes by taking and transferring.
    escape, transitions = play("Pe2(1)-e3(2)", "Pa7(3)-a6(2)", "Qd1(1)-f3(3)", "Ph7(3)-h6(2)", "Nb1(1)-c3(3)",
                               "Pa6(2)-a5(2)", "Nc3(3)-e4(3)", "Ph6(2)-h5(2)", "Ne4(3)-g5(3)", "Pb7(3)-b6(2)",
                               "Qf3(3)xf7(3)")
    assert transitions[-1].record == "Qf3(3)xf7(3)+"
    assert canonical(escape) == ["Ke8(3)xf7(2)"]


def test_stalemate_and_insufficient_material() -> None:
    stalemate = positioned({"a8(1)": "k", "b6(1)": "Q", "h1(1)": "K"}, turn="black")
    assert ENGINE.outcome(stalemate) == Outcome.draw("stalemate")
    # Every square round the king is covered, but it may step onto the attacked star c6 and leave the level.
    escape = positioned({"b7(1)": "k", "d6(1)": "Q", "a1(1)": "R", "h8(1)": "R", "h1(1)": "K"}, turn="black")
    assert ENGINE.outcome(escape) is None and canonical(escape) == ["Kb7(1)-c6(2)", "Kb7(1)-c6(3)"]
    mate = positioned({"a8(1)": "k", "b7(1)": "Q", "b6(1)": "K"}, turn="black")
    assert ENGINE.outcome(mate) == Outcome.win(Seat.WHITE, "checkmate")
    for extra in ({}, {"c3(2)": "N"}, {"c3(2)": "b"}):
        bare = positioned({"e1(1)": "K", "e8(3)": "k", **extra})
        assert ENGINE.outcome(bare) == Outcome.draw("insufficient material")
    assert ENGINE.outcome(positioned({"e1(1)": "K", "e8(3)": "k", "c3(2)": "R"})) is None


def test_fifty_and_seventy_five_move_rules() -> None:
    pieces = {"e1(1)": "K", "e8(3)": "k", "a1(1)": "R"}
    assert ENGINE.claim_draw(positioned(pieces, halfmove=99)) is None
    fifty = positioned(pieces, halfmove=100)
    assert ENGINE.claim_draw(fifty) == Outcome.draw("50-move rule") and ENGINE.outcome(fifty) is None
    assert "White may claim a draw (50-move rule) by sending 'draw'." in ENGINE.view(fifty, Seat.WHITE).status
    assert ENGINE.outcome(positioned(pieces, halfmove=150)) == Outcome.draw("75-move rule")
    state, _ = play("Ra1(1)-a2(1)", state=positioned(pieces, halfmove=149))
    assert ENGINE.outcome(state) == Outcome.draw("75-move rule")
    state, _ = play("Pa2(1)-a3(2)", "Ph7(3)-h6(2)")
    assert state.halfmove == 0


def test_threefold_claim_and_fivefold_end() -> None:
    shuffle = ["Nh3(2)-g1(2)", "Nh6(2)-g8(2)", "Ng1(2)-h3(2)", "Ng8(2)-h6(2)"]
    state, _ = play("Ng1(1)-h3(2)", "Ng8(3)-h6(2)")
    state, _ = play(*shuffle, state=state)
    assert ENGINE.claim_draw(state) is None
    state, _ = play(*shuffle, state=state)
    assert ENGINE.claim_draw(state) == Outcome.draw("threefold repetition")
    state, _ = play(*shuffle, *shuffle, state=state)
    assert ENGINE.outcome(state) == Outcome.draw("fivefold repetition")
    assert ENGINE.claim_draw(state) is None  # already over


# -- notation --------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "Pe2(1)-e4(2)", "e2(1)-e4(2)", "pe2(1)-e4(2)", "PE2(1)-E4(2)", "e2(1)e4(2)", "Pe2(1) - e4(2)", "e2c-e4b",
    "E2(C)-E4(B)", "e2-e4b", "e2-e4(2)", "1. Pe2(1)-e4(2)", "Pe2(1)-e4(2) // the centre", "Pe2(1)-e4(2)!?",
    "Pe2(1)xe4(2)",
])
def test_many_spellings_of_one_move(text: str) -> None:
    start = ENGINE.setup()
    assert ENGINE.describe(start, ENGINE.parse_action(start, text)) == "Pe2(1)-e4(2)"


def test_missing_levels_are_filled_in_when_only_one_move_fits() -> None:
    start = ENGINE.setup()
    assert ENGINE.describe(start, ENGINE.parse_action(start, "Ng1-h3")) == "Ng1(1)-h3(2)"
    with pytest.raises(AmbiguousMoveError, match=r"Pe2\(1\)-e4\(2\) or Pe2\(1\)-e4\(3\); write the levels"):
        ENGINE.parse_action(start, "e2-e4")
    state, _ = play(*S6_OPENING)
    for text in ("O-O", "0-0", "o-o(1)", "O-O(C)"):
        assert ENGINE.describe(state, ENGINE.parse_action(state, text)) == "O-O"
    for text in ("O-O(2)", "0-0(b)", "o-o2", "Ke1(1)-g1(2)", "Ke1-g1b"):
        assert ENGINE.describe(state, ENGINE.parse_action(state, text)) == "O-O(2)"
    with pytest.raises(IllegalMoveError, match=r"on level 1 .* or on level 2"):
        ENGINE.parse_action(state, "O-O(3)")


def test_error_messages_name_the_problem() -> None:
    start = ENGINE.setup()
    cases: list[tuple[str, type[MoveError], str]] = [
        ("Bb1(1)-c3(2)", IllegalMoveError, r"there is a knight on b1\(1\), not a bishop"),
        ("e7(3)-e5(2)", IllegalMoveError, r"the pawn on e7\(3\) is Black's, not yours"),
        ("e3(1)-e4(2)", IllegalMoveError, r"there is no piece on e3\(1\)"),
        ("e3-e4", IllegalMoveError, "there is no piece of yours on e3 on any level"),
        ("Nb1(1)-b3(2)", IllegalMoveError, r"a knight cannot move from b1\(1\) to b3\(1\)"),
        ("Pe2(1)-e5(2)", IllegalMoveError, r"a pawn cannot move from e2\(1\) to e5\(1\)"),
        ("Ra1(1)-a3(2)", IllegalMoveError, r"blocked on level 1 \(at a2\(1\)\)"),
        ("Pa2(1)-a3(3)", IllegalMoveError, r"toward the middle level.*possible: a3\(2\)"),
        ("hello", InvalidMoveError, "not a move"),
        ("", InvalidMoveError, "no move found"),
        ("O-O", IllegalMoveError, "pieces between king and rook"),
        ("Pe2(1)-e4(2)=Q", IllegalMoveError, "only a pawn that reaches the last rank promotes"),
    ]
    for text, kind, reason in cases:
        with pytest.raises(kind, match=reason) as raised:
            ENGINE.parse_action(start, text)
        assert str(raised.value)[0].islower()
    # apply refuses a hand-made illegal move with a reason too.
    with pytest.raises(IllegalMoveError, match=r"'b1\(1\)-d2\(2\)'.*ruling S3"):
        ENGINE.apply(start, Move(1, 11, 64 + 11))


def test_check_mark_and_diagram_for_both_sides() -> None:
    state, _ = play("Pe2(1)-e3(2)", "Pf7(3)-f6(2)")
    white = ENGINE.view(state, Seat.WHITE)
    black = ENGINE.view(state, Seat.BLACK)
    assert white.diagram.splitlines()[1].strip().startswith("a b c d e f g h")
    assert black.diagram.splitlines()[1].strip().startswith("h g f e d c b a")
    assert black.diagram.splitlines()[2].startswith("1 ") and black.diagram.splitlines()[9].startswith("8 ")
    assert black.diagram.splitlines()[2].endswith("R N B K Q B N R")  # level 1 seen from Black's side
    assert all(len(line) <= 72 for line in white.diagram.splitlines())
    assert "Level 3 (A, top)" in white.diagram and "* star" in white.diagram and "+ king symbol" in white.diagram
    assert white.to_move is Seat.WHITE and white.move_number == 2


def test_hand_made_positions_agree_with_the_reference() -> None:
    states = [
        s5_position(rook_on_level_2=True), s5_position(rook_on_level_2=False),
        s5_position(rook_on_level_2=False, stay="in-check"), s5_position(rook_on_level_2=True, stay="in-check"),
        positioned({"a3(3)": "R", "e1(1)": "K", "e8(3)": "k", "c3(2)": "p", "d2(2)": "n"}),
        positioned({"e2(1)": "K", "h1(1)": "r", "e8(3)": "k", "f1(2)": "b"}),
        positioned({"e1(1)": "K", "h1(1)": "R", "a1(1)": "R", "f8(1)": "r", "g1(2)": "n", "e8(3)": "k",
                    "a8(3)": "r", "h8(3)": "r", "d8(2)": "q"}, unmoved=("e1(1)", "h1(1)", "a1(1)")),
        positioned({"e8(3)": "k", "a8(3)": "r", "h8(3)": "r", "e1(3)": "R", "b1(1)": "K", "f8(2)": "B"},
                   turn="black", unmoved=("e8(3)", "a8(3)", "h8(3)")),
        positioned({"b7(1)": "k", "d6(1)": "Q", "a1(1)": "R", "h8(1)": "R", "h1(1)": "K"}, turn="black"),
        positioned({"b7(3)": "P", "g2(1)": "p", "e1(1)": "K", "e8(1)": "k", "a2(2)": "P"},
                   options={"promotion": "enemy-level"}),
        positioned({"b7(3)": "P", "g2(1)": "p", "e1(1)": "K", "e8(1)": "k", "a2(2)": "P"}, turn="black"),
        # Pins on the king's level: knight on the file, pawn and bishop on diagonals.
        positioned({"e1(1)": "K", "e3(1)": "N", "e7(1)": "r", "d2(1)": "P", "a5(1)": "b", "g3(1)": "B",
                    "h4(1)": "q", "e8(3)": "k", "b2(2)": "R"}),
        # En passant that would open the rank to the king (the rook on h5(2)), and the same one level away.
        positioned({"a5(2)": "K", "b5(2)": "P", "c5(2)": "p", "h5(2)": "r", "e8(3)": "k"}, ep="c6(2)"),
        positioned({"a5(2)": "K", "b5(2)": "P", "c5(2)": "p", "h5(1)": "r", "e8(3)": "k"}, ep="c6(2)"),
    ]
    for state in states:
        assert ENGINE.outcome(state) is None
        assert canonical(state) == sorted(ref_legal(ref_from_state(ENGINE, state))), ENGINE.dump(state)


# -- command line ------------------------------------------------------------------------------------


def test_cli_moves_show_and_perft(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["moves", "space-chess"]) == 0
    assert capsys.readouterr().out.split() == START_MOVES
    assert cli_main(["show", "chessex", "Pe2(1)-e4(2)"]) == 0
    out = capsys.readouterr().out
    assert "4 . . . * P . . ." in out and "Black to move (move 1)." in out and "Level 1 (C, bottom)" in out
    assert cli_main(["perft", "space-chess", "2"]) == 0
    assert capsys.readouterr().out.strip() == "676"
    assert cli_main(["moves", "space-chess", "Nb1-d2"]) == 1
    assert "ruling S3" in capsys.readouterr().err
    assert cli_main(["moves", "space-chess", "--option", "centre-star=no", "--option", "two-level=pawns"]) == 0
    assert len(capsys.readouterr().out.split()) == 22


# -- perft and random games against the independent reference ----------------------------------------


def test_perft_matches_the_reference_and_the_generic_count() -> None:
    start = ENGINE.setup()
    assert [ENGINE.perft(start, d) for d in (1, 2, 3)] == [26, 676, 21592]
    assert [reference_perft(ref_start(), d) for d in (1, 2)] == [26, 676]
    assert generic_perft(_Generic(), start, 3) == 21592  # apply-based, through the public protocol


class _Generic(SpaceChess):
    perft = None  # type: ignore[assignment]  # force pbem.cli.perft onto the apply-based count


def reference_perft(ref: Ref, depth: int) -> int:
    moves = ref_legal(ref)
    if depth == 1:
        return len(moves)
    return sum(reference_perft(after, depth - 1) for after in moves.values())


OPTION_SETS: list[dict[str, str]] = [
    {}, {"promotion": "enemy-level"}, {"first-move-stay": "in-check"}, {"centre-star": "no"},
    {"two-level": "pawns"}, {"promotion": "enemy-level", "first-move-stay": "in-check", "centre-star": "no"},
]


def test_random_games_agree_with_the_reference_round_trip_and_never_raise() -> None:
    rng = random.Random(20251123)
    plies = compared = 0
    for game in range(36):
        options = OPTION_SETS[game % len(OPTION_SETS)]
        engine = get_variant("space-chess", options)
        assert isinstance(engine, SpaceChess)
        state, ref = engine.setup(), ref_start(options)
        for ply in range(110):
            assert engine.load(engine.dump(state)) == state
            if ply % 10 == 0:
                assert engine.load(json.loads(json.dumps(engine.dump(state)))) == state
            actions = list(engine.legal_actions(state))
            texts = [engine.describe(state, a) for a in actions]
            assert len(set(texts)) == len(texts)
            check_reference = ply < 40 or game % 6 == 0
            expected: dict[str, Ref] = {}
            if check_reference:
                expected = ref_legal(ref)
                if engine.outcome(state) is None:
                    assert sorted(texts) == sorted(expected), (game, ply)
                compared += 1
            over = engine.outcome(state)
            if over is not None:
                assert actions == [] and engine.to_act(state) is None
                if over.reason in ("checkmate", "stalemate"):
                    assert ref_legal(ref) == {}
                break
            for action, text in zip(actions, texts, strict=True):
                assert engine.parse_action(state, text) == action
                if ply % 4 == 0:
                    assert engine.parse_action(state, text.lower()) == action
            action = rng.choice(actions)
            text = engine.describe(state, action)
            before = engine.dump(state)
            transition = engine.apply(state, action)
            assert engine.dump(state) == before  # apply never mutates its input
            assert transition.record.rstrip("+#") == text
            new = transition.state
            levels = "".join(engine.dump(new)["levels"])
            assert levels.count("K") == 1 and levels.count("k") == 1
            assert sum(c != "." for c in levels) >= sum(c != "." for c in "".join(before["levels"])) - 1
            if check_reference:  # the reference keeps its own board, first-move rights and e.p.
                ref = expected[text]
                assert ref_levels(ref) == engine.dump(new)["levels"], (game, ply, text)
                assert sorted(map(_name, ref.unmoved)) == sorted(engine.dump(new)["unmoved"])
            else:
                ref = ref_from_state(engine, new)
            state = new
            plies += 1
    assert plies > 2500 and compared > 1200


# -- an independent, deliberately naive generator written from spec 3.4-3.5 --------------------------
# It shares no code with the engine: squares are (level, file, rank) tuples, the board is a dict, and
# each rule is spelt out the slow way.

_STARS_OUTER = {(2, 2), (5, 2), (2, 5), (5, 5)}  # (file, rank) from 0: c3 f3 c6 f6
_STARS_CENTRE = {(3, 3), (4, 3), (3, 4), (4, 4)}  # d4 e4 d5 e5
_KING_SYMBOLS = {(5, 0), (5, 7)}  # f1 f8
_KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
_KING = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)]
_ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
_BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]

Sq = tuple[int, int, int]


def _name(sq: Sq) -> str:
    level, file, rank = sq
    return f"{'abcdefgh'[file]}{rank + 1}({level + 1})"


@dataclass
class Ref:
    board: dict[Sq, str]
    white: bool = True
    unmoved: set[Sq] = field(default_factory=set)
    ep: Sq | None = None  # where a pawn capturing en passant lands (on the level it must stand on)
    options: dict[str, str] = field(default_factory=dict)

    def mine(self, piece: str) -> bool:
        return piece.isupper() == self.white

    @property
    def stars(self) -> set[tuple[int, int]]:
        return _STARS_OUTER | (_STARS_CENTRE if self.options.get("centre-star", "yes") == "yes" else set())


def ref_start(options: dict[str, str] | None = None) -> Ref:
    board: dict[Sq, str] = {}
    for file, letter in enumerate("RNBQKBNR"):
        board[(0, file, 0)] = letter
        board[(0, file, 1)] = "P"
        board[(2, file, 7)] = letter.lower()
        board[(2, file, 6)] = "p"
    return Ref(board, True, set(board), None, dict(options or {}))


def ref_from_state(engine: SpaceChess, state: SpaceState) -> Ref:
    data = engine.dump(state)
    board = {(lv, i % 8, i // 8): c for lv, text in enumerate(data["levels"]) for i, c in enumerate(text) if c != "."}
    unmoved = {(int(n[3]) - 1, "abcdefgh".index(n[0]), int(n[1]) - 1) for n in data["unmoved"]}
    ep = data["ep"]
    ep_sq = None if ep is None else (int(ep[3]) - 1, "abcdefgh".index(ep[0]), int(ep[1]) - 1)
    return Ref(board, data["turn"] == "white", unmoved, ep_sq, {k: v for k, v in data["options"].items()})


def ref_levels(ref: Ref) -> list[str]:
    return ["".join(ref.board.get((lv, i % 8, i // 8), ".") for i in range(64)) for lv in range(3)]


def _on(file: int, rank: int) -> bool:
    return 0 <= file < 8 and 0 <= rank < 8


def _attacks(board: dict[Sq, str], frm: Sq, to: Sq) -> bool:
    """Does the piece on ``frm`` attack ``to``? Only within one level."""
    if frm[0] != to[0]:
        return False
    piece = board[frm]
    kind = piece.upper()
    df, dr = to[1] - frm[1], to[2] - frm[2]
    if kind == "P":
        return abs(df) == 1 and dr == (1 if piece.isupper() else -1)
    if kind == "N":
        return (df, dr) in _KNIGHT
    if kind == "K":
        return max(abs(df), abs(dr)) == 1
    straight, diagonal = df == 0 or dr == 0, abs(df) == abs(dr)
    if (df, dr) == (0, 0) or (kind == "R" and not straight) or (kind == "B" and not diagonal) or (
            kind == "Q" and not (straight or diagonal)):
        return False
    sf, sr = (df > 0) - (df < 0), (dr > 0) - (dr < 0)
    f, r = frm[1] + sf, frm[2] + sr
    while (f, r) != (to[1], to[2]):
        if (frm[0], f, r) in board:
            return False
        f, r = f + sf, r + sr
    return True


def _attacked(board: dict[Sq, str], sq: Sq, by_white: bool) -> bool:
    return any(s[0] == sq[0] and p.isupper() == by_white and _attacks(board, s, sq) for s, p in board.items())


def _king(board: dict[Sq, str], white: bool) -> Sq:
    return next(s for s, p in board.items() if p == ("K" if white else "k"))


def _landings(r: Ref, sq: Sq) -> list[tuple[Sq, Sq | None]]:
    """Orthodox targets on the piece's own level, each with the square of the piece it captures."""
    board, piece = r.board, r.board[sq]
    level, file, rank = sq
    kind = piece.upper()
    out: list[tuple[Sq, Sq | None]] = []
    if kind == "P":
        d = 1 if r.white else -1
        one = (level, file, rank + d)
        if _on(file, rank + d) and one not in board:
            out.append((one, None))
            two = (level, file, rank + 2 * d)
            if sq in r.unmoved and _on(file, rank + 2 * d) and two not in board:
                out.append((two, None))
        for df in (-1, 1):
            t = (level, file + df, rank + d)
            if not _on(file + df, rank + d):
                continue
            if t in board and not r.mine(board[t]):
                out.append((t, t))
            elif t == r.ep and t not in board:
                out.append((t, (level, file + df, rank)))
    elif kind in "NK":
        for df, dr in _KNIGHT if kind == "N" else _KING:
            t = (level, file + df, rank + dr)
            if _on(file + df, rank + dr) and (t not in board or not r.mine(board[t])):
                out.append((t, t if t in board else None))
    else:
        dirs = _ROOK_DIRS if kind == "R" else _BISHOP_DIRS if kind == "B" else _ROOK_DIRS + _BISHOP_DIRS
        for df, dr in dirs:
            f, rk = file + df, rank + dr
            while _on(f, rk):
                t = (level, f, rk)
                if t in board:
                    if not r.mine(board[t]):
                        out.append((t, t))
                    break
                out.append((t, None))
                f, rk = f + df, rk + dr
    return out


def _successor(r: Ref, frm: Sq, capture: Sq | None, final: Sq, piece: str,
               rook: tuple[Sq, Sq] | None = None) -> Ref:
    board = dict(r.board)
    del board[frm]
    if capture is not None:
        del board[capture]
    board[final] = piece
    unmoved = set(r.unmoved) - {frm, capture}
    if rook is not None:
        board[rook[1]] = board.pop(rook[0])
        unmoved.discard(rook[0])
    ep = None
    if piece.upper() == "P" and abs(final[2] - frm[2]) == 2:
        skipped = (final[0], final[1], (final[2] + frm[2]) // 2)
        if skipped not in board:
            ep = skipped
    return Ref(board, not r.white, unmoved, ep, r.options)


def ref_legal(r: Ref) -> dict[str, Ref]:
    """Canonical text -> position after it, for every legal move of the side to move."""
    normal: list[tuple[str, Ref]] = []
    stays: list[tuple[str, Ref]] = []
    toward = 1 if r.white else -1
    two_all = r.options.get("two-level", "all") == "all"
    enemy_level_only = r.options.get("promotion", "any-level") == "enemy-level"
    for sq, piece in list(r.board.items()):
        if not r.mine(piece):
            continue
        kind = piece.upper()
        first = sq in r.unmoved
        for target, capture in _landings(r, sq):
            level, tf, tr = target
            results, is_first = [piece], first
            if kind == "P" and tr == (7 if r.white else 0) and (
                    not enemy_level_only or level == (2 if r.white else 0)):
                results, is_first = [q if r.white else q.lower() for q in "QRBN"], False
            star = (tf, tr) in r.stars
            for result in results:
                stay = None
                if is_first:
                    reach = (1, 2) if star and (two_all or kind == "P") else (1,)
                    transfers = [level + toward * n for n in reach
                                 if 0 <= level + toward * n <= 2 and (level + toward * n, tf, tr) not in r.board]
                    if kind == "K":
                        finals = [level, *transfers]
                    elif transfers:
                        finals, stay = transfers, level
                    else:
                        finals = [level]
                else:
                    finals = [level]
                    if star:
                        finals += [lv for lv in range(3) if lv != level and (lv, tf, tr) not in r.board]
                    elif kind == "K" and (tf, tr) in _KING_SYMBOLS:
                        finals += [lv for lv in (level - 1, level + 1) if 0 <= lv <= 2 and (lv, tf, tr) not in r.board]
                promo = f"={result.upper()}" if result != piece else ""
                sep = "x" if capture else "-"
                for lv in finals:
                    normal.append((f"{kind}{_name(sq)}{sep}{_name((lv, tf, tr))}{promo}",
                                   _successor(r, sq, capture, (lv, tf, tr), result)))
                if stay is not None:
                    stays.append((f"{kind}{_name(sq)}{sep}{_name((stay, tf, tr))}{promo}",
                                  _successor(r, sq, capture, (stay, tf, tr), result)))
        if kind == "K" and first:
            normal.extend(_ref_castlings(r, sq))
    check = _attacked(r.board, _king(r.board, r.white), not r.white)

    def safe(after: Ref) -> bool:
        return not _attacked(after.board, _king(after.board, r.white), not r.white)

    moves = {text: after for text, after in normal if safe(after)}
    if check and (not moves or r.options.get("first-move-stay", "last-resort") == "in-check"):
        moves.update({text: after for text, after in stays if safe(after)})
    return moves


def _ref_castlings(r: Ref, king: Sq) -> list[tuple[str, Ref]]:
    level, _, rank = king
    if king != ((0, 4, 0) if r.white else (2, 4, 7)) or _attacked(r.board, king, not r.white):
        return []
    out = []
    for corner, between, king_to, rook_to, text in ((7, (5, 6), 6, 5, "O-O"), (0, (1, 2, 3), 2, 3, "O-O-O")):
        rook = (level, corner, rank)
        if r.board.get(rook) != ("R" if r.white else "r") or rook not in r.unmoved:
            continue
        if any((level, f, rank) in r.board for f in between):
            continue
        if any(_attacked(r.board, (level, f, rank), not r.white) for f in (rook_to, king_to)):
            continue
        for lv, suffix in ((level, ""), (1, "(2)")):
            if lv != level and ((lv, king_to, rank) in r.board or (lv, rook_to, rank) in r.board):
                continue
            out.append((text + suffix, _successor(r, king, None, (lv, king_to, rank), r.board[king],
                                                  (rook, (lv, rook_to, rank)))))
    return out
