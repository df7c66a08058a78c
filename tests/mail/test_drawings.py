"""Delivery's pictures: drawn in the order the lanes send, and the next round's drawn while a round sends."""

from __future__ import annotations

import email
import logging
import mailbox
import threading
import time
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import text

import pbem.mail.delivery
from pbem.engine.base import Seat
from pbem.engine.board_view import BoardView
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


def _item(number: int, pictures: str = "[]") -> OutboxItem:
    return OutboxItem(id=number, recipient=f"p{number}@players.example", message_id=f"<{number}@test>",
                      raw=b"mail %d" % number, pictures=pictures, next_attempt_at=utcnow(), created_at=utcnow())


def test_a_rounds_pictures_are_drawn_in_the_order_its_lanes_send_them() -> None:
    recorder = Recorder()
    recorder.go.clear()  # nothing drawn before every picture is asked for: the order is the asking's
    drawings = Drawings(recorder, most_held=100)
    lanes = [[_item(1), _item(4), _item(6)], [_item(2), _item(5, pictures="")], [_item(3)]]
    try:
        round_ = drawings.for_round(lanes)
        recorder.go.set()
        assert {number: future.result(10) for number, future in round_.items()} == {
            number: b"mail %d+drawn" % number for number in (1, 2, 3, 4, 6)}  # 5 has no picture
        # Each lane's first mail, then each one's second...: no lane waits for another lane's later mails.
        assert recorder.drawn == [b"mail 1", b"mail 2", b"mail 3", b"mail 4", b"mail 6"]
    finally:
        drawings.close()


def test_a_mail_drawn_ahead_is_not_drawn_again_and_one_passed_over_is_forgotten() -> None:
    recorder = Recorder()
    drawings = Drawings(recorder, most_held=100)
    try:
        drawings.ahead([(7, b"mail 7", "[]"), (8, b"mail 8", "[]"), (9, b"mail 9", "")])
        deadline = time.monotonic() + 10  # both drawn before the round: what follows does not hang on timing
        while len(recorder.drawn) < 2 and time.monotonic() < deadline:
            time.sleep(0.001)
        first = drawings.for_round([[_item(8)], [_item(10)]])
        assert first[8].result(10) == b"mail 8+drawn" and first[10].result(10) == b"mail 10+drawn"
        # 8 was drawn ahead; 7, before it, was not claimed (retried later, say): forgotten, drawn when claimed.
        assert sorted(recorder.drawn) == [b"mail 10", b"mail 7", b"mail 8"]
        drawings.done_with(first)
        again = drawings.for_round([[_item(7)]])
        assert again[7].result(10) == b"mail 7+drawn"
        assert recorder.drawn.count(b"mail 7") == 2 and recorder.drawn.count(b"mail 8") == 1
    finally:
        drawings.close()


def test_no_more_mails_are_held_than_allowed() -> None:
    recorder = Recorder()
    recorder.go.clear()
    drawings = Drawings(recorder, most_held=3)
    try:
        round_ = drawings.for_round([[_item(1), _item(2)]])
        drawings.ahead([(number, b"mail %d" % number, "[]") for number in range(3, 9)])
        recorder.go.set()
        assert [future.result(10) for future in round_.values()] == [b"mail 1+drawn", b"mail 2+drawn"]
        drawings.done_with(round_)
        later = drawings.for_round([[_item(3), _item(4)]])
        assert later[3].result(10) == b"mail 3+drawn" and later[4].result(10) == b"mail 4+drawn"
        assert recorder.drawn == [b"mail 1", b"mail 2", b"mail 3", b"mail 4"]  # 3 ahead (up to the limit), 4 now
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
def test_the_next_rounds_pictures_are_drawn_while_a_round_sends(tmp_path: Path, through: str) -> None:
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
    host = "127.0.0.1" if through == "relay" else ""  # several recipients: several lanes, on a relay
    deliverer = Deliverer(pipe.db, host, relay.port, str(tmp_path / "outbox"), batch=3, finish=counted)
    try:
        with pipe.db.transaction() as session:
            for number in range(7):
                session.add(_picture_mail(number, board))
        assert deliverer.deliver_due() == 3
        # A full round: the next three were asked for as well, and are drawn on the drawing thread.
        deadline = time.monotonic() + 10
        while len(calls) < 6 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len(calls) == 6
        assert deliverer.deliver_due() == 3
        assert deliverer.deliver_due() == 1
        assert len(calls) == 7 and len(set(calls)) == 7  # each mail drawn once, the ahead ones not again
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


def test_a_failed_read_of_the_next_round_does_not_stop_this_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    """Drawing ahead is a help: when its read fails (here a statement SQLite refuses), the round still sends."""
    monkeypatch.setattr(pbem.mail.delivery, "_DUE_AFTER", text("SELECT id, raw, pictures FROM no_such_table"))
    variant = get_variant("hyperspace")
    board = variant.view(variant.setup(), Seat.WHITE).board
    assert board is not None
    pipe = Pipeline(tmp_path)
    deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "outbox"), batch=2)
    try:
        with pipe.db.transaction() as session:
            for number in range(3):
                session.add(_picture_mail(number, board))
        with caplog.at_level(logging.WARNING, logger="pbem.mail.delivery"):
            assert deliverer.deliver_due() == 2
            assert deliverer.deliver_due() == 1
        assert "drawn when it is claimed" in caplog.text
        assert len(list(mailbox.Maildir(tmp_path / "outbox"))) == 3
    finally:
        deliverer.close()
        pipe.close()
