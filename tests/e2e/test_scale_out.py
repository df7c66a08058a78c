"""Two `pbem serve` instances on one PostgreSQL database: moves applied once, deadlines fired once, failover."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbem.engine.base import Seat
from pbem.variants import get_variant
from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available
from tests.helpers.serving import Instance

#: Minutes of real processes: `pytest -m 'not slow'` leaves them out of a quick run.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(postgres_available()), reason=str(postgres_available()))]

LEADER_LOCK = 0x7062656E
#: The deadline tested here falls on a game nobody has moved in: a loss on time, not a fair-start abort.
NO_FAIR_STARTS = "reminders = []\nabort_without_first_move = false"


@pytest.fixture
def url() -> Iterator[str]:
    found = fresh_postgres_url()
    yield found
    drop_postgres(found)


def leader_held(url: str) -> bool:
    engine = create_engine(url)
    with engine.connect() as connection:
        held = connection.execute(text("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND "
                                       "objid = :key AND granted"), {"key": LEADER_LOCK}).scalar()
    engine.dispose()
    return bool(held)


def via(harness: Harness, instance: Instance) -> None:
    harness.port = instance.port  # the next mails go to this instance's listener


def is_over(mail: EmailMessage) -> bool:
    return "lost on time" in body_of(mail)


def start_game(harness: Harness, alice: Player, bob: Player, a: Instance, b: Instance, terms: str,
               welcome_a: EmailMessage, welcome_b: EmailMessage) -> tuple[EmailMessage, EmailMessage]:
    via(harness, a)
    alice.reply(welcome_a, f"challenge bob hyperspace white {terms}")
    number = re.search(r"Challenge (\d+) sent", body_of(alice.next_mail(lambda m: "Challenge" in body_of(m))))
    assert number
    via(harness, b)
    bob.reply(welcome_b, f"accept {number.group(1)}")
    opening_a = alice.next_mail(lambda m: "You play" in body_of(m))
    opening_b = bob.next_mail(lambda m: "You play" in body_of(m))
    return opening_a, opening_b


def test_two_instances_apply_moves_once_fire_deadlines_once_and_fail_over(tmp_path: Path, url: str) -> None:
    harness = Harness(tmp_path, serve=False)
    # One instance with its mail worker in a process of its own, one with it in a thread: both kinds at once.
    a = Instance(tmp_path, "a", harness, url, games=NO_FAIR_STARTS, worker_process=True)
    deadline = time.monotonic() + 20
    while not leader_held(url):  # a leads: it started first
        assert time.monotonic() < deadline, "no instance took the scheduler lock"
        time.sleep(0.2)
    b = Instance(tmp_path, "b", harness, url, games=NO_FAIR_STARTS)
    try:
        alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
        via(harness, a)
        welcome_a = alice.register("alice")
        via(harness, b)
        welcome_b = bob.register("bob")
        game_a, game_b = start_game(harness, alice, bob, a, b, "days 7", welcome_a, welcome_b)

        # Each move sent to both instances at once, with different Message-IDs: one is played, one refused.
        for mover, other, mail, text_ in ((alice, bob, game_a, "e4 #1"), (bob, alice, game_b, "e5 #1"),
                                          (alice, bob, game_a, "Nf3 #2"), (bob, alice, game_b, "Nc6 #2")):
            for instance in (a, b):
                via(harness, instance)
                mover.reply(mail, text_)
            answers = [mover.next_mail(), mover.next_mail()]
            played = [m for m in answers if "Played" in body_of(m)]
            refused = [m for m in answers if "Not played" in body_of(m)]
            assert len(played) == 1 and len(refused) == 1, [body_of(m) for m in answers]
            other.next_mail(lambda m: "played" in body_of(m))
        engine = create_engine(url)
        with engine.connect() as connection:
            plies = connection.execute(text("SELECT ply FROM moverecord WHERE game_id = 1 ORDER BY ply")).all()
        engine.dispose()
        assert [row[0] for row in plies] == [1, 2, 3, 4]

        # A deadline with both instances up: one loss on time, mailed once.
        start_game(harness, alice, bob, a, b, "days 0.00004", welcome_a, welcome_b)  # 3.5 s
        assert is_over(alice.next_mail(is_over, timeout=30))
        harness.settle(quiet=2.0)
        assert sum(is_over(m) for m in alice.inbox()) == 1 and sum(is_over(m) for m in bob.inbox()) == 1

        # The leader dies without a word: b takes the scheduler over and the next deadline still fires once.
        a.kill()
        start_game(harness, alice, bob, b, b, "days 0.00004", welcome_a, welcome_b)
        deadline = time.monotonic() + 40
        while sum(is_over(m) for m in alice.inbox()) < 2:
            assert time.monotonic() < deadline, "the standby instance did not take over the deadlines"
            time.sleep(0.2)
        harness.settle(quiet=2.0)
        assert sum(is_over(m) for m in alice.inbox()) == 2 and sum(is_over(m) for m in bob.inbox()) == 2
    finally:
        a.stop()
        b.stop()
        harness.close()


def _carol_to_move(url: str) -> str | None:
    """A legal move for carol (black) in game 1, read from the shared database; None if it is not her turn."""
    engine = create_engine(url)
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT state FROM game WHERE id = 1")).scalar()
    engine.dispose()
    variant = get_variant("space-chess")
    state = variant.load(stored if isinstance(stored, dict) else json.loads(stored))
    if variant.to_act(state) is not Seat.BLACK:
        return None
    return variant.describe(state, sorted(variant.legal_actions(state), key=str)[0])


def test_two_instances_think_once_about_each_computer_move(tmp_path: Path, url: str) -> None:
    """Both instances poll the games the computer owes; one claims each turn, and every move is played once.
    Level 5 thinks its whole 3 s here, longer than the other instance's poll: both see every turn due."""
    harness = Harness(tmp_path, serve=False)
    thinking = "[computer]\nmax_seconds_per_move = 3\n"
    a = Instance(tmp_path, "a", harness, url, extra=thinking)
    b = Instance(tmp_path, "b", harness, url, extra=thinking)
    try:
        carol = Player(harness, "carol@players.example")
        via(harness, a)
        welcome = carol.register("carol")
        carol.reply(welcome, "challenge computer space-chess black level 5")
        carol.next_mail(lambda m: "Results:" in body_of(m))
        for turn in range(1, 4):
            news = carol.next_mail(lambda m, t=turn: f"pbem computer (level 5) played {t}." in body_of(m), timeout=60)
            move = _carol_to_move(url)
            assert move is not None
            via(harness, (a, b)[turn % 2])
            carol.reply(news, move)
            reply = carol.next_mail(lambda m: "Results:" in body_of(m))
            assert "Not played" not in body_of(reply), body_of(reply)
        carol.next_mail(lambda m: "pbem computer (level 5) played 4." in body_of(m), timeout=60)
        harness.settle(quiet=2.0)
        played = [m for m in carol.inbox() if "pbem computer (level 5) played" in body_of(m)]
        assert len(played) == 4, [body_of(m)[:80] for m in played]
        logs = [(tmp_path / f"{name}.log").read_text() for name in ("a", "b")]
        assert sum(log.count("computer, game 1: played") for log in logs) == 4, logs
        assert not any("computer, game 1: dropped" in log for log in logs), "both instances searched one move"
        engine = create_engine(url)
        with engine.connect() as connection:
            seats = connection.execute(text("SELECT seat FROM moverecord WHERE game_id = 1 ORDER BY ply")).scalars()
            assert list(seats) == ["white", "black"] * 3 + ["white"]
        engine.dispose()
    finally:
        a.stop()
        b.stop()
        harness.close()
