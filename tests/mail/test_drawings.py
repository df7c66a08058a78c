"""Delivery's pictures: drawn in the order they were asked for, each once, while the mails claimed before are sent."""

from __future__ import annotations

import email
import mailbox
import threading
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlmodel import select

import pbem.mail.delivery
from pbem.engine.base import Seat
from pbem.engine.board_view import BoardView
from pbem.mail.claimed import ClaimedMail
from pbem.mail.compose import InlineImage, Outgoing, compose
from pbem.mail.delivery import Deliverer
from pbem.mail.drawings import Drawings
from pbem.mail.later_pictures import finished
from pbem.pictures.render import render_png
from pbem.store.models import OutboxItem, utcnow
from pbem.variants import get_variant
from tests.helpers.pipeline import Pipeline
from tests.helpers.serving import free_port

from .test_delivery import RawSink


class Recorder:
    """A finish function that notes which mails it drew, in order; held back until ``go`` is set."""

    def __init__(self) -> None:
        self.drawn: list[bytes] = []
        self.go = threading.Event()
        self.go.set()

    def __call__(self, raw: bytes, pictures: str) -> bytes:
        self.go.wait(10)
        self.drawn.append(raw)
        return raw + b"+drawn"


def _item(number: int, pictures: str = "[]") -> ClaimedMail:
    return ClaimedMail(id=number, recipient=f"p{number}@players.example", raw=b"mail %d" % number, pictures=pictures,
                       attempts=0)


def test_mails_are_drawn_in_the_order_they_were_asked_for() -> None:
    recorder = Recorder()
    recorder.go.clear()  # nothing drawn before every picture is asked for: the order is the asking's
    drawings = Drawings(recorder)
    try:
        drawn = drawings.for_mails([_item(3), _item(1), _item(5, pictures=""), _item(4)])
        recorder.go.set()
        assert {number: future.result(10) for number, future in drawn.items()} == {
            number: b"mail %d+drawn" % number for number in (1, 3, 4)}  # 5 has no picture
        assert recorder.drawn == [b"mail 3", b"mail 1", b"mail 4"]
    finally:
        drawings.close()


def test_mails_done_with_before_they_are_drawn_are_not_drawn() -> None:
    recorder = Recorder()
    recorder.go.clear()
    drawings = Drawings(recorder)
    try:
        first = drawings.for_mails([_item(1)])
        later = drawings.for_mails([_item(2), _item(3)])
        drawings.done_with(later)  # the relay went down: they are drawn again when they are sent
        recorder.go.set()
        assert first[1].result(10) == b"mail 1+drawn"
        assert all(future.cancelled() for future in later.values())
        assert recorder.drawn == [b"mail 1"]
    finally:
        drawings.close()


def _picture_mail(number: int, board: BoardView) -> OutboxItem:
    image = InlineImage(f"board.{number}@pbem.example", b"", filename="game.png", board=board)
    composed = compose(Outgoing(to=f"p{number}@players.example", subject=f"Game {number}", body="Your move.\n",
                                reply_to="g1@pbem.example", html=f'<img src="cid:board.{number}@pbem.example">',
                                images=(image,)), "pbem@pbem.example", "pbem", "pbem.example")
    return OutboxItem(recipient=f"p{number}@players.example", message_id=composed.message_id, raw=composed.raw,
                      pictures=composed.pictures, next_attempt_at=utcnow(), created_at=utcnow())


@pytest.mark.parametrize("through", ["maildir", "relay"])
def test_the_mails_a_call_claims_while_it_sends_are_drawn_once_each(tmp_path: Path, through: str) -> None:
    variant = get_variant("hyperspace")
    board = variant.view(variant.setup(), Seat.WHITE).board
    assert board is not None
    calls: list[bytes] = []

    def counted(raw: bytes, pictures: str) -> bytes:
        calls.append(raw)
        return finished(raw, pictures)

    pipe = Pipeline(tmp_path)
    sink = RawSink()
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    host = "127.0.0.1" if through == "relay" else ""  # several recipients: several connections, on a relay
    deliverer = Deliverer(pipe.db, host, relay.port, str(tmp_path / "outbox"), batch=3, finish=counted)
    try:
        with pipe.db.transaction() as session:
            for number in range(7):
                session.add(_picture_mail(number, board))
        assert deliverer.deliver_due(for_seconds=60) == 7  # claimed three, three and one at a time
        assert len(calls) == 7 and len(set(calls)) == 7  # each mail drawn once
        delivered = sink.raw if through == "relay" else [bytes(mail) for mail in mailbox.Maildir(tmp_path / "outbox")]
        assert len(delivered) == 7
        for raw in delivered:
            message = email.message_from_bytes(raw)
            pictures = [part.get_payload(decode=True) for part in message.walk()
                        if part.get_content_type() == "image/png"]
            assert pictures == [render_png(board)]
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


@pytest.mark.parametrize("through", ["maildir", "relay"])
def test_a_failed_later_claim_ends_the_call_once_the_claimed_mails_are_sent(
        tmp_path: Path, through: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim while the connections send fails (here a statement SQLite refuses): the mails claimed before are
    sent and marked, the error reaches the caller (pbem serve logs it and calls again), and nothing is lost."""
    variant = get_variant("hyperspace")
    board = variant.view(variant.setup(), Seat.WHITE).board
    assert board is not None
    pipe = Pipeline(tmp_path)
    sink = RawSink()
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    host = "127.0.0.1" if through == "relay" else ""
    deliverer = Deliverer(pipe.db, host, relay.port, str(tmp_path / "outbox"), batch=2)
    try:
        with pipe.db.transaction() as session:
            for number in range(3):
                session.add(_picture_mail(number, board))
        with monkeypatch.context() as patched:
            patched.setattr(pbem.mail.delivery, "_DUE_AFTER", text("SELECT * FROM no_such_table"))
            with pytest.raises(OperationalError, match="no_such_table"):
                deliverer.deliver_due(for_seconds=60)
        with pipe.db.read() as session:
            statuses = sorted(row.status for row in session.exec(select(OutboxItem)).all())
        assert statuses == ["pending", "sent", "sent"]  # the first claim's two, marked and folded
        assert deliverer.deliver_due() == 1
        delivered = sink.raw if through == "relay" else list(mailbox.Maildir(tmp_path / "outbox"))
        assert len(delivered) == 3
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()
