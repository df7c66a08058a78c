"""Each format through the Format protocol: a small field's start order and first pairings, and its rules."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.app.context import Context
from pbem.events.entries import add_players, create_event, entries
from pbem.events.formats.base import Format
from pbem.events.formats.registry import FORMAT_OF, format_of
from pbem.events.store import event_by_name, load
from pbem.store.models import Game
from pbem.store.vocabulary import EventFormat
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import register

NAMES = ("alice", "bob", "carol", "dave", "erin")


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path)
    for name in NAMES:
        register(p, f"{name}@players.example", name)
    yield p
    p.close()


def start(pipe: Pipeline, fmt: EventFormat, players: int, **terms: int) -> tuple[Format, list[tuple[int, int, int]]]:
    """Create an event of ``fmt`` for the first ``players`` names and start it through the protocol alone.

    Returns the format and the games started, as (round, white seed, black seed).
    """
    with pipe.db.transaction() as session:
        ctx = Context(session=session, services=pipe.services)
        event = create_event(ctx, "ev", "hyperspace", fmt, **terms)  # type: ignore[arg-type]
        add_players(ctx, event, NAMES[:players])
        implementation = format_of(event.format)
        seeded = implementation.order(load(session, event), entries(ctx, event), random.Random(1))
        for seed, entry in enumerate(seeded, start=1):
            entry.seed = seed
            session.add(entry)
        session.flush()
        implementation.start(ctx, event, [e.account_id or 0 for e in seeded])
        seeds = {e.account_id: e.seed for e in seeded}
        games = session.exec(select(Game).where(Game.event_id == event.id).order_by(col(Game.id))).all()
        return implementation, [(g.event_round, seeds[g.white_id], seeds[g.black_id]) for g in games]


def test_every_format_has_an_implementation_under_its_own_key() -> None:
    assert set(FORMAT_OF) == set(EventFormat)
    assert all(FORMAT_OF[fmt].key == fmt for fmt in EventFormat)
    assert format_of("knockout").cross_title == "Bracket"
    with pytest.raises(ValueError):
        format_of("scheveningen")


def test_a_round_robin_starts_every_game_at_once(pipe: Pipeline) -> None:
    fmt, games = start(pipe, EventFormat.ROUND_ROBIN, 4)
    assert len(games) == 6 and {r for r, _, _ in games} == {1, 2, 3}
    assert Counter(frozenset((w, b)) for _, w, b in games) == Counter(
        frozenset((a, b)) for a in range(1, 5) for b in range(a + 1, 5))
    assert not fmt.paced_by_rounds


def test_a_double_round_robin_plays_each_pair_once_with_each_colour(pipe: Pipeline) -> None:
    _, games = start(pipe, EventFormat.DOUBLE_ROUND_ROBIN, 3)
    assert sorted((w, b) for _, w, b in games) == [(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]


def test_a_swiss_pairs_only_its_first_round_top_half_against_bottom_half(pipe: Pipeline) -> None:
    fmt, games = start(pipe, EventFormat.SWISS, 5)
    assert sorted(tuple(sorted((w, b))) for _, w, b in games) == [(1, 3), (2, 4)]  # the fifth seed has the bye
    assert {r for r, _, _ in games} == {1}
    with pipe.db.read() as session:
        event = event_by_name(session, "ev")
        assert event is not None and event.rounds == 3  # log2(5), rounded up
        data = load(session, event)
        assert [p.byes for p in data.players] == [[], [], [], [], [1]]
        assert not fmt.round_complete(data) and not fmt.last_round(data)


def test_a_knockout_gives_the_top_seed_a_bye_and_starts_a_match_of_two_games(pipe: Pipeline) -> None:
    fmt, games = start(pipe, EventFormat.KNOCKOUT, 3, games_per_match=2)
    assert games == [(1, 2, 3), (1, 3, 2)]  # colours alternate, the higher seed White first
    with pipe.db.read() as session:
        event = event_by_name(session, "ev")
        assert event is not None and event.rounds == 2
        data = load(session, event)
        assert [(m["low"] is None, m["how"]) for m in event.state["rounds"][0]] == [(True, "bye"), (False, "")]
        assert not fmt.round_complete(data)


@pytest.mark.parametrize(("fmt", "annulled"), [
    (EventFormat.ROUND_ROBIN, [True, True, False, False]),
    (EventFormat.DOUBLE_ROUND_ROBIN, [True, True, False, False]),
    (EventFormat.SWISS, [False] * 4),
    (EventFormat.KNOCKOUT, [False] * 4),
])
def test_only_a_round_robin_annuls_an_early_withdrawal(fmt: EventFormat, annulled: list[bool]) -> None:
    # played 0, 1, 2, 3 of 4 scheduled games: fewer than half annuls in a round robin (ICCF/FIDE).
    assert [format_of(fmt).annuls_withdrawal(played, 4) for played in range(4)] == annulled
