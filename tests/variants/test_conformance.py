"""Every registered variant against the same contract (python-chess style conformance).

Random positions come from seeded playouts; the seed is drawn afresh per run and printed
(pytest shows it with any failure), so a failing run can be replayed by setting
``PBEM_CONFORMANCE_SEED``.
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any

import chess
import pytest

from pbem.engine.base import Audience, Seat, Variant
from pbem.engine.capabilities import FastPerft
from pbem.engine.errors import IllegalMoveError, MoveError
from pbem.variants import all_variants, get_variant
from tests.variants.helpers import generic_perft, position, read_perft
from tests.variants.judges import tri_d_king_attacked, voidrider_king_attacked

KEYS = [variant.key for variant in all_variants()]
SEED = int(os.environ.get("PBEM_CONFORMANCE_SEED", random.randrange(2**32)))


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> random.Random:
    seed = SEED + sum(map(ord, request.node.name))
    print(f"conformance seed {SEED} (this test: {seed})")
    return random.Random(seed)


def engine_for(key: str) -> Variant[Any, Any]:
    return get_variant(key)


def playout(engine: Variant[Any, Any], rng: random.Random, plies: int, *,
            greedy: bool = False) -> Iterator[tuple[Any, Any, Any]]:
    """(state, action, next state) along one random game; ``greedy`` prefers captures, to reach the end."""
    state = engine.setup()
    for _ in range(plies):
        actions = list(engine.legal_actions(state))
        if not actions:
            return
        if greedy:
            captures = [a for a in actions if "x" in engine.describe(state, a)]
            if captures and rng.random() < 0.95:
                actions = captures
        action = rng.choice(actions)
        after = engine.apply(state, action).state
        yield state, action, after
        state = after


def sample_positions(engine: Variant[Any, Any], rng: random.Random, games: int = 3, plies: int = 40) -> list[Any]:
    found = [engine.setup()]
    for _ in range(games):
        found.extend(after for _, _, after in playout(engine, rng, plies) if rng.random() < 0.25)
    return found


# -- perft -----------------------------------------------------------------------------------------

PERFT_CASES = [
    pytest.param(key, case.id, depth, count, id=f"{key}-{case.id}-{depth}",
                 marks=[pytest.mark.slow] if count > 5000 else [])
    for key in KEYS for case in read_perft(key) for depth, count in sorted(case.counts.items())
]


def test_every_variant_has_perft_figures() -> None:
    assert all(read_perft(key) for key in KEYS)


@pytest.mark.parametrize(("key", "case_id", "depth", "count"), PERFT_CASES)
def test_perft_figures(key: str, case_id: str, depth: int, count: int) -> None:
    engine = engine_for(key)
    case = next(c for c in read_perft(key) if c.id == case_id)
    state = position(engine, case.moves)
    fast = engine.perft(state, depth) if isinstance(engine, FastPerft) else generic_perft(engine, state, depth)
    assert fast == count


@pytest.mark.parametrize("key", [k for k in KEYS if isinstance(engine_for(k), FastPerft)])
def test_fast_perft_equals_the_generic_count(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    assert isinstance(engine, FastPerft)
    for state in sample_positions(engine, rng, games=2, plies=30)[:6]:
        assert engine.perft(state, 2) == generic_perft(engine, state, 2)


# -- notation and storage ------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_parse_of_describe_gives_the_same_move(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    for state in sample_positions(engine, rng):
        for action in engine.legal_actions(state):
            text = engine.describe(state, action)
            assert engine.parse_action(state, text) == action, text


@pytest.mark.parametrize("key", KEYS)
def test_dump_and_load_round_trip(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    for state in sample_positions(engine, rng):
        assert engine.load(engine.dump(state)) == state


# -- playouts and the end of the game ------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_random_playouts_never_raise_and_end_cleanly(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    ended = 0
    for _ in range(12):
        if ended >= 2:
            break
        last = None
        for state, action, after in playout(engine, rng, 400, greedy=True):
            assert engine.to_act(state) is not None
            assert engine.view(after, Audience.PUBLIC).status
            last = (state, action, after)
        if last is None:
            continue
        before, action, final = last
        if engine.outcome(final) is None:
            continue
        ended += 1
        assert list(engine.legal_actions(final)) == []
        assert engine.to_act(final) is None
        with pytest.raises(IllegalMoveError):
            engine.apply(final, action)
        with pytest.raises(MoveError):
            engine.parse_action(final, engine.describe(before, action))
    assert ended, "no random playout reached the end of the game"


@pytest.mark.parametrize("key", KEYS)
def test_every_view_has_a_picture_and_every_move_highlights(key: str, rng: random.Random) -> None:
    """Each audience's view carries a BoardView; each move (but a pass) names squares to highlight,
    and each highlight becomes a mark of the picture."""
    engine = engine_for(key)
    for state in sample_positions(engine, rng, games=2, plies=20):
        for audience in (Seat.WHITE, Seat.BLACK, Audience.PUBLIC, Audience.REFEREE):
            board = engine.view(state, audience).board
            assert board is not None and board.panels
        for action in list(engine.legal_actions(state))[:3]:
            transition = engine.apply(state, action)
            if engine.describe(state, action) == "pass":
                continue
            assert transition.highlights
            board = engine.view(transition.state, Audience.PUBLIC, transition.highlights).board
            assert board is not None
            marked = [mark for panel in board.panels for _, mark in panel.marks]
            assert all(mark in marked for _, mark in transition.highlights)


# -- royal safety: no listed move leaves the mover's king attacked --------------------------------


def _space_chess_king_attacked(state: Any, colour: int) -> bool:
    """Orthodox attacks on the king's own level only (S13), written out plainly."""
    board = state.board
    king = board.index(6 * colour)
    level, file, rank = king // 64, king % 8, king // 8 % 8

    def at(f: int, r: int) -> int | None:
        return board[level * 64 + r * 8 + f] if 0 <= f < 8 and 0 <= r < 8 else None

    enemy = -colour
    for df, dr in ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)):
        if at(file + df, rank + dr) == 2 * enemy:
            return True
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and at(file + df, rank + dr) == 6 * enemy:
                return True
    for df in (-1, 1):  # an enemy pawn attacks forward-diagonally: it stands one rank toward us
        if at(file + df, rank + colour) == 1 * enemy:
            return True
    for (df, dr), sliders in [(d, (4, 5)) for d in ((1, 0), (-1, 0), (0, 1), (0, -1))] + \
                             [(d, (3, 5)) for d in ((1, 1), (1, -1), (-1, 1), (-1, -1))]:
        f, r = file + df, rank + dr
        while (piece := at(f, r)) is not None:
            if piece:
                if piece * colour < 0 and abs(piece) in sliders:
                    return True
                break
            f, r = f + df, r + dr
    return False


