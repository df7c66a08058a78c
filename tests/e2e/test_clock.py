"""Clocks end to end over real SMTP: a reminder then a loss on time, and a deadline missed while stopped."""

from __future__ import annotations

import re
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.serving import Instance


def challenge_and_accept(harness: Harness, terms: str) -> tuple[Player, Player, int]:
    alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
    welcome_a, welcome_b = alice.register("alice"), bob.register("bob")
    alice.reply(welcome_a, f"challenge bob hyperspace white {terms}")
    number = re.search(r"Challenge (\d+) sent", body_of(alice.next_mail()))
    assert number
    bob.next_mail()
    bob.reply(welcome_b, f"accept {number.group(1)}")
    started = alice.next_mail(lambda m: "has started" in body_of(m))
    bob.next_mail(lambda m: "has started" in body_of(m))
    game = re.search(r"\[pbem #(\d+)\]", str(started["Subject"]))
    assert game
    return alice, bob, int(game.group(1))


def is_over(mail: EmailMessage) -> bool:
    return "lost on time" in body_of(mail)


def is_reminder(mail: EmailMessage) -> bool:
    """The subject stays the game's; the news is the body's first line."""
    return body_of(mail).startswith("Reminder: your move")


def test_a_reminder_then_a_loss_on_time(tmp_path: Path) -> None:
    # 0.0001 days = 8.6 s per move; reminders at 50% and 80%; the day-before reminder does not fit.
    # Nobody moves: with fair starts (the default) that is an abort, so they are off here.
    harness = Harness(tmp_path, PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false")
    try:
        alice, bob, _ = challenge_and_accept(harness, "days 0.0001")
        reminder = alice.next_mail(timeout=15)
        assert is_reminder(reminder) and reminder["Auto-Submitted"] == "auto-generated"
        assert "Reminder: your move" in body_of(reminder) and "a b c d e f g h" in body_of(reminder)
        second = alice.next_mail(timeout=15)
        assert is_reminder(second)
        over_a = alice.next_mail(timeout=15)
        over_b = bob.next_mail(is_over, timeout=15)
        assert is_over(over_a) and "0-1" in body_of(over_a) and "0-1" in body_of(over_b)
        harness.settle(quiet=1.5)
        assert sum(is_reminder(m) for m in alice.inbox()) == 2
        assert sum(is_over(m) for m in alice.inbox()) == 1
    finally:
        harness.close()


def test_a_deadline_passed_while_stopped_is_applied_once_after_restart(tmp_path: Path) -> None:
    harness = Harness(tmp_path, serve=False)
    server = Instance(tmp_path, "serve", harness, harness.environ["PBEM_DATABASE_URL"],
                      games="reminders = []\nremind_before_days = 0\nabort_without_first_move = false")
    harness.port = server.port
    try:
        alice, bob, _ = challenge_and_accept(harness, "days 0.00005")  # 4.3 s
        harness.settle(quiet=0.5)
        assert server.stop() == 0
        stopped_at = time.monotonic()
        assert not any(is_over(m) for m in alice.inbox())
        time.sleep(max(0.0, 6.0 - (time.monotonic() - stopped_at)))  # the deadline passes while stopped
        assert not any(is_over(m) for m in alice.inbox() + bob.inbox())
        server.start()
        assert is_over(alice.next_mail(is_over, timeout=20))
        assert is_over(bob.next_mail(is_over, timeout=20))
        harness.settle(quiet=1.0)
        assert server.stop() == 0
        server.start()  # and a third start finds nothing left to do
        harness.settle(quiet=2.0)
        assert server.stop() == 0
        assert sum(is_over(m) for m in alice.inbox()) == 1 and sum(is_over(m) for m in bob.inbox()) == 1
        # The operator's log says so, once, in the run after the restart (the second start's lines).
        runs = (tmp_path / "serve.log").read_text(encoding="utf-8").split("pbem serving ")
        assert len(runs) == 4  # what came before the first start, then one part per start
        out_of_time = re.compile(r"INFO pbem\.sweep: deadline: game \d+, white out of time: alice lost on time")
        assert [len(out_of_time.findall(run)) for run in runs[1:]] == [0, 1, 0]
    finally:
        server.stop()
        harness.close()


@pytest.fixture(autouse=True)
def _no_pbem_toml_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `pbem serve` would read ./pbem.toml of the checkout otherwise
