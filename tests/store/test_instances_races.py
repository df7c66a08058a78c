"""Two instances' workers on one PostgreSQL database, at the moments their transactions cross: a failed mail taken by
the other instance, two batches locking two games in opposite orders, a held mail confirmed twice at once, a seek or
a challenge accepted twice at once, a player joining an event while it starts, a move
committed while the player's vacation ends."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

import pbem.app.clocks
import pbem.app.seeks
import pbem.commands.answer
import pbem.worker
from pbem.app.clocks import clock_of
from pbem.app.context import Context
from pbem.events.entries import add_players, create_event, find_event
from pbem.events.running import start_event
from pbem.store.event_models import EventPlayer
from pbem.store.models import Challenge, Game, InboxItem, OutboxItem
from tests.helpers.clock import FakeTime
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline, drop_postgres, fresh_postgres_url, postgres_available
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register


@pytest.fixture
def time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def two_instances(tmp_path: Path, time: FakeTime) -> Iterator[tuple[Pipeline, Pipeline]]:
    """Two pipelines (each an instance's worker and deliverer) on one fresh PostgreSQL database, on one clock."""
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    url = fresh_postgres_url()
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a = Pipeline(tmp_path / "a", url, now=time)
    b = Pipeline(tmp_path / "b", url, now=time)
    try:
        yield a, b
    finally:
        a.close()
        b.close()
        drop_postgres(url)


def statuses(pipe: Pipeline) -> list[str]:
    with pipe.db.read() as session:
        return [row.status for row in session.exec(select(InboxItem).order_by(InboxItem.id)).all()]


def test_a_failure_mark_does_not_overwrite_what_another_instance_applied_meanwhile(
        two_instances: tuple[Pipeline, Pipeline], monkeypatch: pytest.MonkeyPatch) -> None:
    """A mail whose handling raised is rolled back with its batch: it waits again, unlocked, before its failure is
    recorded in a transaction of its own. Another instance may take it and apply it meanwhile; the failure mark
    overwrote that, and the sender was told both that the mail was done and that it could not be."""
    a, b = two_instances
    a.queue(ALICE, a.addresses.public, "help")
    original_transaction = a.db.transaction
    failed: list[bool] = []
    b_ran: list[bool] = []

    def process_failing(session: Any, item: Any) -> str:
        failed.append(True)
        raise RuntimeError("a bug in this instance's code")

    def transaction(*args: Any, **kwargs: Any) -> Any:
        if failed and not b_ran:  # the failed batch is rolled back: instance B's round comes now
            b_ran.append(b.worker.process_mail(16))
        return original_transaction(*args, **kwargs)

    monkeypatch.setattr(a.worker, "_process", process_failing)
    monkeypatch.setattr(a.db, "transaction", transaction)
    a.worker.process_mail(16)

    with a.db.read() as session:
        raws = [bytes(row.raw) for row in session.exec(select(OutboxItem)).all()]
    assert b_ran == [True]
    assert statuses(a) == ["done"]  # B applied it; A's failure mark must not overwrite that
    assert raws and not [raw for raw in raws if b"could not be processed" in raw]


def _second_game(pipe: Pipeline, alice: str, bob: str) -> tuple[str, str]:
    pipe.send(ALICE, alice, "challenge bob hyperspace white")
    number = re.search(r"accept (\d+)", next(body_of(m) for r, m in pipe.drain_outbox() if r == BOB))
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}")
    seats = {r: str(m["Reply-To"]) for r, m in pipe.drain_outbox() if "has started" in body_of(m)}
    return seats[ALICE], seats[BOB]


