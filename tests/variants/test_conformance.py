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

from pbem.engine.base import Audience, Variant
from pbem.engine.capabilities import FastPerft
from pbem.engine.errors import IllegalMoveError, MoveError
from pbem.variants import all_variants, get_variant
from tests.variants.helpers import generic_perft, position, read_perft

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
        from pbem.variants.tri_d import rules as tri_d_rules

        king = tri_d_rules.king_square(after.board, before.turn)
        return tri_d_rules.attacked(after.board, tri_d_rules.geometry(after), king, after.turn)
    if key == "voidrider":
        from pbem.variants.voidrider import rules as voidrider_rules

        white = before.turn.value == "white"
        king = after.board.index("K" if white else "k")
        return voidrider_rules.attacked(after.board, king, not white)
    raise AssertionError(f"no royal-safety judge for {key}")


@pytest.mark.parametrize("key", [v.key for v in all_variants() if v.royal_check])
def test_no_listed_move_leaves_the_own_king_attacked(key: str, rng: random.Random) -> None:
    engine = engine_for(key)
    for state, _, _ in playout(engine, rng, 60):
        for action in engine.legal_actions(state):
            after = engine.apply(state, action).state
            assert not mover_king_attacked(key, state, after), engine.describe(state, action)


def test_outer_space_is_the_variant_without_check() -> None:
    assert [v.key for v in all_variants() if not v.royal_check] == ["outer-space"]
