"""Seeks through the real worker: post, list at the public address, accept, expiry, withdrawal, rating range."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.event_models import Rating
from pbem.store.models import Challenge, Game
from tests.helpers.clock import FakeTime
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, register


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, now=time)
    yield p
    p.close()


def mails(pipe: Pipeline) -> dict[str, str]:
    """The bodies queued since the last call, joined per recipient, lines unwrapped (spaces collapsed)."""
    found: dict[str, str] = {}
    for recipient, message in pipe.drain_outbox():
        found[recipient] = found.get(recipient, "") + " ".join(body_of(message).split()) + "\n"
    return found


def three(pipe: Pipeline) -> tuple[str, str, str]:
    return register(pipe, ALICE, "alice"), register(pipe, BOB, "bob"), register(pipe, CAROL, "carol")


def seek_status(pipe: Pipeline, number: int) -> str:
    with pipe.db.transaction() as session:
        seek = session.get(Challenge, number)
        assert seek is not None
        return seek.status


def test_a_seek_is_listed_at_the_public_address_and_a_third_player_starts_the_game(pipe: Pipeline) -> None:
    alice, _, carol = three(pipe)
    pipe.send(ALICE, alice, "seek hyperspace white days 3 option draw-limit=10")
    posted = mails(pipe)[ALICE]
    assert "Seek 1 posted: Hyperspace Chess, time control 3 days per move, options draw-limit=10; you play white." \
        in posted and "open until Sun 8 Mar 12:00 UTC" in posted and '"accept seek 1"' in posted
    pipe.send("stranger@elsewhere.example", pipe.addresses.public, "seeks")
    listing = mails(pipe)["stranger@elsewhere.example"]
    assert "Seek 1: alice (1500) plays white; Hyperspace Chess, time control 3 days per move" in listing
    assert '"accept seek N"' in listing
    pipe.send(CAROL, carol, "accept seek 1")
    found = mails(pipe)
    assert "Seek 1 accepted as carol: game 1 has started." in found[CAROL]
    assert "Game 1 has started: you play white against carol." in found[ALICE]
    assert "Game 1 has started: you play black against alice." in found[CAROL]
    with pipe.db.transaction() as session:
        game = session.exec(select(Game)).one()
        assert (game.white_id, game.black_id, game.options) == (1, 3, {"draw-limit": "10"})
    assert seek_status(pipe, 1) == "accepted"
    pipe.send(BOB, pipe.addresses.public, "seeks")
    assert "No open seeks." in mails(pipe)[BOB]
    pipe.send(BOB, register(pipe, BOB, "bob"), "accept seek 1")
    assert "seek 1 is already accepted" in mails(pipe)[BOB]


def test_a_seek_expires_after_seek_days(pipe: Pipeline, time: FakeTime) -> None:
    alice, bob, _ = three(pipe)
    pipe.send(ALICE, alice, "seek voidrider")
    mails(pipe)
    time.at(6.9)
    pipe.send(BOB, pipe.addresses.public, "seeks")
    assert "Seek 1: alice" in mails(pipe)[BOB]
    time.at(7)
    pipe.send(BOB, bob, "accept seek 1")
    assert "seek 1 expired on Sun 8 Mar 12:00 UTC" in mails(pipe)[BOB]
    pipe.send(BOB, pipe.addresses.public, "seeks")
    assert "No open seeks." in mails(pipe)[BOB]
    assert seek_status(pipe, 1) == "expired"  # marked by the listing


def test_seek_days_is_configurable(tmp_path: Path, time: FakeTime) -> None:
    pipe = Pipeline(tmp_path, now=time, PBEM_GAMES_SEEK_DAYS="2")
    try:
        alice = register(pipe, ALICE, "alice")
        pipe.send(ALICE, alice, "seek hyperspace")
        assert "open until Tue 3 Mar 12:00 UTC" in mails(pipe)[ALICE]
    finally:
        pipe.close()


def test_only_the_owner_withdraws_a_seek(pipe: Pipeline) -> None:
    alice, bob, carol = three(pipe)
    pipe.send(ALICE, alice, "seek hyperspace")
    pipe.send(ALICE, alice, "seek tri-d black")
    mails(pipe)
    pipe.send(BOB, bob, "seek withdraw 1")
    assert "seek 1 is not yours" in mails(pipe)[BOB]
    pipe.send(ALICE, alice, "seek withdraw 1")
    assert "Seek 1 withdrawn." in mails(pipe)[ALICE]
    pipe.send(ALICE, alice, "unseek 2")
    assert "Seek 2 withdrawn." in mails(pipe)[ALICE]
    pipe.send(CAROL, carol, "accept seek 1")
    assert "seek 1 is already withdrawn" in mails(pipe)[CAROL]
    pipe.send(CAROL, carol, "seeks")
    assert "No open seeks." in mails(pipe)[CAROL]


def test_own_seeks_and_challenges_are_not_seeks(pipe: Pipeline) -> None:
    alice, bob, _ = three(pipe)
    pipe.send(ALICE, alice, "seek hyperspace")
    pipe.send(ALICE, alice, "challenge bob hyperspace")
    mails(pipe)
    pipe.send(ALICE, alice, "accept seek 1")
    assert "seek 1 is your own" in mails(pipe)[ALICE]
    pipe.send(BOB, bob, "accept seek 2")
    assert "there is no seek 2" in mails(pipe)[BOB]
    pipe.send(BOB, bob, "accept 1")
    assert "challenge 1 is not addressed to you" in mails(pipe)[BOB]


def test_a_rating_range_refuses_players_outside_it(pipe: Pipeline) -> None:
    alice, bob, carol = three(pipe)
    with pipe.db.transaction() as session:
        session.add(Rating(account_id=2, variant="hyperspace", rating=1750.0, games=12))
    pipe.send(ALICE, alice, "seek hyperspace days 5 rated-between 1400 1700")
    assert "for players rated 1400-1700" in mails(pipe)[ALICE]
    pipe.send(BOB, bob, "accept seek 1")
    assert "seek 1 is for players rated 1400-1700 in Hyperspace Chess; your rating there is 1750" \
        in mails(pipe)[BOB]
    assert seek_status(pipe, 1) == "seeking"
    pipe.send(CAROL, carol, "accept seek 1")  # no rating yet: 1500
    assert "Seek 1 accepted as carol" in mails(pipe)[CAROL]


def test_bad_seeks_are_explained(pipe: Pipeline) -> None:
    alice, _, _ = three(pipe)
    for line, message in (
        ("seek", "usage: seek VARIANT"),
        ("seek nochess", "nochess"),
        ("seek hyperspace rated-between 1700 1400", "the lower bound comes first"),
        ("seek hyperspace rated-between 1400", "rated-between LOW HIGH"),
        ("seek hyperspace option rated=maybe", "rated takes yes or no"),
        ("seek withdraw x", "say which seek"),
    ):
        pipe.send(ALICE, alice, line)
        assert message in mails(pipe)[ALICE], line


def test_help_names_the_seek_commands(pipe: Pipeline) -> None:
    pipe.send(ALICE, pipe.addresses.public, "help")
    text = mails(pipe)[ALICE]
    assert "seek VARIANT" in text and "seeks" in text and "accept seek N" in text and "unseek N" in text
