"""compose() writes a mail's bytes itself: exactly what the email package makes of the same parts."""

from __future__ import annotations

import base64
import email
import random
import re
from email import encoders
from email.charset import BASE64, QP, Charset
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.image import MIMEImage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.policy import SMTP
from email.utils import formataddr

import pytest

from pbem.mail.compose import (
    Attachment,
    Composed,
    InlineImage,
    Outgoing,
    _address_header,
    _Folded,
    _ids_header,
    _one_line,
    _text_header,
    base64_line_bytes,
    base64_lines,
    compose,
    message_ids,
    plain_address,
)

SENDER, NAME, DOMAIN = "pbem@pbem.example", "pbem", "pbem.example"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 7


# -- the reference: the same mail built with the email package's compat32 classes -------------------------

def _ref_text(text: str, subtype: str) -> Message:
    text = re.sub(r"[\ud800-\udfff]", "\ufffd", text)
    if text.isascii() and max(map(len, text.splitlines()), default=0) <= 900:
        return MIMEText(text, subtype, "us-ascii")
    charset = Charset("utf-8")
    charset.body_encoding = QP if subtype == "plain" else BASE64
    return MIMEText(text, subtype, charset)  # type: ignore[arg-type]


def _ref_body(mail: Outgoing, stem: str) -> Message:
    message = _ref_text(mail.body, "plain")
    if mail.html:
        ascii_html = re.sub(r"[\ud800-\udfff]", "\ufffd", mail.html).encode("ascii", "xmlcharrefreplace").decode()
        html = _ref_text(ascii_html if max(map(len, ascii_html.splitlines()), default=0) <= 900 else mail.html,
                         "html")
        if mail.images:
            related = MIMEMultipart("related", boundary=f"{stem}.r")
            related.attach(html)
            for image in mail.images:
                picture = MIMEImage(image.data, image.subtype)
                picture["Content-ID"] = f"<{image.cid}>"
                picture["Content-Disposition"] = f'inline; filename="{image.filename}"'
                related.attach(picture)
            html = related
        alternative = MIMEMultipart("alternative", boundary=f"{stem}.a")
        alternative.attach(message)
        alternative.attach(html)
        message = alternative
    if mail.attachments:
        mixed = MIMEMultipart("mixed", boundary=f"{stem}.m")
        mixed.attach(message)
        for item in mail.attachments:
            part = MIMEBase(item.maintype, item.subtype)
            part.set_payload(item.data)
            encoders.encode_base64(part)
            part["Content-Disposition"] = f'attachment; filename="{item.filename}"'
            mixed.attach(part)
        message = mixed
    return message


def reference(mail: Outgoing, message_id: str, date: str, stem: str) -> bytes:
    message = _ref_body(mail, stem)
    message["From"] = _Folded("From", [formataddr((_one_line(NAME), plain_address(SENDER)))])
    message["To"] = _address_header("To", mail.to)
    message["Reply-To"] = _address_header("Reply-To", mail.reply_to)
    message["Subject"] = _text_header("Subject", mail.subject)
    message["Date"] = date
    message["Message-ID"] = message_id
    if in_reply_to := message_ids([mail.in_reply_to]):
        message["In-Reply-To"] = _ids_header("In-Reply-To", in_reply_to[:1])
    references = message_ids(mail.references)
    if len(references) > 30:
        references = [references[0], *references[-29:]]
    if references:
        message["References"] = _ids_header("References", references)
    automatic = _one_line(mail.auto_submitted) or "auto-replied"
    message["Auto-Submitted"] = automatic
    message["X-Auto-Response-Suppress"] = "All"
    message["Precedence"] = "bulk" if automatic == "auto-generated" else "auto_reply"
    for part in message.walk():  # what compose's headers are: folded already where short ASCII lines
        for name, value in part.items():
            if isinstance(value, str) and not isinstance(value, _Folded) and value.isascii() and "\n" not in value \
                    and len(name) + 2 + len(value) <= 78:
                part.replace_header(name, _Folded(name, [value]))
    return message.as_bytes(policy=SMTP)


def _same_as_reference(mail: Outgoing) -> Composed:
    composed = compose(mail, SENDER, NAME, DOMAIN)
    parsed = email.message_from_bytes(composed.raw)
    stem = ""
    if parsed.is_multipart():
        stem = str(parsed.get_boundary()).rsplit(".", 1)[0]
    assert parsed["Message-ID"] == composed.message_id
    assert composed.raw == reference(mail, composed.message_id, str(parsed["Date"]), stem)
    return composed


# -- random mails ------------------------------------------------------------------------------------

_PIECES = ["plain words", "é and ✓", "\r\n", "\n", "\r", "\n\n", "-- \n", "From the start", ".", "x" * 120,
           "y" * 950, "\t tab", "=_", "=3D", "<b>", "\ud800", "Ünïcödé Ωμέγα", "  ", "=" * 80, "emoji 🙂"]


def _text(rng: random.Random) -> str:
    return "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))


