"""pbem behind a real Postfix, driven by swaks: a game, the listener down, a 451, an oversized mail."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

import pbem.mail.smtpd
from pbem.store.models import Game, InboxItem
from tests.helpers.harness import Harness, body_of
from tests.helpers.postfix import Postfix, swaks, unavailable

#: Minutes of real processes: `pytest -m 'not slow'` leaves them out of a quick run.
pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(unavailable()), reason=str(unavailable()))]

ALICE, BOB = "alice@players.example", "bob@players.example"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[tuple[Harness, Postfix]]:
    """pbem (relaying through Postfix; a restart keeps its port) and Postfix in front of it."""
    harness = Harness(tmp_path, PBEM_OUTBOUND_SMTP_PORT="25")
    postfix = Postfix(harness.domain, harness.port)
    yield harness, postfix
    harness.close()
    postfix.stop()


def to(address: str) -> object:
    return lambda m: address in str(m["To"])


def send(postfix: Postfix, sender: str, address: str, body: str, answering: EmailMessage | None = None) -> None:
    headers = {"In-Reply-To": str(answering["Message-ID"])} if answering is not None else None
    done = swaks(sender, address, body, headers=headers)
    assert done.returncode == 0, done.stdout + done.stderr


def exchange(postfix: Postfix, sender: str, address: str, body: str, count: int,
             answering: EmailMessage | None = None) -> EmailMessage:
    """Send through Postfix and wait for the sender's next reply (the count-th mail to them)."""
    send(postfix, sender, address, body, answering)
    return postfix.wait_for(to(sender), count)[-1]


def test_a_game_played_with_swaks_through_postfix(stack: tuple[Harness, Postfix]) -> None:
    harness, postfix = stack
    welcome_a = exchange(postfix, ALICE, harness.public, "register alice", 1)
    welcome_b = exchange(postfix, BOB, harness.public, "register bob", 1)
    assert "Welcome to pbem, alice" in body_of(welcome_a)
    sent = exchange(postfix, ALICE, str(welcome_a["Reply-To"]), "challenge bob hyperspace white", 2, welcome_a)
    number = re.search(r"Challenge (\d+) sent", body_of(sent))
    assert number
    send(postfix, BOB, str(welcome_b["Reply-To"]), f"accept {number.group(1)}", welcome_b)
    seat_a = postfix.wait_for(lambda m: ALICE in str(m["To"]) and "You play white" in body_of(m))[0]
    seat_b = postfix.wait_for(lambda m: BOB in str(m["To"]) and "You play black" in body_of(m))[0]
    for number, (player, seat, move) in enumerate([(ALICE, seat_a, "f3"), (BOB, seat_b, "e5"),
                                                   (ALICE, seat_a, "g4"), (BOB, seat_b, "Qh4#")]):
        send(postfix, player, str(seat["Reply-To"]), move, seat)
        postfix.wait_for(lambda m, p=player: p in str(m["To"]) and "Played" in body_of(m), count=number // 2 + 1)
    over = postfix.wait_for(lambda m: ALICE in str(m["To"]) and "0-1" in body_of(m))[0]
    assert "checkmate" in body_of(over).lower()
    assert all(m["Auto-Submitted"] for m in postfix.mails())


def test_the_listener_down_while_a_move_is_sent_then_up(stack: tuple[Harness, Postfix]) -> None:
    harness, postfix = stack
    welcome = exchange(postfix, ALICE, harness.public, "register alice", 1)
    harness.stop_server()
    send(postfix, ALICE, str(welcome["Reply-To"]), "games", welcome)  # Postfix takes it and defers it
    harness.start_server()
    postfix.flush()
    answer = postfix.wait_for(to(ALICE), 2)[-1]
    assert "Games of alice" in body_of(answer)
    harness.settle(quiet=3.0)
    postfix.flush()
    assert len(postfix.wait_for(to(ALICE), 2)) == 2  # applied and answered once
    with harness.server.db.read() as session:  # type: ignore[union-attr]
        assert len(session.exec(select(InboxItem)).all()) == 2


def test_a_451_is_retried_by_postfix(stack: tuple[Harness, Postfix], monkeypatch: pytest.MonkeyPatch) -> None:
    harness, postfix = stack
    calls = {"failed": 0}
    real = pbem.mail.smtpd.store_batch

    def flaky(*args: object, **kwargs: object) -> list[bool]:
        if calls["failed"] == 0:
            calls["failed"] += 1
            raise OSError("database briefly unavailable")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pbem.mail.smtpd, "store_batch", flaky)
    send(postfix, ALICE, harness.public, "register alice")
    welcome = postfix.wait_for(to(ALICE), 1)[0]
    assert calls["failed"] == 1 and "Welcome to pbem, alice" in body_of(welcome)
    assert "status=deferred" in postfix.log.read_text() and "451" in postfix.log.read_text()


def test_an_oversized_mail_is_bounced_by_postfix_from_our_size(stack: tuple[Harness, Postfix],
                                                               tmp_path: Path) -> None:
    harness, postfix = stack
    limit = harness.config.smtp.max_message_bytes
    body = tmp_path / "huge.txt"  # swaks reads a body from a file named as the body
    body.write_text("register alice\n" + ("x" * 76 + "\n") * (limit // 77 + 100))
    send(postfix, ALICE, harness.public, str(body))
    bounce = postfix.wait_for(lambda m: ALICE in str(m["To"]) and "Undelivered" in str(m["Subject"]))[0]
    assert re.search(r"message size \d+ exceeds size limit 1048576", bounce.as_string())  # our EHLO SIZE
    with harness.server.db.read() as session:  # type: ignore[union-attr]
        assert session.exec(select(InboxItem)).all() == []
        assert session.exec(select(Game)).all() == []
