"""The per-variant evaluations: symmetric, from the side to move's view, and each documented term at work."""

from __future__ import annotations

import importlib
import random
from dataclasses import replace
from typing import Any

import chess
import pytest

from pbem.engine.base import Seat, Variant
from pbem.engine.capabilities import CaptureInfo, Evaluation, PositionKey, QuickSuccessor, SearchActions
from pbem.engine.secret import Secret
from pbem.variants import all_variants, get_variant
from pbem.variants.hyperspace.evaluation import pool_value
from pbem.variants.hyperspace.model import HyperspaceState, PoolEntry
from pbem.variants.outer_space.evaluation import galaxy_distance, hyperspace_term
from pbem.variants.outer_space.model import OuterSpaceState, parse_position
from pbem.variants.space_chess.evaluation import level_changes
from pbem.variants.space_chess.geometry import markings
from pbem.variants.space_chess.model import SpaceState
from pbem.variants.tri_d.evaluation import board_control
from pbem.variants.tri_d.model import TriDState
from pbem.variants.voidrider.evaluation import void_structure
from pbem.variants.voidrider.model import VoidriderState, board_from_rows

KEYS = [variant.key for variant in all_variants()]
PACKAGES = {"hyperspace": "hyperspace", "outer-space": "outer_space", "space-chess": "space_chess",
            "tri-d": "tri_d", "voidrider": "voidrider"}


def other_side_to_move(state: Any) -> Any:
    """The same position with the other side to move (counters and rights untouched)."""
    if isinstance(state, HyperspaceState):
        fields = state.fen.split()
        fields[1] = "b" if fields[1] == "w" else "w"
        return replace(state, fen=" ".join(fields))
    if isinstance(state, OuterSpaceState | VoidriderState):
        return replace(state, turn=state.turn.other)
    if isinstance(state, SpaceState):
        return replace(state, turn=-state.turn, history=())
    assert isinstance(state, TriDState)
    return replace(state, turn=1 - state.turn, history=())


def random_positions(engine: Variant[Any, Any], seed: str, count: int = 6) -> list[Any]:
    rng = random.Random(seed)
    found = []
    state = engine.setup()
    while len(found) < count:
        actions = list(engine.legal_actions(state))
        if not actions:
            state = engine.setup()
            continue
        state = engine.apply(state, rng.choice(actions)).state
        if rng.random() < 0.3:
            found.append(state)
    return found


@pytest.mark.parametrize("key", KEYS)
def test_every_variant_has_the_search_capabilities(key: str) -> None:
    engine = get_variant(key)
    assert isinstance(engine, Evaluation) and isinstance(engine, PositionKey)
    assert isinstance(engine, CaptureInfo) and isinstance(engine, QuickSuccessor)
    assert isinstance(engine, SearchActions)
    state = engine.setup()
    assert list(engine.search_actions(state)) == list(engine.legal_actions(state))


@pytest.mark.parametrize("key", KEYS)
def test_the_start_is_level_and_scores_flip_with_the_side_to_move(key: str) -> None:
    engine = get_variant(key)
    assert isinstance(engine, Evaluation)
    assert engine.evaluate(engine.setup()) == 0  # every start position is a mirror image
    for state in random_positions(engine, key):
        assert engine.evaluate(state) == -engine.evaluate(other_side_to_move(state))


@pytest.mark.parametrize("key", KEYS)
def test_the_module_documents_its_terms(key: str) -> None:
    module = importlib.import_module(f"pbem.variants.{PACKAGES[key]}.evaluation")
    text = module.__doc__ or ""
    for term in ("**Material**", "**Mobility**", "safety**", "the variant's own term"):
        assert term in text, term
    assert module.__doc__ is not None and len(module.__doc__.splitlines()[0]) <= 120