def _hyperspace_king_attacked(state: Any, seat_white: bool) -> bool:
    """python-chess on the board after the move (returns from hyperspace already made)."""
    board = chess.Board(state.fen)
    king = board.king(seat_white)
    return king is not None and board.is_attacked_by(not seat_white, king)


def mover_king_attacked(key: str, before: Any, after: Any) -> bool:
    if key == "space-chess":
        return _space_chess_king_attacked(after, before.turn)
    if key == "hyperspace":
        return _hyperspace_king_attacked(after, chess.Board(before.fen).turn == chess.WHITE)
    if key == "tri-d":
        # Every opponent piece's capture reach, with the surfaces rebuilt from the state's attack-board pins.
        return tri_d_king_attacked(after, before.turn)
    if key == "voidrider":
        return voidrider_king_attacked(after, before.turn is Seat.WHITE)
    raise AssertionError(f"no royal-safety judge for {key}")


@pytest.mark.parametrize("key", [v.key for v in all_variants() if v.royal_check])
def test_no_listed_move_leaves_the_own_king_attacked(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    for state, _, _ in playout(engine, rng, 60):
        for action in engine.legal_actions(state):
            after = engine.apply(state, action).state
            assert not mover_king_attacked(key, state, after), engine.describe(state, action)


@pytest.mark.parametrize("key", ["tri-d", "voidrider"])
def test_the_judge_agrees_with_the_engine_s_check_marks(key: str, rng: random.Random) -> None:
    """Both ways: a '+' or '#' in the record iff the judge finds the side to move attacked."""
    engine = engine_for(key)
    checks = 0
    for _ in range(6):
        for state, action, after in playout(engine, rng, 80, greedy=True):
            marked = engine.apply(state, action).record.endswith(("+", "#"))
            if key == "tri-d":
                attacked = tri_d_king_attacked(after, after.turn)
            else:
                attacked = voidrider_king_attacked(after, after.turn is Seat.WHITE)
            assert marked == attacked, engine.describe(state, action)
            checks += attacked
    assert checks, "no random playout gave check"


def test_outer_space_is_the_variant_without_check() -> None:
    assert [v.key for v in all_variants() if not v.royal_check] == ["outer-space"]


# -- the tri-d and Voidrider judges can fail: positions where a king IS attacked ---------------------

TRI_D_BOARDS = {"b1(1)": "white", "e1(1)": "white", "b8(7)": "black", "e8(7)": "black"}


def _tri_d(pieces: dict[str, str], boards: dict[str, str] = TRI_D_BOARDS, turn: str = "white",
           **rules: bool) -> Any:
    return engine_for("tri-d").load({"format": "tri-d/1", "pieces": pieces, "turn": turn,
                                     "boards": [{"pin": pin, "owner": owner} for pin, owner in boards.items()],
                                     "rules": {"knight_two_routes": True, **rules}})


def _tri_d_moved(state: Any, src: str, dst: str) -> Any:
    """``state`` with the piece on ``src`` put on ``dst`` and the turn passed, by editing the dump (no rules)."""
    engine = engine_for("tri-d")
    data = engine.dump(state)
    pieces = dict(data["pieces"])
    pieces[dst] = pieces.pop(src).rstrip("*^")
    return engine.load({**data, "pieces": pieces, "turn": "black" if data["turn"] == "white" else "white",
                        "ep": None})


def test_tri_d_judge_sees_a_check_through_an_implied_position() -> None:
    # V13: the bishop's (R,L) diagonal d1(2) -> d2(3) (implied) -> d3(4), made by the engine.
    engine = engine_for("tri-d")
    before = _tri_d({"e2(2)": "B", "b1(2)": "K", "d3(4)": "k", "e7(6)": "p"})
    check = engine.apply(before, engine.parse_action(before, "Be2(2)-d1(2)")).state
    assert not tri_d_king_attacked(before, 1) and tri_d_king_attacked(check, 1)
    assert not tri_d_king_attacked(check, 0)
    # A Black move that ignores the check leaves the king attacked: the property would catch it.
    ignored = _tri_d_moved(check, "e7(6)", "e6(6)")
    assert mover_king_attacked("tri-d", check, ignored)
    assert not mover_king_attacked("tri-d", check, _tri_d_moved(check, "d3(4)", "c3(4)"))


@pytest.mark.parametrize(("pieces", "boards", "rules", "attacked"), [
    # Knight, one level by the skipped absent level 3 (V7): both routes reach b3(4) ...
    ({"b1(2)": "N", "e2(2)": "K", "b3(4)": "k"}, TRI_D_BOARDS, {}, True),
    # ... with boards at b1(3) and b3(3) both routes stop on level 3 ...
    ({"b1(2)": "N", "e2(2)": "K", "b3(4)": "k"},
     {"b1(3)": "white", "b3(3)": "white", "b8(7)": "black", "e8(7)": "black"}, {}, False),
    # ... with only b3(3), the vertical-first route at b1 still skips to level 4, unless the game says not.
    ({"b1(2)": "N", "e2(2)": "K", "b3(4)": "k"},
     {"b3(3)": "white", "e1(1)": "white", "b8(7)": "black", "e8(7)": "black"}, {}, True),
    ({"b1(2)": "N", "e2(2)": "K", "b3(4)": "k"},
     {"b3(3)": "white", "e1(1)": "white", "b8(7)": "black", "e8(7)": "black"}, {"knight_two_routes": False}, False),
    # Pawn, sideways and up (V8): over the absent b4(3) to b4(4); a board at b4(3) stops it there.
    ({"c4(2)": "P", "e1(2)": "K", "b4(4)": "k"}, TRI_D_BOARDS, {}, True),
    ({"c4(2)": "P", "e1(2)": "K", "b4(4)": "k"},
     {"b4(3)": "white", "e1(1)": "white", "b8(7)": "black", "e8(7)": "black"}, {}, False),
    ({"c4(2)": "P", "e1(2)": "K", "c5(4)": "k"}, TRI_D_BOARDS, {}, False),  # straight up is no capture
    # Rook along rank 9 of level 7 through the implied c9(7), d9(7); a piece on b9(7) blocks it.
    ({"a9(7)": "R", "b1(2)": "K", "f9(7)": "k"}, TRI_D_BOARDS, {}, True),
    ({"a9(7)": "R", "b9(7)": "q", "b1(2)": "K", "f9(7)": "k"}, TRI_D_BOARDS, {}, False),
    # A knight pinned to its own king by the rook on b4(2) still gives check.
    ({"b1(2)": "K", "b2(2)": "N", "b4(2)": "r", "d3(2)": "k"}, TRI_D_BOARDS, {}, True),
    # Kings one level apart across the absent level 3.
    ({"c3(2)": "K", "c3(4)": "k"}, TRI_D_BOARDS, {}, True),
])
def test_tri_d_judge_cases(pieces: dict[str, str], boards: dict[str, str], rules: dict[str, bool],
                           attacked: bool) -> None:
    state = _tri_d(pieces, boards, turn="white", **rules)
    assert tri_d_king_attacked(state, 1) is attacked


def _voidrider(rows: list[str], turn: str = "white") -> Any:
    return engine_for("voidrider").load({"format": "voidrider-chess/1", "board": rows, "turn": turn,
                                         "castling": "", "halfmove": 0, "fullmove": 20})


def test_voidrider_judge_sees_a_check_across_void_and_a_void_opened_by_a_space_move() -> None:
    engine = engine_for("voidrider")
    # W11: the Voidrider's space move to a5 gives check across the void b5, c5 (made by the engine).
    before = _voidrider([".......", ".......", ".......", ".......", "   k.  ", "V......", ".......",
                         ".......", "K......"])
    check = engine.apply(before, engine.parse_action(before, "Va4~a5")).state
    assert not voidrider_king_attacked(before, False) and voidrider_king_attacked(check, False)
    assert not voidrider_king_attacked(check, True)
    # W8: carrying d3 away (Bd3~c3) would open the void line d5-d3 between the Voidrider and the king;
    # the edited dump is that move made without the rules, and the judge catches it.
    shield = ["k......", ".......", ".......", "...v...", "... ...", "... ...", ".. B...", "...K...", "......."]
    carried = [*shield[:6], "..B ...", *shield[7:]]
    assert not mover_king_attacked("voidrider", _voidrider(shield), _voidrider(shield, "black"))
    assert mover_king_attacked("voidrider", _voidrider(shield), _voidrider(carried, "black"))


@pytest.mark.parametrize(("rows", "attacked"), [
    # A rook is stopped by void (W5); across spaces it checks.
    ([".......", ".......", ".......", ".......", "R  k...", ".......", ".......", ".......", "K......"], False),
    ([".......", ".......", ".......", ".......", "R..k...", ".......", ".......", ".......", "K......"], True),
    # A bishop likewise; the knight leaps over void.
    (["...k...", ".. ....", ".B.....", ".......", ".......", ".......", ".......", ".......", "K......"], False),
    (["...k...", "       ", "  N    ", ".......", ".......", ".......", ".......", ".......", "K......"], True),
    # The Voidrider rides to the first space only: an empty space before the king shields it.
    (["...k...", "       ", "   .   ", "       ", "...V...", ".......", ".......", ".......", "K......"], False),
    (["...k...", "       ", "       ", "       ", "...V...", ".......", ".......", ".......", "K......"], True),
    # A pawn captures forward-diagonally only.
    ([".......", ".......", ".......", ".......", "...k...", "..P....", ".......", ".......", "K......"], True),
    ([".......", ".......", ".......", ".......", "..k....", "..P....", ".......", ".......", "K......"], False),
    # A knight pinned to its own king by the rook on g1 still gives check.
    ([".......", ".......", ".......", ".......", ".......", ".......", "...k...", ".......", "K.N...r"], True),
])
def test_voidrider_judge_cases(rows: list[str], attacked: bool) -> None:
    assert voidrider_king_attacked(_voidrider(rows, turn="black"), False) is attacked