def test_batches_that_lock_two_games_in_opposite_orders_fail_no_mail(
        two_instances: tuple[Pipeline, Pipeline]) -> None:
    """Each worker locks the game of each mail it handles (SELECT ... FOR UPDATE) until its batch commits. Two
    batches reaching two games in opposite orders deadlock, and PostgreSQL rolls one back (SQLSTATE 40P01): that
    was taken for the mail's own failure, a valid move marked failed for good and its player told so. The batch is
    claimed again instead."""
    a, b = two_instances
    alice, bob, alice_1, bob_1 = begin_game(a)
    alice_2, bob_2 = _second_game(a, alice, bob)
    a.queue(ALICE, alice_1, "Pe2-e4")  # the first batch: game 1, then game 2
    a.queue(ALICE, alice_2, "Pe2-e4")
    a.queue(BOB, bob_2, "Pe7-e5")  # the second: game 2, then game 1
    a.queue(BOB, bob_1, "Pe7-e5")

    both_hold_one = threading.Barrier(2, timeout=20)
    for pipe in (a, b):
        handle = pipe.worker._process_one
        handled = [0]

        def each(session: Any, row: Any, handle: Any = handle, handled: list[int] = handled) -> None:
            handle(session, row)
            handled[0] += 1
            if handled[0] == 1:  # each batch holds its first game's lock when the other reaches for it
                both_hold_one.wait()

        pipe.worker._process_one = each  # type: ignore[method-assign]
    errors: list[BaseException] = []

    def run(pipe: Pipeline) -> None:
        try:
            pipe.worker.process_mail(2)
        except BaseException as error:  # asserted below, in the test's thread
            errors.append(error)

    threads = [threading.Thread(target=run, args=(pipe,)) for pipe in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    for pipe in (a, b):  # what the rolled-back batch left, without the barrier (both are past their first row)
        while pipe.worker.process_mail(2):
            pass
    told_failed = [r for r, m in a.drain_outbox() if "could not be processed" in str(m["Subject"])]
    assert not errors, errors
    assert statuses(a)[-4:] == ["done"] * 4
    assert told_failed == []


def _cross(a: Pipeline, b: Pipeline, monkeypatch: pytest.MonkeyPatch, module: Any, reader: str) -> None:
    """A handles the first waiting mail and keeps its transaction open until B, handling the second, has read the
    row they share (through ``module``'s function ``reader``): B reads it before A commits, or waits for A's
    commit where the row is read locked."""
    b_read = threading.Event()
    original = getattr(module, reader)

    def read(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        if threading.current_thread().name == "instance-b":
            b_read.set()
        return found

    monkeypatch.setattr(module, reader, read)
    handle = a.worker._process_one

    def a_each(session: Any, row: Any) -> None:
        handle(session, row)
        b_read.wait(3)  # A has acted and not committed when B reads (locked: B waits, and A goes on after 3 s)

    monkeypatch.setattr(a.worker, "_process_one", a_each)
    threads = [threading.Thread(target=pipe.worker.process_mail, args=(1,), name=name)
               for pipe, name in ((a, "instance-a"), (b, "instance-b"))]
    threads[0].start()
    threading.Event().wait(0.5)  # A holds the first mail (its row locked): B's claim skips it
    threads[1].start()
    for thread in threads:
        thread.join(30)


def _both_answered(a: Pipeline, b: Pipeline, monkeypatch: pytest.MonkeyPatch, mails: list[tuple[str, str, str]],
                   module: Any, reader: str) -> None:
    """``mails`` (sender, address, text) queued, then handled one on each instance as :func:`_cross` does; both
    handled (done)."""
    for sender, address, text in mails:
        a.queue(sender, address, text)
    _cross(a, b, monkeypatch, module, reader)
    assert statuses(a)[-2:] == ["done", "done"]


def games(pipe: Pipeline) -> int:
    with pipe.db.read() as session:
        return len(session.exec(select(Game)).all())


def test_two_confirmations_taken_at_once_carry_the_held_mail_out_once(
        two_instances: tuple[Pipeline, Pipeline], monkeypatch: pytest.MonkeyPatch) -> None:
    """The owner answers a held mail's confirmation twice, and each instance takes one answer. Both read the held
    mail without a lock and found it held, the second before the first committed: its commands ran twice. The
    held mail is now read locked, so the second waits for the first's commit and finds it done."""
    a, b = two_instances
    alice = register(a, ALICE, "alice")
    register(a, BOB, "bob")
    a.send("mallory@elsewhere.example", alice, "challenge bob hyperspace white")  # held: not alice's From
    confirm = next(str(m["Reply-To"]) for r, m in a.drain_outbox() if r == ALICE and "confirm" in str(m["Subject"]))
    a.queue(ALICE, confirm, "confirm")
    a.queue(ALICE, confirm, "confirm")
    _cross(a, b, monkeypatch, pbem.worker, "stored_mail")
    with a.db.read() as session:
        challenges = session.exec(select(Challenge)).all()
    assert statuses(a)[-2:] == ["done", "done"]
    assert len(challenges) == 1, f"the held mail was carried out {len(challenges)} times"


def test_a_seek_taken_by_two_players_at_once_starts_one_game(
        two_instances: tuple[Pipeline, Pipeline], monkeypatch: pytest.MonkeyPatch) -> None:
    """Two players accept one seek, each on an instance: both found it open and two games started (the second
    overwriting the seek's game). The seek is now read locked."""
    a, b = two_instances
    alice = register(a, ALICE, "alice")
    bob = register(a, BOB, "bob")
    carol = register(a, CAROL, "carol")
    a.send(ALICE, alice, "seek hyperspace white days 3")
    a.drain_outbox()
    _both_answered(a, b, monkeypatch, [(BOB, bob, "accept seek 1"), (CAROL, carol, "accept seek 1")],
                   pbem.app.seeks, "_seek")
    assert games(a) == 1


def test_a_challenge_accepted_twice_at_once_starts_one_game(
        two_instances: tuple[Pipeline, Pipeline], monkeypatch: pytest.MonkeyPatch) -> None:
    """The challenged player's "accept" arrives twice (two clients, two Message-IDs), each taken by an instance:
    both found the challenge open and two games started. The challenge is now read locked."""
    a, b = two_instances
    alice = register(a, ALICE, "alice")
    bob = register(a, BOB, "bob")
    a.send(ALICE, alice, "challenge bob hyperspace white")
    a.drain_outbox()
    _both_answered(a, b, monkeypatch, [(BOB, bob, "accept 1")] * 2, pbem.commands.answer, "_challenge_for")
    assert games(a) == 1


def test_a_join_while_the_event_starts_is_not_left_out_of_the_running_event(
        two_instances: tuple[Pipeline, Pipeline]) -> None:
    """The organiser starts the event (instance A) while a player's "join" is handled on instance B: B read the
    event still in registration, and its entry landed in a running event with no seed and no games. The event
    is now read locked by a join and by the start."""
    a, b = two_instances
    register(a, ALICE, "alice")
    register(a, BOB, "bob")
    carol = register(a, CAROL, "carol")
    with a.db.transaction() as session:
        ctx = Context(session=session, services=a.services)
        add_players(ctx, create_event(ctx, "cup", "hyperspace", "round-robin"), ["alice", "bob"])
    a.drain_outbox()
    b.queue(CAROL, carol, "join cup")
    joining = threading.Thread(target=b.worker.process_mail, args=(1,), name="instance-b")
    with a.db.transaction() as session:
        ctx = Context(session=session, services=a.services)
        start_event(ctx, find_event(ctx, "cup"))
        session.flush()
        joining.start()
        joining.join(3)  # B handles the join before A commits (or, locked, waits for A's commit)
    joining.join(30)
    with a.db.read() as session:
        unseeded = [entry.email for entry in session.exec(select(EventPlayer)).all()
                    if entry.status == "entered" and not entry.seed]
    assert unseeded == [], f"entered in a running event without a seed: {unseeded}"


def test_a_move_committed_while_a_vacation_ends_keeps_its_clock(two_instances: tuple[Pipeline, Pipeline],
                                                                time: FakeTime) -> None:
    """The sweep ends a player's vacation (restarting their paused clocks) while their move is applied on the
    other instance: the sweep read the game before the move committed and wrote the clock it computed from that
    read over the move's, so the clock said the mover was still to move. The games are now read locked."""
    a, b = two_instances
    _, bob, seat_a, seat_b = begin_game(a, "days 10")
    time.at(0.5)
    a.send(ALICE, seat_a, "Pe2-e4")
    time.at(1)
    a.send(BOB, bob, "vacation 2")  # bob is to move: his clock stops until day 3
    a.drain_outbox()
    time.at(3.5)
    b.queue(BOB, seat_b, "Pe7-e5")
    original = pbem.app.clocks.player_games

    def games_then_the_move(ctx: Any, account: Any) -> Any:
        found = original(ctx, account)
        moving = threading.Thread(target=b.worker.process_mail, args=(1,))
        moving.start()
        moving.join(3)  # applied before the sweep commits, or (the games locked) waiting for its commit
        return found

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pbem.app.clocks, "player_games", games_then_the_move)
        a.sweep()
    while b.worker.process_mail(1):
        pass
    with a.db.read() as session:
        game = session.exec(select(Game)).one()
        ply, clock = game.ply, clock_of(a.config, game)
    assert ply == 2 and clock is not None
    assert clock.to_move == "white" and clock.turn_started is not None  # alice's turn, her clock running
