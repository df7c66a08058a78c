"""Real game mails over SMTP, one per variant: a text part, an HTML part showing an inline PNG by cid,
and in that PNG the last move's squares in the highlight colours, found from the squares' positions."""

from __future__ import annotations

import io
import re
from email.message import EmailMessage

import pytest
from PIL import Image

from pbem.engine.base import Seat
from pbem.engine.board_view import BoardView, Mark
from pbem.pictures.colours import HIGHLIGHT_FROM, HIGHLIGHT_TO
from pbem.pictures.layout import cell_box, picture_size
from pbem.variants import get_variant
from tests.helpers.harness import Harness, body_of, open_game
from tests.helpers.players import FIRST_MOVES


def expected_board(key: str, move: str) -> BoardView:
    """The picture data Black's mail must be drawn from, computed here from the rules alone."""
    engine = get_variant(key)
    state = engine.setup()
    transition = engine.apply(state, engine.parse_action(state, move))
    board = engine.view(transition.state, Seat.BLACK, transition.highlights).board
    assert board is not None
    return board


def html_and_png(message: EmailMessage) -> tuple[str, Image.Image, bytes]:
    html_part = message.get_body(preferencelist=("html",))
    assert html_part is not None, "no text/html part"
    html = str(html_part.get_content())
    cid = re.search(r'<img src="cid:([^"]+)"', html)
    assert cid, "the HTML part shows no inline picture"
    images = [part for part in message.walk() if part["Content-ID"] == f"<{cid.group(1)}>"]
    assert len(images) == 1 and images[0].get_content_type() == "image/png"
    data = images[0].get_payload(decode=True)
    assert isinstance(data, bytes)
    return html, Image.open(io.BytesIO(data)), data


def edge_pixel(image: Image.Image, box: tuple[int, int, int, int]) -> tuple[int, int, int]:
    """The pixel one in from the middle of the cell's left edge: pieces are centred, so it shows the ground."""
    x0, y0, _, y1 = box
    pixel = image.convert("RGB").getpixel((x0 + 1, (y0 + y1) // 2))
    assert isinstance(pixel, tuple)
    return pixel[0], pixel[1], pixel[2]


@pytest.mark.parametrize("key", sorted(FIRST_MOVES))
def test_the_opponents_mail_shows_the_move_in_a_picture(harness: Harness, key: str) -> None:
    alice, bob, opening_a, _ = open_game(harness, key, "white")
    alice.reply(opening_a, FIRST_MOVES[key])
    mail = bob.next_mail(lambda m: "alice played" in body_of(m) or "Your move" in body_of(m))
    text = body_of(mail)
    assert mail.get_content_type() in ("multipart/alternative", "multipart/mixed")
    html, image, data = html_and_png(mail)
    board = expected_board(key, FIRST_MOVES[key])
    assert image.size == picture_size(board, 1)
    assert len(data) < 100_000 and len(mail.as_bytes()) < 100_000
    assert f'width="{image.width}"' in html  # shown at its natural size
    marked = {Mark.MOVE_FROM: HIGHLIGHT_FROM, Mark.MOVE_TO: HIGHLIGHT_TO}
    checked = 0
    for index, panel in enumerate(board.panels):
        for cell, mark in panel.marks:
            if mark in marked and cell not in panel.missing:
                colour = HIGHLIGHT_TO if Mark.MOVE_TO in panel.marks_at(cell) else marked[mark]
                assert edge_pixel(image, cell_box(board, index, cell, 1)) == colour, (panel.title, cell, mark)
                checked += 1
    assert checked >= 2
    # The text part keeps the whole diagram Black sees, and the HTML part keeps it too, in a <pre>.
    engine = get_variant(key)
    state = engine.setup()
    after = engine.apply(state, engine.parse_action(state, FIRST_MOVES[key])).state
    diagram = [line.rstrip() for line in engine.view(after, Seat.BLACK).diagram.splitlines() if line.strip()]
    assert all(line in text for line in diagram), key
    assert "<pre" in html and "</table>" in html
