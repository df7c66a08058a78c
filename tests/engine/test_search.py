"""The search over every variant: mates, captures, the time budget, levels, the table, and secrecy by construction."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pbem.engine.base import Seat, Variant
from pbem.engine.capabilities import SecretKeeping
from pbem.engine.search import (
    LEVELS,
    MATE,
    Limits,
    SearchResult,
    choose_action,
    format_score,
    limits_for_level,
    search,
    seat_view,
)
from pbem.engine.search_table import Bound, TranspositionTable, from_table, to_table
from pbem.engine.secret import Secret
from pbem.variants import all_variants, get_variant
from pbem.variants.hyperspace.model import HyperspaceState, PhaseOut

KEYS = [variant.key for variant in all_variants()]
CASES: dict[str, dict[str, Any]] = json.loads(
    (Path(__file__).parent / "search_positions.json").read_text())["variants"]


class FakeClock:
    """A clock that moves ``step`` seconds every time it is read."""

    def __init__(self, step: float = 0.0) -> None:
        self.time = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        self.time += self.step
        return self.time


def still() -> float:
    return 0.0


def play(engine: Variant[Any, Any], moves: list[str]) -> Any:
    state = engine.setup()
    for text in moves:
        state = engine.apply(state, engine.parse_action(state, text)).state
    return state


def winning_moves(engine: Variant[Any, Any], state: Any) -> list[Any]:
    """The actions after which the game is won by the side that played them."""
    seat = engine.to_act(state)
    found = []
    for action in engine.legal_actions(state):
        over = engine.outcome(engine.apply(state, action).state)
        if over is not None and over.winner is seat:
            found.append(action)
    return found


def random_position(engine: Variant[Any, Any], rng: random.Random, plies: int) -> Any:
    """A position some random plies from the start that is not over (captures preferred half the time)."""
    state = engine.setup()
    for _ in range(plies):
        actions = list(engine.legal_actions(state))
        captures = [a for a in actions if "x" in engine.describe(state, a)]
        action = rng.choice(captures if captures and rng.random() < 0.5 else actions)
        after = engine.apply(state, action).state
        if engine.outcome(after) is not None:
            break
        state = after
    return state


def assert_playable(engine: Variant[Any, Any], state: Any, result: SearchResult) -> None:
    """The action is legal here (a completed phase-out: its public part is), seals, and applies."""
    action = result.action
    legal = list(engine.legal_actions(state))
    if isinstance(action, PhaseOut):
        assert action.secret is not None, "the computer's phase-out has no return square"
        assert replace(action, secret=None) in legal or action.delay > 1  # H7 took delay 1: see below
    else:
        assert action in legal
    if isinstance(engine, SecretKeeping):
        action = engine.seal(state, action, "nonce")
    engine.apply(state, action)


# -- mates and captures -----------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_finds_a_mate_in_one(key: str) -> None:
    engine = get_variant(key)
    state = play(engine, CASES[key]["mate"])
    result = search(engine, state, Limits(depth=2), still)
    assert engine.describe(state, result.action) in CASES[key]["mating"]
    assert result.score == MATE - 1 and result.mate_in == 1 and format_score(result.score) == "mate in 1"
    over = engine.outcome(engine.apply(state, result.action).state)
    assert over is not None and over.winner is engine.to_act(state)


@pytest.mark.parametrize("key", KEYS)
def test_avoids_a_mate_in_one(key: str) -> None:
    engine = get_variant(key)
    state = play(engine, CASES[key]["avoid"])
    allowing = [a for a in engine.legal_actions(state)
                if winning_moves(engine, engine.apply(state, a).state)]
    assert allowing, "the position must hold a way to be mated at once"
    result = search(engine, state, Limits(depth=2), still)
    after = engine.apply(state, result.action).state
    assert result.action not in allowing and not winning_moves(engine, after)
    assert result.score > -MATE + 10


@pytest.mark.parametrize("key", KEYS)
def test_captures_a_hanging_piece_at_depth_2(key: str) -> None:
    engine = get_variant(key)
    state = play(engine, CASES[key]["hanging"])
    result = search(engine, state, Limits(depth=2), still)
    assert engine.describe(state, result.action) == CASES[key]["capture"]
    assert result.depth == 2 and len(result.pv) >= 1 and result.pv[0] == result.action


def test_a_finished_game_is_refused() -> None:
    engine = get_variant("hyperspace")
    state = play(engine, ["f3", "e5", "g4", "Qh4"])
    with pytest.raises(ValueError, match="over"):
        search(engine, state, Limits(depth=1), still)


# -- budgets ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_stops_at_the_deadline_of_an_injected_clock(key: str) -> None:
    engine = get_variant(key)
    clock = FakeClock(step=0.01)  # 100 reads make the second
    result = search(engine, engine.setup(), Limits(depth=64, seconds=1.0), clock)
    assert result.depth >= 1 and result.depth < 64
    # The clock is read every 64 nodes, so the search ends within 64 nodes of the first late reading.
    assert clock.reads <= 110
    assert result.nodes <= (clock.reads + 1) * 64
    assert result.seconds == pytest.approx(clock.time - 0.01, abs=0.02)
    assert_playable(engine, engine.setup(), result)


def test_no_iteration_starts_after_half_the_budget() -> None:
    engine = get_variant("voidrider")
    clock = FakeClock(step=0.0)
    first = search(engine, engine.setup(), Limits(depth=3), clock)
    clock = FakeClock(step=3.0)  # the reading after the first iteration is past half of the 4 seconds
    result = search(engine, engine.setup(), Limits(depth=3, seconds=4.0), clock)
    assert result.depth == 1 and first.depth == 3


def test_a_budget_spent_before_the_first_move_still_gives_a_legal_move() -> None:
    engine = get_variant("tri-d")
    result = search(engine, engine.setup(), Limits(depth=64, seconds=0.0, nodes=1), FakeClock(step=1.0))
    assert_playable(engine, engine.setup(), result)


def test_node_limit() -> None:
    engine = get_variant("outer-space")
    result = search(engine, engine.setup(), Limits(depth=64, nodes=500), still)
    assert result.nodes <= 501 and 1 <= result.depth < 64


# -- levels, randomness, legality ------------------------------------------------------------------------


def test_levels_grow_in_depth_and_time() -> None:
    assert sorted(LEVELS) == [1, 2, 3, 4, 5]
    assert LEVELS[1].depth == 1 and LEVELS[1].noise > 0
    assert all(LEVELS[n].depth <= LEVELS[n + 1].depth and LEVELS[n].seconds <= LEVELS[n + 1].seconds
               for n in range(1, 5))
    assert LEVELS[5].seconds >= 3
    assert limits_for_level(5, max_seconds=2.0).seconds == 2.0
    with pytest.raises(ValueError, match="level"):
        limits_for_level(6)


@pytest.mark.parametrize("key", KEYS)
def test_reductions_keep_the_mate_and_the_capture(key: str) -> None:
    """Checks, captures and the first moves are never searched shallower."""
    engine = get_variant(key)
    mate = play(engine, CASES[key]["mate"])
    result = search(engine, mate, Limits(depth=3, reductions=True), still)
    assert engine.describe(mate, result.action) in CASES[key]["mating"] and result.score == MATE - 1
    hanging = play(engine, CASES[key]["hanging"])
    result = search(engine, hanging, Limits(depth=3, reductions=True), still)
    assert engine.describe(hanging, result.action) == CASES[key]["capture"]


@pytest.mark.parametrize("key", KEYS)
def test_reductions_search_fewer_nodes_to_the_same_depth(key: str) -> None:
    engine = get_variant(key)
    rng = random.Random(f"reductions {key}")
    depth = 4  # the root is never reduced, so depth 4 is the first where a node below it is
    state = random_position(engine, rng, 10)
    full = search(engine, state, Limits(depth=depth), still)
    reduced = search(engine, state, Limits(depth=depth, reductions=True), still)
    assert full.depth == reduced.depth == depth
    assert reduced.nodes < full.nodes
    assert_playable(engine, state, reduced)


def test_only_level_5_and_analyses_reduce() -> None:
    from pbem.app.thinking import Question, _limits
    from pbem.cli.main import analysis_limits

    assert [limits_for_level(level).reductions for level in LEVELS] == [False, False, False, False, True]
    assert analysis_limits(None, 5.0).reductions and analysis_limits(5, None).reductions
    assert not analysis_limits(4, None).reductions and analysis_limits(5, None).noise == 0

    def asked(level: int) -> Question:
        return Question(variant="space-chess", rules="{}", view={}, seat="white", level=level, seconds=5.0, seed=1)

    assert _limits(asked(0)).reductions  # an analysis mailed to a player or organiser
    assert [_limits(asked(level)).reductions for level in LEVELS] == [False] * 4 + [True]


@pytest.mark.parametrize("key", KEYS)
def test_every_level_returns_a_legal_action_from_random_positions(key: str) -> None:
    engine = get_variant(key)
    rng = random.Random(f"levels {key}")
    for plies in (9, 26):
        state = random_position(engine, rng, plies)
        seat = engine.to_act(state)
        assert seat is not None
        for level in LEVELS:
            clock = FakeClock(step=0.5)  # level 5's eight seconds last 16 readings
            result = choose_action(engine, state, seat, level, random.Random(level), clock)
            assert_playable(engine, state, result)


def test_level_1_noise_comes_from_the_random_source() -> None:
    engine = get_variant("hyperspace")
    state = engine.setup()
    chosen = {engine.describe(state, choose_action(engine, state, Seat.WHITE, 1, random.Random(seed), still).action)
              for seed in range(12)}
    assert len(chosen) > 1  # the opening's quiet moves are close: the noise decides
    again = [choose_action(engine, state, Seat.WHITE, 1, random.Random(7), still).action for _ in range(2)]
    assert again[0] == again[1]


def test_noise_without_a_random_source_is_refused() -> None:
    engine = get_variant("voidrider")
    with pytest.raises(ValueError, match="random"):
        search(engine, engine.setup(), Limits(depth=1, noise=10), still)


def test_choose_action_checks_the_seat() -> None:
    engine = get_variant("space-chess")
    with pytest.raises(ValueError, match="turn"):
        choose_action(engine, engine.setup(), Seat.BLACK, 1, random.Random(1), still)


# -- the transposition table ------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_the_table_does_not_change_a_fixed_depth_result(key: str) -> None:
    engine = get_variant(key)
    rng = random.Random(f"table {key}")
    depth = 2 if key == "hyperspace" else 3
    for plies in (0, 12, 30):
        state = random_position(engine, rng, plies)
        with_table = search(engine, state, Limits(depth=depth), still)
        without = search(engine, state, Limits(depth=depth), still, use_table=False)
        assert (with_table.action, with_table.score) == (without.action, without.score)
        assert with_table.depth == without.depth == depth


def test_table_keeps_deeper_entries_and_gives_way_to_a_new_search() -> None:
    table = TranspositionTable(bits=1)  # two slots: every key collides with another
    keys = [k for k in range(40) if hash(k) & 1 == 0][:2]
    table.store(keys[0], 5, 10, Bound.EXACT, "deep")
    table.store(keys[1], 2, 20, Bound.EXACT, "shallow")
    assert table.probe(keys[0]) is not None and table.probe(keys[1]) is None
    table.new_search()
    table.store(keys[1], 2, 20, Bound.LOWER, "shallow")
    entry = table.probe(keys[1])
    assert entry is not None and entry.action == "shallow" and table.probe(keys[0]) is None


def test_mate_scores_are_stored_relative_to_the_node() -> None:
    assert from_table(to_table(MATE - 7, 3), 5) == MATE - 9
    assert from_table(to_table(-MATE + 4, 2), 2) == -MATE + 4
    assert to_table(35, 9) == 35


# -- secrets: the search sees only its seat's view ----------------------------------------------------------


class UnreadableSecret(Secret):
    """A secret that fails the test if anything opens it."""

    def reveal(self) -> str:
        raise AssertionError("the search read the opponent's secret")


def black_in_hyperspace(square: str) -> HyperspaceState:
    """White to move; Black's knight from b8 is in hyperspace, coming back to ``square`` in two turns."""
    engine = get_variant("hyperspace")
    return play(engine, ["e4", f"Nb8@2 {{{square}}}"])


