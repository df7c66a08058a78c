"""Who may act: tokens verified and expired at RCPT, a token used from another From, error-reply limits."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.models import Game, InboxItem
from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, register, started_game

MALLORY = "mallory@evil.example"


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, PBEM_SERVER_ERROR_REPLIES_PER_HOUR="3")
    yield p
    p.close()


def game_status(pipe: Pipeline) -> str:
    with pipe.db.transaction() as session:
        return session.exec(select(Game)).one().status


def test_a_token_used_from_another_address_is_held_until_the_owner_confirms(pipe: Pipeline) -> None:
    seat_a, _ = started_game(pipe)
    pipe.send(MALLORY, seat_a, "resign")
    mails = pipe.drain_outbox()
    assert [r for r, _ in mails] == [ALICE]  # nothing to mallory: private mail goes to the registered address
    request = mails[0][1]
    assert "came from mallory@evil.example" in body_of(request) and "resign" in body_of(request)
    assert game_status(pipe) == "active"
    confirm_address = str(request["Reply-To"])
    pipe.send(MALLORY, confirm_address, "confirm")  # only the registered address can confirm
    assert pipe.drain_outbox() == [] and game_status(pipe) == "active"
    pipe.send(ALICE, confirm_address, "yes please")
    assert "reply with the word 'confirm'" in body_of(pipe.drain_outbox()[0][1])
    pipe.send(ALICE, confirm_address, "confirm")
    mails = dict(pipe.drain_outbox())
    assert game_status(pipe) == "finished"
    assert "resignation" in body_of(mails[ALICE]) and "resignation" in body_of(mails[BOB])
    with pipe.db.read() as session:
        statuses = {i.status for i in session.exec(select(InboxItem))}
    assert "held" not in statuses and "failed" not in statuses
    pipe.send(ALICE, confirm_address, "confirm")  # a second confirmation does nothing
    assert pipe.drain_outbox() == []


def test_error_replies_are_limited_per_sender_and_hour(pipe: Pipeline) -> None:
    for number in range(6):
        pipe.send(MALLORY, pipe.addresses.public, f"frobnicate {number}")
    replies = [r for r, _ in pipe.drain_outbox()]
    assert replies == [MALLORY] * 3
    pipe.send(ALICE, pipe.addresses.public, "register alice")  # others are still answered
    assert [r for r, _ in pipe.drain_outbox()] == [ALICE]


def test_good_replies_are_not_limited(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    for _ in range(5):
        pipe.send(ALICE, alice, "games")
    assert len(pipe.drain_outbox()) == 5


def test_forged_and_expired_tokens_are_refused_at_rcpt(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    try:
        alice = Player(harness, "alice@players.example")
        welcome = alice.register("alice")
        alice.reply(welcome, "challenge carol@players.example hyperspace")
        alice.next_mail()
        carol = Player(harness, "carol@players.example")
        invitation = carol.next_mail()
        carol.reply(invitation, "accept")
        carol.next_mail(lambda m: "has started" in body_of(m))
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            carol.reply(invitation, "accept")
        code, text = next(iter(refused.value.recipients.values()))
        assert code == 550 and b"expired" in text
        personal = str(welcome["Reply-To"])
        forged = personal[:-len(harness.domain) - 3] + "00@" + harness.domain
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            harness.send(alice.address, forged, "games")
    finally:
        harness.close()
