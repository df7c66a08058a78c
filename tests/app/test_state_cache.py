"""state_of: a game's engine state loaded once while its stored JSON stays the same, per thread."""

from __future__ import annotations

import json
import random
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.app.game_state import engine_for, state_of, store_state
from pbem.engine.base import Audience, Seat
from pbem.engine.capabilities import ActionCompletion, SecretKeeping
from pbem.store.models import Game
from pbem.variants import all_variants, get_variant

KEYS = [variant.key for variant in all_variants()]


def stored(key: str, game_id: int = 7) -> Game:
    engine = get_variant(key)
    return Game(id=game_id, variant=key, state=engine.dump(engine.setup()), white_id=1, black_id=2)


def play(key: str, state: Any, rng: random.Random) -> Any:
    engine = get_variant(key)
    action = rng.choice(list(engine.legal_actions(state)))
    if isinstance(engine, ActionCompletion):
        action = engine.complete_action(state, action)
    if isinstance(engine, SecretKeeping):
        action = engine.seal(state, action, f"seal-{rng.random()}")
    return engine.apply(state, action).state


@pytest.mark.parametrize("key", KEYS)
def test_the_same_stored_json_gives_the_loaded_state_and_a_new_one_a_fresh_load(key: str) -> None:
    game = stored(key)
    first = state_of(game)
    assert state_of(game) is first
    game.state = json.loads(json.dumps(game.state))  # a new session's copy of the same row: still a hit
    assert state_of(game) is first
    engine = engine_for(game)
    game.state = engine.dump(play(key, first, random.Random(1)))
    moved = state_of(game)
    assert moved is not first and engine.dump(moved) == game.state


@pytest.mark.parametrize("key", KEYS)
def test_a_stored_turn_keeps_its_state_loaded(key: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A played state, stored, is the one the move's mails and the game's next move read: no load, until
    the stored JSON is another (a rollback, another instance's move)."""
    game = stored(key)
    engine = engine_for(game)
    played = play(key, state_of(game), random.Random(2))
    store_state(game, played)
    assert game.state == engine.dump(played)
    loads: list[object] = []
    real_load = type(engine).load
    monkeypatch.setattr(type(engine), "load", lambda self, data: loads.append(data) or real_load(self, data))
    assert state_of(game) is played
    game.state = json.loads(json.dumps(game.state))  # the next mail's session reads the same row
    assert state_of(game) is played and loads == []
    game.state = engine.dump(engine.setup())  # rolled back to the stored start
    assert state_of(game) is not played and len(loads) == 1


def test_another_thread_loads_its_own() -> None:
    game = stored("hyperspace")
    mine = state_of(game)
    theirs: list[Any] = []
    worker = threading.Thread(target=lambda: theirs.append(state_of(game)))
    worker.start()
    worker.join()
    assert theirs[0] is not mine and engine_for(game).dump(theirs[0]) == engine_for(game).dump(mine)


def test_a_game_of_another_id_is_not_served_this_ones_state() -> None:
    one, other = stored("tri-d", 1), stored("tri-d", 2)
    assert state_of(one) is not state_of(other)


@settings(max_examples=15, deadline=None)
@given(key=st.sampled_from(KEYS), seed=st.integers(0, 2**32 - 1), plies=st.integers(1, 40))
def test_a_cached_state_is_never_changed_by_what_the_worker_does_with_it(key: str, seed: int, plies: int) -> None:
    """Shared between the readers of a mail and across moves, a state must come out of every engine call
    as it went in: its dump, its side to move and its legal moves."""
    engine = get_variant(key)
    rng = random.Random(seed)
    state = engine.setup()
    for _ in range(plies):
        if engine.outcome(state) is not None:
            break
        before = (json.dumps(engine.dump(state), sort_keys=True), engine.to_act(state),
                  sorted(engine.describe(state, action) for action in engine.legal_actions(state)))
        for audience in (Audience.PUBLIC, Seat.WHITE, Seat.BLACK):
            engine.view(state, audience)
        following = play(key, state, rng)
        after = (json.dumps(engine.dump(state), sort_keys=True), engine.to_act(state),
                 sorted(engine.describe(state, action) for action in engine.legal_actions(state)))
        assert after == before
        state = following


def test_the_readers_of_one_stored_dict_compare_no_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """A move's mails read the state four times from the dict the move stored (or the first reader loaded):
    the same dict needs no JSON written to know it is the loaded one; another dict is compared by its JSON."""
    import pbem.app.game_state as game_state

    game = stored("hyperspace")
    engine = engine_for(game)
    played = play("hyperspace", state_of(game), random.Random(3))
    store_state(game, played)
    written: list[object] = []
    real_canonical = game_state.json_text.canonical
    monkeypatch.setattr(game_state.json_text, "canonical", lambda value: written.append(value) or real_canonical(value))
    assert state_of(game) is played and state_of(game) is played and written == []
    game.state = json.loads(json.dumps(game.state))  # the next mail's session: its own dict, compared once
    assert state_of(game) is played and len(written) == 1
    assert state_of(game) is played and len(written) == 1
    game.state = engine.dump(engine.setup())
    assert state_of(game) is not played