def with_unreadable_secrets(state: HyperspaceState, seat: Seat) -> HyperspaceState:
    pool = tuple(replace(e, square=UnreadableSecret(e.square.reveal())) if e.seat is seat and e.square else e
                 for e in state.pool)
    return replace(state, pool=pool)


def test_the_search_never_reads_the_opponents_secret() -> None:
    engine = get_variant("hyperspace")
    state = with_unreadable_secrets(black_in_hyperspace("c6"), Seat.BLACK)
    with pytest.raises(AssertionError, match="secret"):
        engine.dump(state)  # the trap works: reading the square fails
    for level in (1, 2, 3):
        result = choose_action(engine, state, Seat.WHITE, level, random.Random(level), FakeClock(step=0.05))
        assert_playable(engine, black_in_hyperspace("c6"), result)
    result = search(engine, state, Limits(depth=3), still)
    assert result.depth == 3


def test_the_seat_view_drops_only_the_opponents_squares() -> None:
    engine = get_variant("hyperspace")
    state = black_in_hyperspace("c6")
    view = seat_view(engine, state, Seat.WHITE)
    assert [e.square for e in view.pool] == [None] and view.pool[0].public == "Nb8@2"
    assert seat_view(engine, state, Seat.BLACK) == state  # Black's own square stays
    assert len(view.history) == 1  # the hashes over the secret square are gone


