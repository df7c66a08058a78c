"""The template methods work a state's outcome (and a view's text) out once while it stays the state asked about
(VariantBase._over, VariantBase._text_view)."""

from __future__ import annotations

import itertools
import random
import threading
from typing import Any

import pytest

from pbem.engine.base import Audience, Seat
from pbem.variants import all_variants, get_variant


@pytest.fixture
def rng() -> random.Random:
    seed = random.randrange(2**32)
    print(f"outcome memo seed {seed}")
    return random.Random(seed)


def _playout(rng: random.Random, key: str, plies: int) -> list[Any]:
    engine = get_variant(key)
    states = [engine.setup()]
    for _ in range(plies):
        actions = list(engine.legal_actions(states[-1]))
        if not actions:
            break
        states.append(engine.apply(states[-1], rng.choice(actions)).state)
    return states


@pytest.mark.parametrize("key", [variant.key for variant in all_variants()])
def test_one_outcome_a_state_and_the_same_answers(rng: random.Random, key: str) -> None:
    states = _playout(rng, key, 60)
    engine = get_variant(key)
    counted = 0
    work_out = engine._outcome

    def counting(state: Any) -> Any:
        nonlocal counted
        counted += 1
        return work_out(state)

    engine._outcome = counting  # type: ignore[method-assign]
    for state in states:
        expected = work_out(state)
        for _ in range(3):  # what a move's mails ask, several times over
            assert engine.outcome(state) == expected
            assert (engine.to_act(state) is None) == (expected is not None)
            assert bool(list(engine.legal_actions(state))) == (expected is None)
    assert counted == len(states)
    # Asked in turn about two states, each answer is still right (the memo holds one state at a time).
    for earlier, later in itertools.pairwise(states):
        assert engine.outcome(earlier) == work_out(earlier) and engine.outcome(later) == work_out(later)


def test_threads_asking_about_different_states_get_their_own_answers(rng: random.Random) -> None:
    key = rng.choice([variant.key for variant in all_variants()])
    engine = get_variant(key)
    states = _playout(rng, key, 80)
    expected = [engine._outcome(state) for state in states]
    wrong: list[int] = []

    def ask(order: list[int]) -> None:
        for index in order:
            if engine.outcome(states[index]) != expected[index]:
                wrong.append(index)

    threads = [threading.Thread(target=ask, args=(rng.sample(range(len(states)), len(states)) * 20,))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not wrong


@pytest.mark.parametrize("key", [variant.key for variant in all_variants()])
def test_a_view_s_text_is_made_once_for_the_same_state_and_reader(rng: random.Random, key: str) -> None:
    """A move's mail to the opponent shows the same view in its text and its HTML part: the text is made
    once; asked for another reader, turn or state, each view is what a fresh engine makes of it."""
    states = _playout(rng, key, 30)
    engine, fresh = get_variant(key), get_variant(key)
    made = 0
    diagram = engine._diagram

    def counting(state: Any, flipped: bool) -> str:
        nonlocal made
        made += 1
        return diagram(state, flipped)

    engine._diagram = counting  # type: ignore[method-assign]
    for state in states[-4:]:
        for audience in (Seat.WHITE, Seat.BLACK, Audience.PUBLIC):
            made = 0
            text = engine.view(state, audience, picture=False)
            with_picture = engine.view(state, audience)
            assert made == 1 and with_picture.board is not None and text.board is None
            assert with_picture == fresh.view(state, audience) and text == fresh.view(state, audience, picture=False)
            assert engine.view(state, audience, white_bottom=True) == fresh.view(state, audience, white_bottom=True)