def _mail(rng: random.Random) -> Outgoing:
    html = rng.random() < 0.6
    images = tuple(InlineImage(f"board.{n}@{DOMAIN}", rng.randbytes(rng.choice((0, 1, 57, 58, 3000))),
                               filename=rng.choice(("board.png", "game-12.png")))
                   for n in range(rng.choice((0, 1, 1, 2)))) if html else ()
    attachments = tuple(Attachment(rng.choice(("game.pgn", "g" * 70 + ".txt", "record.txt")),
                                   rng.randbytes(rng.choice((0, 5, 500))), *rng.choice((
                                       ("application", "octet-stream"), ("text", "plain"), ("image", "gif"))))
                        for _ in range(rng.choice((0, 0, 1, 2))))
    return Outgoing(to=rng.choice(("a@example.com", "Jörg <jörg@exämple.de>", "x" * 90 + "@example.com")),
                    subject=_text(rng)[:200] or "s", body=_text(rng), reply_to=f"pbem+g1w1.abc@{DOMAIN}",
                    in_reply_to=rng.choice(("", "<a@b>", "junk")), references=tuple(
                        f"<r{n}.{'z' * rng.randint(1, 60)}@example.com>" for n in range(rng.randint(0, 40))),
                    auto_submitted=rng.choice(("auto-replied", "auto-generated", "")),
                    html=f"<p>{_text(rng)}</p>" if html else "", images=images, attachments=attachments)


@pytest.fixture
def rng() -> random.Random:
    seed = random.randrange(2**32)
    print(f"compose seed {seed}")
    return random.Random(seed)


def test_random_mails_are_byte_for_byte_the_email_packages(rng: random.Random) -> None:
    for _ in range(300):
        _same_as_reference(_mail(rng))


@pytest.mark.parametrize("body", ["plain\n", "lone\rreturns\r\nand\nmixed\n\n", "é and ✓ unicode\n" * 50,
                                  "no final newline", "", "-- \nsignature\n", "x" * 2000 + "\n"])
def test_the_shapes_of_game_mails_are_the_email_packages(body: str) -> None:
    picture = InlineImage("p@pbem.example", PNG)
    record = Attachment("game.pgn", b"1. e4 *\r\n2. lone\rreturn\n", "application", "x-chess-pgn")
    for mail in (Outgoing(to="a@example.com", subject="s é", body=body, reply_to="r@pbem.example"),
                 Outgoing(to="a@example.com", subject="s", body=body, reply_to="r@pbem.example",
                          html=f"<p>{body}</p>\n" * 3, images=(picture,), attachments=(record,))):
        _same_as_reference(mail)


def test_no_line_of_a_mail_is_longer_than_smtp_allows() -> None:
    """A player's note pasted as one long line, in the text and in the HTML: encoded, not sent as 7bit."""
    line = "word " * 400
    raw = compose(Outgoing(to="a@example.com", subject="s", body=line + "\n", reply_to="r@pbem.example",
                           html=f"<p>{line}</p>"), SENDER, NAME, DOMAIN).raw
    assert max(map(len, raw.split(b"\r\n"))) <= 998
    message = email.message_from_bytes(raw)
    plain, html = (part.get_payload(decode=True).decode().replace("\r\n", "\n") for part in message.walk()
                   if not part.is_multipart())
    assert plain == line + "\n" and html == f"<p>{line}</p>"


def test_a_short_ascii_subject_is_what_the_header_class_writes(rng: random.Random) -> None:
    alphabet = "abc XYZ =?_.:;!-" + "".join(map(chr, range(33, 127)))
    for _ in range(2000):
        text = " ".join("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 75))).split())
        expected = Header(text, "us-ascii", header_name="Subject").encode(linesep="\n", maxlinelen=78)
        assert _text_header("Subject", text).fold(policy=SMTP) == \
            _Folded("Subject", expected.split("\n ")).fold(policy=SMTP)


@pytest.mark.parametrize(("value", "kept"), [
    ("<pbem.0f3a@pbem.example>", ["<pbem.0f3a@pbem.example>"]),
    ("<CA+x=Y_z-1@mail.gmail.com> (Bob's mail) <a..b@c.d>", ["<CA+x=Y_z-1@mail.gmail.com>", "<a..b@c.d>"]),
    ('<"odd:left"@example.org> <id@[IPv6:2001:db8::1]>', ['<"odd:left"@example.org>', "<id@[IPv6:2001:db8::1]>"]),
    # Found by tests/e2e/test_hostile_mail.py: an encoded word in a References token, echoed in the reply's.
    ("<=?utf-8?q?Sam=0D=0ABcc:_victimsam@example.org>", []),
    ("<no-at-sign> <two@at@signs> <a space@example.org> <colon:left@example.org> <x@host:25>", []),
    ("<" + "x" * 240 + "@example.org>", []),  # longer than a folded line may carry
])
def test_only_well_formed_msg_ids_are_echoed(value: str, kept: list[str]) -> None:
    assert message_ids([value]) == kept
    mail = compose(Outgoing(to="bob@example.org", subject="s", body="b", reply_to=SENDER, in_reply_to=value,
                            references=(value,)), SENDER, NAME, DOMAIN)
    head = email.message_from_bytes(mail.raw.partition(b"\r\n\r\n")[0] + b"\r\n\r\n")
    assert head["In-Reply-To"] == (kept[0] if kept else None)
    assert (head["References"] or "").split() == kept


def test_base64_lines_are_encodebytes_lines_ended_by_crlf() -> None:
    rng = random.Random()
    for length in (0, 1, 2, 3, 56, 57, 58, 114, 23_000, *(rng.randrange(40_000) for _ in range(50))):
        data = rng.randbytes(length)
        expected = base64.encodebytes(data).replace(b"\n", b"\r\n")
        assert base64_line_bytes(data) == expected, length
        assert base64_lines(data) == expected.decode("ascii"), length