def test_the_same_position_with_other_secret_squares_gets_the_same_move() -> None:
    engine = get_variant("hyperspace")
    for level in (1, 2, 3):
        results = [choose_action(engine, black_in_hyperspace(square), Seat.WHITE, level, random.Random(level), still)
                   for square in ("c6", "e4", "h1")]
        assert len({(r.action, r.score, r.pv, r.nodes) for r in results}) == 1


def test_computer_games_do_not_depend_on_unrevealed_squares() -> None:
    """Random Black turns (phase-outs with squares among them) against the computer as White: the same game
    replayed with Black's squares changed gives White the same moves until a Black piece comes back."""
    from tests.helpers.hyperspace import random_square

    engine = get_variant("hyperspace")
    hidden = 0
    for seed in range(3):
        games = []
        for squares_seed in (0, 1):
            rng, squares = random.Random(seed), random.Random(f"{seed} {squares_seed}")
            state, white_moves, black_squares = engine.setup(), [], []
            for _ply in range(14):
                if engine.to_act(state) is Seat.WHITE:
                    result = choose_action(engine, state, Seat.WHITE, 2, random.Random(seed), still)
                    white_moves.append(engine.describe(state, result.action))
                    state = engine.apply(state, engine.seal(state, result.action, "n")).state
                else:
                    texts = sorted(engine.describe(state, a) for a in engine.legal_actions(state))
                    text = rng.choice(texts)
                    if "@" in text:
                        black_squares.append(random_square(squares, text.split("@")[0]))
                        text += f" {{{black_squares[-1]}}}"
                    transition = engine.apply(state, engine.parse_action(state, text))
                    state = transition.state
                    if "&" in transition.record:
                        break  # a Black piece came back: its square is public from here on
                if engine.outcome(state) is not None:
                    break
            games.append((white_moves, black_squares))
        (first, first_squares), (second, second_squares) = games
        assert first == second and first
        hidden += first_squares != second_squares
    assert hidden  # some game really had Black's pieces in hyperspace on different squares


