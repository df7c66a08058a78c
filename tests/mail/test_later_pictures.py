"""Pictures drawn at delivery: the worker queues a game mail with its board, the deliverer draws it in."""

from __future__ import annotations

import email
import json
import logging
import mailbox
import random
from datetime import timedelta
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import col, select

from pbem.engine.board_view import BoardView, board_from_data, board_to_data
from pbem.mail.compose import InlineImage, Outgoing, compose
from pbem.mail.delivery import Deliverer
from pbem.mail.later_pictures import blank_png, finished
from pbem.pictures.render import render_png
from pbem.store.models import OutboxItem, utcnow
from pbem.store.retention import purge_old_mail
from pbem.variants import all_variants
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import BOB, FIRST_MOVES, begin_game
from tests.helpers.serving import free_port
from tests.pictures.views import random_views

from .test_delivery import RawSink


@pytest.fixture
def rng() -> random.Random:
    seed = random.randrange(2**32)
    print(f"later pictures seed {seed}")
    return random.Random(seed)


def test_a_board_survives_its_json_form(rng: random.Random) -> None:
    views = random_views(rng, 40)
    assert {name for name, _ in views} == {variant.key for variant in all_variants()}
    for name, board in views:
        again = board_from_data(json.loads(json.dumps(board_to_data(board))))
        assert again == board, name
        assert render_png(again) == render_png(board), name


def _mail(board: BoardView | None, data: bytes = b"") -> Outgoing:
    image = InlineImage("board.1@pbem.example", data, filename="game-1.png", board=board)
    return Outgoing(to="bob@players.example", subject="Game 1", body="Your move.\n", reply_to="g1@pbem.example",
                    html='<p>Your move.</p><img src="cid:board.1@pbem.example">', images=(image,))


def _image_of(raw: bytes) -> bytes:
    message = email.message_from_bytes(raw, policy=default_policy)
    assert isinstance(message, EmailMessage)
    images = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    payload = images[0].get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload


def test_a_queued_picture_is_a_marker_until_it_is_drawn_in(rng: random.Random) -> None:
    _, board = rng.choice(random_views(rng, 30))
    later = compose(_mail(board), "pbem@pbem.example", "pbem", "pbem.example")
    now = compose(_mail(None, render_png(board)), "pbem@pbem.example", "pbem", "pbem.example")
    assert later.pictures and not now.pictures
    assert b"\x89PNG" not in later.raw and len(later.raw) < len(now.raw) / 2  # no picture in the queued bytes
    drawn = finished(later.raw, later.pictures)
    assert _image_of(drawn) == _image_of(now.raw) == render_png(board)
    # Byte for byte the mail composed with the picture drawn at once, but for the random ids and the date.
    assert len(drawn) == len(now.raw)
    assert finished(later.raw, later.pictures) == drawn  # drawn again (a re-send): the same bytes
    assert finished(now.raw, "") == now.raw


def test_a_board_that_cannot_be_drawn_leaves_a_blank_picture_and_the_mail_goes(
        rng: random.Random, caplog: pytest.LogCaptureFixture) -> None:
    _, board = rng.choice(random_views(rng, 10))
    later = compose(_mail(board), "pbem@pbem.example", "pbem", "pbem.example")
    broken = json.loads(later.pictures)
    broken[0]["board"]["panels"][0]["pieces"] = [[99, 99, "king", True]]  # outside its panel
    with caplog.at_level(logging.ERROR, logger="pbem.mail.later_pictures"):
        drawn = finished(later.raw, json.dumps(broken))
    assert _image_of(drawn).startswith(b"\x89PNG")
    assert "could not be drawn" in caplog.text
    assert body_of(email.message_from_bytes(drawn, policy=default_policy)) == "Your move.\n"  # type: ignore[arg-type]


@pytest.mark.parametrize("damage", ["{not json", "[[]]", '{"marker": 1}', '[{"board": {}}]', "[1]",
                                    '[{"marker": "\u00e9"}]'])
def test_pictures_that_cannot_be_read_leave_blank_ones_and_the_mail_goes(
        tmp_path: Path, rng: random.Random, caplog: pytest.LogCaptureFixture, damage: str) -> None:
    """A damaged row's pictures must not hold its mail back, nor every mail queued behind it."""
    _, board = rng.choice(random_views(rng, 10))
    later = compose(_mail(board), "pbem@pbem.example", "pbem", "pbem.example")
    pipe = Pipeline(tmp_path)
    deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "outbox"))
    try:
        with pipe.db.transaction() as session:
            session.add(OutboxItem(recipient="bob@players.example", message_id=later.message_id, raw=later.raw,
                                   pictures=damage, next_attempt_at=utcnow(), created_at=utcnow()))
        with caplog.at_level(logging.ERROR, logger="pbem.mail.later_pictures"):
            assert deliverer.deliver_due() == 1
        with pipe.db.read() as session:
            assert session.exec(select(OutboxItem.status)).one() == "sent"
        [message] = list(mailbox.Maildir(tmp_path / "outbox"))
        drawn = message.as_bytes()
        assert "cannot be read" in caplog.text
        assert _image_of(drawn) == blank_png()
        assert body_of(email.message_from_bytes(drawn, policy=default_policy)) == "Your move.\n"  # type: ignore[arg-type]
    finally:
        deliverer.close()
        pipe.close()


@pytest.mark.parametrize("variant", sorted(FIRST_MOVES))
def test_the_worker_queues_the_board_and_the_deliverer_draws_it(tmp_path: Path, variant: str) -> None:
    pipe = Pipeline(tmp_path)
    sink = RawSink()
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", relay.port, str(tmp_path / "unused"))
    try:
        _, _, white, _ = begin_game(pipe, variant=variant)
        with pipe.db.read() as session:
            last = session.exec(select(col(OutboxItem.id)).order_by(col(OutboxItem.id).desc())).first() or 0
        pipe.send("alice@players.example", white, FIRST_MOVES[variant])
        with pipe.db.read() as session:
            rows = session.exec(select(OutboxItem).where(col(OutboxItem.id) > last)).all()
            queued = {row.recipient: (row.raw, row.pictures) for row in rows}
        raw, pictures = queued[BOB]
        assert pictures and b"\x89PNG" not in raw  # the worker drew nothing
        boards = [board_from_data(entry["board"]) for entry in json.loads(pictures)]
        assert deliverer.deliver_due() >= len(rows)
        sent = next(mail for mail in sink.raw if b"To: bob@players.example" in mail)
        assert _image_of(sent) == render_png(boards[0])
        assert b".picture." not in sent  # no marker left
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


def test_retention_empties_the_pictures_with_the_body(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        _, _, white, _ = begin_game(pipe)
        pipe.send("alice@players.example", white, FIRST_MOVES["hyperspace"])
        pipe.drain_outbox()  # every mail marked sent
        purged = purge_old_mail(pipe.db, utcnow() + timedelta(days=400), 30, 30)
        assert purged.outbound > 0
        with pipe.db.read() as session:
            rows = session.exec(select(OutboxItem)).all()
            assert rows and all(row.raw == b"" and row.pictures == "" for row in rows)
    finally:
        pipe.close()
