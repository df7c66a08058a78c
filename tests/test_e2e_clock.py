"""Clocks end to end over real SMTP: a reminder then a loss on time, and a deadline missed while stopped."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.harness import Harness, Player, body_of


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


def test_a_reminder_then_a_loss_on_time(tmp_path: Path) -> None:
    # 0.0001 days = 8.6 s per move; reminders at 50% and 80%; the day-before reminder does not fit.
    harness = Harness(tmp_path)
    try:
        alice, bob, _ = challenge_and_accept(harness, "days 0.0001")
        reminder = alice.next_mail(timeout=15)
        assert "reminder" in str(reminder["Subject"]) and reminder["Auto-Submitted"] == "auto-generated"
        assert "Reminder: it is your move" in body_of(reminder) and "a b c d e f g h" in body_of(reminder)
        second = alice.next_mail(timeout=15)
        assert "reminder" in str(second["Subject"])
        over_a = alice.next_mail(timeout=15)
        over_b = bob.next_mail(is_over, timeout=15)
        assert is_over(over_a) and "0-1" in body_of(over_a) and "0-1" in body_of(over_b)
        harness.settle(quiet=1.5)
        assert sum("reminder" in str(m["Subject"]) for m in alice.inbox()) == 2
        assert sum(is_over(m) for m in alice.inbox()) == 1
    finally:
        harness.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def pbem_serve(harness: Harness, config: Path) -> Iterator[subprocess.Popen[bytes]]:
    """`pbem serve` as an operator runs it, in its own process; stopped with SIGTERM."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    process = subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--config", str(config)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", harness.port), timeout=1):
                break
            assert time.monotonic() < deadline, "pbem serve did not start listening"
            time.sleep(0.1)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0


def test_a_deadline_passed_while_stopped_is_applied_once_after_restart(tmp_path: Path) -> None:
    harness = Harness(tmp_path, serve=False)
    harness.port = free_port()
    config = tmp_path / "serve.toml"
    env = harness.environ
    config.write_text(
        f'[server]\nsecret_key = "{env["PBEM_SERVER_SECRET_KEY"]}"\n'
        f'[smtp]\nport = {harness.port}\n'
        f'[outbound]\nsmtp_host = "127.0.0.1"\nsmtp_port = {harness.sink_port}\n'
        f'maildir = "{tmp_path / "outbox"}"\n'
        f'[database]\nurl = "{env["PBEM_DATABASE_URL"]}"\n'
        f"[games]\nreminders = []\nremind_before_days = 0\n", encoding="utf-8")
    try:
        with pbem_serve(harness, config):
            alice, bob, _ = challenge_and_accept(harness, "days 0.00005")  # 4.3 s
            harness.settle(quiet=0.5)
        stopped_at = time.monotonic()
        assert not any(is_over(m) for m in alice.inbox())
        time.sleep(max(0.0, 6.0 - (time.monotonic() - stopped_at)))  # the deadline passes while stopped
        assert not any(is_over(m) for m in alice.inbox() + bob.inbox())
        with pbem_serve(harness, config):
            assert is_over(alice.next_mail(is_over, timeout=20))
            assert is_over(bob.next_mail(is_over, timeout=20))
            harness.settle(quiet=1.0)
        with pbem_serve(harness, config):  # and a third start finds nothing left to do
            harness.settle(quiet=2.0)
        assert sum(is_over(m) for m in alice.inbox()) == 1 and sum(is_over(m) for m in bob.inbox()) == 1
    finally:
        harness.close()


@pytest.fixture(autouse=True)
def _no_pbem_toml_in_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # `pbem serve` would read ./pbem.toml of the checkout otherwise