def test_the_computer_phases_out_a_trapped_piece_with_its_own_square() -> None:
    engine = get_variant("hyperspace")
    # White's bishop on a7 is attacked by the rook; b8 is covered and Bxb6 loses it to the c-pawn
    # (h3 gives the king air: with h2 the bishop's going would open the a-file for Ra1 mate).
    state = engine.load({"format": "hyperspace-chess/1", "fen": "r5k1/B1p2ppp/1p6/8/8/7P/5PP1/6K1 w - - 0 1",
                         "pool": [], "history": []})
    result = choose_action(engine, state, Seat.WHITE, 3, random.Random(1), still)
    action = result.action
    assert isinstance(action, PhaseOut) and action.public == "Ba7@1"
    assert action.secret is not None
    square = action.secret.reveal()
    assert square != "a7" and (ord(square[0]) + int(square[1])) % 2 == 0  # a dark square, as a7
    sealed = engine.seal(state, action, "abc")
    after = engine.apply(state, sealed)
    assert engine.secrets(after.state)[Seat.WHITE] and square not in after.record


def test_phase_outs_stay_searchable_when_h7_takes_delay_1() -> None:
    engine = get_variant("hyperspace")
    state = play(engine, ["Nb1@2 {c3}", "e5"])  # White's knight returns at turn 4, which delay 1 would take now
    assert not [a for a in engine.legal_actions(state) if isinstance(a, PhaseOut)]
    phase_outs = [a for a in engine.search_actions(state) if isinstance(a, PhaseOut)]
    assert phase_outs and {a.delay for a in phase_outs} == {2}
    assert {a for a in engine.search_actions(state) if not isinstance(a, PhaseOut)} == set(engine.legal_actions(state))
    for action in phase_outs:
        engine.apply(state, engine.complete_action(state, action))  # legal, with the computer's square