@pytest.mark.parametrize("key", KEYS)
def test_the_quick_successor_agrees_with_apply(key: str) -> None:
    engine = get_variant(key)
    assert isinstance(engine, QuickSuccessor) and isinstance(engine, PositionKey)
    for state in random_positions(engine, f"successor {key}", 4):
        for action in list(engine.legal_actions(state))[:12]:
            quick = engine.successor(state, action)
            if key != "hyperspace":  # a phase-out without a square is searched with a guessed return there
                assert quick == engine.apply(state, action).state
            assert engine.position_key(quick) == engine.position_key(engine.apply(state, action).state) or (
                key == "hyperspace")


# -- hyperspace ---------------------------------------------------------------------------------------------


def test_hyperspace_material_and_pool_discount() -> None:
    engine = get_variant("hyperspace")
    start = engine.setup()
    no_queen = replace(start, fen="rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    assert 850 <= engine.evaluate(no_queen) <= 1000
    board = chess.Board()
    unknown = PoolEntry(Seat.WHITE, "N", "b1", 1, 1)
    assert pool_value(unknown, board) == 320 * 70 // 100
    assert pool_value(replace(unknown, square=Secret("c3")), board) == 320 * 75 // 100
    assert pool_value(replace(unknown, square=Secret("c7")), board) == 320 * 25 // 100  # a black pawn there
    assert pool_value(replace(unknown, square=Secret("e1")), board) == 320 * 25 // 100  # the own king there


def test_hyperspace_a_phased_out_piece_still_counts_for_its_owner() -> None:
    engine = get_variant("hyperspace")
    state = engine.apply(engine.setup(), engine.parse_action(engine.setup(), "Nb1@1 {c3}")).state
    # Black to move: White's knight counts 75% while in hyperspace, so Black is up about a quarter of it...
    assert 40 < engine.evaluate(state) < 160
    # ...and not the whole knight, as Black would be if it were gone.
    assert engine.evaluate(replace(state, pool=())) - engine.evaluate(state) == 320 * 75 // 100


# -- outer space --------------------------------------------------------------------------------------------


def test_outer_space_nebula_danger_counts_galaxy_moves() -> None:
    start = get_variant("outer-space").setup()
    board = start.board
    assert galaxy_distance(board, board.index("G"), board.index("n")) is None  # too far at the start
    near = parse_position("5/5/1n3/1G3/5/5/5/N4 3 w 0,0,0 - 0 1")
    assert galaxy_distance(near.board, near.board.index("G"), near.board.index("n")) == 1
    # From the Black Hole 1c4 a warp to the empty Black Hole 1d6 puts the Galaxy next to 1d7.
    warp = parse_position("5/3n1/5/5/2G2/5/5/N4 3 w 0,0,0 - 0 1")
    assert galaxy_distance(warp.board, warp.board.index("G"), warp.board.index("n")) == 2
    engine = get_variant("outer-space")
    far = parse_position("n4/5/5/5/5/5/5/N1G2 3 w 0,0,0 - 0 1")
    assert engine.evaluate(near) - engine.evaluate(far) >= 300


def test_outer_space_hyperspace_term() -> None:
    start = get_variant("outer-space").setup()
    assert hyperspace_term(start, True) == hyperspace_term(start, False) == -25  # each Galaxy is in hyperspace
    obliged = replace(start, ages=(0, 0, 3))  # White's Galaxy on 2c, 3 turns there: it must go to 2b
    assert hyperspace_term(obliged, True) == -25 - 15
    # A Planet on the Black Hole 1b6: it dies when 2b empties, and the holder of 2b decides when.
    own_holder = parse_position("n4/5/1P3/5/5/5/5/N4 1G1 w 0,0,0 - 0 1")
    enemy_holder = parse_position("n4/5/1P3/5/5/5/5/N4 1g1 w 0,0,0 - 0 1")
    assert hyperspace_term(own_holder, True) == -25 - 250 // 6
    assert hyperspace_term(enemy_holder, True) == -(250 // 3)


def test_outer_space_own_captures_are_not_gains() -> None:
    engine = get_variant("outer-space")
    state = engine.setup()
    assert all(engine.capture_values(state, a) is None for a in engine.legal_actions(state))


# -- space chess ------------------------------------------------------------------------------------------------


def _space_chess(levels: list[str], turn: str = "white") -> SpaceState:
    engine = get_variant("space-chess")
    data = {"format": "space-chess/1", "levels": levels, "turn": turn, "unmoved": [], "ep": None, "halfmove": 0,
            "fullmove": 1, "options": {}, "history": []}
    state: SpaceState = engine.load(data)
    return state


def _level(squares: dict[str, str]) -> str:
    cells = ["."] * 64
    for name, letter in squares.items():
        cells[chess.parse_square(name)] = letter
    return "".join(cells)


def test_space_chess_enemy_pieces_on_the_kings_level() -> None:
    engine = get_variant("space-chess")
    empty, black_king = _level({}), _level({"e8": "k"})
    rook_elsewhere = _space_chess([_level({"h1": "K"}), _level({"a5": "r"}), black_king])
    rook_on_level = _space_chess([_level({"h1": "K", "a5": "r"}), empty, black_king])
    assert engine.evaluate(rook_elsewhere) - engine.evaluate(rook_on_level) == 480 // 10


def test_space_chess_level_changes() -> None:
    engine = get_variant("space-chess")
    empty, black_king = _level({}), _level({"e8": "k"})
    off_star = _space_chess([_level({"h1": "K", "d3": "N"}), empty, black_king])
    on_star = _space_chess([_level({"h1": "K", "c3": "N"}), empty, black_king])
    assert engine.evaluate(on_star) - engine.evaluate(off_star) == 8  # same centre, same reach
    pieces = [(i, p) for i, p in enumerate(on_star.board) if p]
    marks = markings(on_star.options)
    assert level_changes(pieces, 1, marks.star, marks.king_symbol) == 8
    king_on_symbol = _space_chess([_level({"f1": "K"}), empty, black_king])
    pieces = [(i, p) for i, p in enumerate(king_on_symbol.board) if p]
    assert level_changes(pieces, 1, marks.star, marks.king_symbol) == 15


# -- tri-d ------------------------------------------------------------------------------------------------------------


def test_tri_d_attack_board_control() -> None:
    engine = get_variant("tri-d")
    start = engine.setup()
    assert board_control(start, 0) == board_control(start, 1) == 2 * 20  # loaded boards cannot move
    data = engine.dump(start)
    data["boards"][0]["owner"] = "black"  # b1(1) passes to Black (its pieces stay White's)
    given = engine.load(data)
    assert board_control(given, 0) == 20 and board_control(given, 1) == 3 * 20
    assert engine.evaluate(start) - engine.evaluate(given) == 2 * 20
    emptied = dict(data, pieces={k: v for k, v in data["pieces"].items() if not k.endswith("(7)")
                                 or k in ("e9(7)", "f9(7)", "e8(7)", "f8(7)")})
    emptied["pieces"]["e9(7)"] = "k"
    assert board_control(engine.load(emptied), 1) == 3 * 20 + 10  # b8(7) is empty now: it can move


# -- voidrider ---------------------------------------------------------------------------------------------------


def test_voidrider_void_structure() -> None:
    rows = [" v   v ", "rnbkbnr", " ppppp ", " ..... ", " ..... ", " ..... ", " PPPPP ", "RNBKBNR", " V   V "]
    start = board_from_rows(rows)
    assert void_structure(start, True) == void_structure(start, False) == 0
    hole = list(rows)
    hole[5] = " .. .. "  # d4 is void: White's d-pawn must carry its space before it can advance
    assert void_structure(board_from_rows(hole), True) == -10
    assert void_structure(board_from_rows(hole), False) == 0
    stranded = ["       ", "   k   ", "       ", "       ", "       ", "       ", "       ", " R   K ", " .   . "]
    # The rook on b2 and the king on f2 share a side with a space (b1, f1): not stranded; a lone king is.
    assert void_structure(board_from_rows(stranded), True) == 0
    assert void_structure(board_from_rows(stranded), False) == -20
    engine = get_variant("voidrider")
    assert engine.evaluate(VoidriderState(board=board_from_rows(hole))) < engine.evaluate(VoidriderState(board=start))
