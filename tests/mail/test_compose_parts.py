"""Game mails with an HTML alternative, an inline picture and attachments: the MIME shape clients expect."""

from __future__ import annotations

import email
import re
from email.message import EmailMessage
from email.policy import default

import pytest

from pbem.mail.compose import Attachment, InlineImage, Outgoing, SecretLeakError, compose, scan_for_secrets
from pbem.mail.html_part import clock_rows, game_html

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4  # any bytes: compose must not look inside
DIAGRAM = "  +---+\n8 | k |\n  +---+\n    a"
CLOCK = ["Time control: 7 days per move", "White  alice            time left 7d (running)"]
BODY = f"bob played 1... e5. Your move.\n\nThe board:\n\n{DIAGRAM}\n\n" + "\n".join(CLOCK) + "\n\n-- \npbem\n"


def parse(mail: Outgoing) -> EmailMessage:
    raw = compose(mail, "pbem@pbem.example", "pbem", "pbem.example").raw
    message = email.message_from_bytes(raw, policy=default)
    assert isinstance(message, EmailMessage)
    return message


def game_mail(**extra: object) -> Outgoing:
    picture = InlineImage("board.1@pbem.example", PNG)
    html = game_html(BODY, title="[pbem #1] alice vs bob", diagram=DIAGRAM, clock=CLOCK, picture=picture,
                     size=(600, 400))
    return Outgoing(to="alice@example.com", subject="[pbem #1] alice vs bob", body=BODY, reply_to="g1@pbem.example",
                    html=html, images=(picture,), **extra)  # type: ignore[arg-type]


def test_plain_only_mail_stays_a_single_text_part() -> None:
    message = parse(Outgoing(to="a@example.com", subject="s", body="hello\n", reply_to="p@pbem.example"))
    assert message.get_content_type() == "text/plain"


def test_html_and_picture_make_alternative_with_related() -> None:
    message = parse(game_mail())
    assert message.get_content_type() == "multipart/alternative"
    plain, related = message.iter_parts()
    assert plain.get_content_type() == "text/plain" and plain.get_content().replace("\r\n", "\n") == BODY
    assert related.get_content_type() == "multipart/related"
    html, image = related.iter_parts()
    cid = re.search(r'src="cid:([^"]+)"', html.get_content())
    assert cid and image["Content-ID"] == f"<{cid.group(1)}>"
    assert image.get_content_type() == "image/png" and image.get_content() == PNG


def test_attachments_wrap_everything_in_mixed() -> None:
    record = Attachment("game-1.pgn", b'[Event "pbem"]\n1. e4 e5 *\n', "application", "x-chess-pgn")
    message = parse(game_mail(attachments=(record,)))
    assert message.get_content_type() == "multipart/mixed"
    body, attached = message.iter_parts()
    assert body.get_content_type() == "multipart/alternative"
    assert attached.get_filename() == "game-1.pgn" and attached.get_content() == record.data
    plain = message.get_body(preferencelist=("plain",))
    assert plain is not None and plain.get_content().replace("\r\n", "\n") == BODY


def test_the_html_part_holds_the_same_text_the_diagram_and_the_clock_as_a_table() -> None:
    html = game_mail().html
    assert "bob played 1... e5. Your move." in html
    assert "<pre" in html and "8 | k |" in html
    assert "<td" in html and "7 days per move" in html
    assert "Time control: 7 days per move" not in html  # it is a table row, not a text line


def test_the_html_part_escapes_what_players_wrote() -> None:
    html = game_html("alice says <script>alert(1)</script> & more\n", title="<b>t</b>")
    assert "<script>" not in html and "&lt;script&gt;" in html and "&amp; more" in html
    assert "<title>&lt;b&gt;t&lt;/b&gt;</title>" in html


def test_clock_rows_split_labels_and_columns() -> None:
    assert clock_rows(CLOCK) == [["Time control", "7 days per move"], ["White", "alice", "time left 7d (running)"]]


def test_the_clock_table_styles_its_first_column_and_keeps_a_blank_line_as_an_empty_row() -> None:
    html = game_html("Your move.\n", title="t", clock=["Time control: 7 days per move", "  ",
                                                       "White  alice  time left 7d (running)"])
    nowrap = 'style="padding:2px 12px 2px 0; vertical-align:top; white-space:nowrap;"'
    cell = 'style="padding:2px 12px 2px 0; vertical-align:top;"'
    assert (f"<tr><td {nowrap}>Time control</td><td {cell}>7 days per move</td></tr>\n<tr></tr>\n"
            f"<tr><td {nowrap}>White</td><td {cell}>alice</td><td {cell}>time left 7d (running)</td></tr>") in html


def test_the_secret_scan_reads_the_html_part_and_attachments() -> None:
    mail = game_mail()
    with pytest.raises(SecretLeakError):
        scan_for_secrets(mail, ["8 | k |"])
    leaky = game_mail(attachments=(Attachment("game.pgn", b"return to f4 nonce 1234"),))
    with pytest.raises(SecretLeakError):
        scan_for_secrets(leaky, ["nonce 1234"])
