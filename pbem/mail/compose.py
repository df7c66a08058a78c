"""Composing outgoing mail: one person's reply as an RFC 5322 message, and the secret scan before it is queued."""

from __future__ import annotations

import contextlib
import re
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.charset import BASE64, QP, Charset
from email.header import Header
from email.mime.text import MIMEText
from email.policy import SMTP, Policy
from email.utils import formataddr
from functools import lru_cache
from html import escape

import pybase64

from pbem.calendar_names import DAY_NAMES, MONTH_NAMES
from pbem.engine.board_view import BoardView, board_to_data
from pbem.store import json_text
from pbem.store.vocabulary import OutboxKind

__all__ = ["Attachment", "Composed", "HtmlSource", "InlineImage", "Outgoing", "SecretLeakError", "base64_line_bytes",
           "base64_lines", "compose", "mail_date", "message_ids", "new_message_id", "plain_address", "scan_for_secrets"]

_SURROGATE = re.compile(r"[\ud800-\udfff]")


class SecretLeakError(RuntimeError):
    """A mail about to be queued contains a secret its recipient may not see."""


@dataclass(frozen=True, slots=True)
class InlineImage:
    """A picture the HTML part shows by ``cid:`` (e.g. the board), sent inside multipart/related."""

    cid: str  # without angle brackets, unique within the mail
    data: bytes
    subtype: str = "png"
    filename: str = "board.png"
    #: A board to draw at delivery instead of ``data`` (empty then): see pbem.mail.later_pictures.
    board: BoardView | None = field(default=None, repr=False)
    scale: int = 1


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file the reader may save (the game's record, its animated GIF)."""

    filename: str
    data: bytes
    maintype: str = "application"
    subtype: str = "octet-stream"
    #: The players' words in a text file (their notes as a record's comments), one entry per copy: the
    #: secret scan skips them as it skips a mail's ``own_words`` (they may be wrapped across lines).
    own_words: tuple[str, ...] = field(default=(), repr=False)


@dataclass(frozen=True, slots=True)
class HtmlSource:
    """What a game mail's HTML alternative shows beyond its text, built when the text is final.

    ``diagram`` and ``clock`` are the blocks as they stand in the text (the picture goes where the
    diagram stands); ``size`` is the picture's display size in CSS pixels; ``moves`` the record as
    table rows (number, White's turn, Black's turn).
    """

    picture: InlineImage | None
    size: tuple[int, int]
    diagram: str
    clock: tuple[str, ...] = ()
    moves: tuple[tuple[str, str, str], ...] = ()
    link: str = ""  # the game's web page, where [web] public_url is set


@dataclass
class Outgoing:
    """One mail to one person, before it becomes bytes in the outbox."""

    to: str
    subject: str
    body: str
    reply_to: str
    in_reply_to: str = ""
    references: Sequence[str] = ()
    auto_submitted: str = "auto-replied"
    kind: OutboxKind = OutboxKind.REPLY
    game_id: int | None = None
    #: Strings this recipient must never see (other seats' unrevealed secrets).
    forbidden: tuple[str, ...] = field(default=(), repr=False)
    #: An HTML alternative of ``body`` (same content), with the pictures it shows by cid.
    html: str = field(default="", repr=False)
    images: tuple[InlineImage, ...] = field(default=(), repr=False)
    attachments: tuple[Attachment, ...] = field(default=(), repr=False)
    #: Set by game mails: the HTML part (and its picture) is made from it once the text is final.
    html_source: HtmlSource | None = field(default=None, repr=False)
    #: A player's notes as quoted in ``body``, exactly: their own words, which the secret scan skips
    #: (a player may reveal their own secret; the server's own words are scanned as ever).
    own_words: tuple[str, ...] = field(default=(), repr=False)
    #: A game mail a player who reads a daily digest gets in the digest instead (news of a running
    #: game; never an answer to their own mail, a reminder, a game's start or its end).
    digestible: bool = False


def new_message_id(domain: str) -> str:
    """A fresh, unique Message-ID under our own domain."""
    return f"<pbem.{secrets.token_hex(16)}@{domain}>"


# Header values come partly from inbound mail (subjects, Message-IDs, sender addresses): whatever
# they hold, a reply's header block must stay exactly the lines written here.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
#: A msg-id as RFC 5322 writes it (3.6.4, with the obsolete quoted left part and any dots): atext and dots, or
#: a quoted string, then "@" and atext and dots, or a domain literal; printable ASCII without spaces, at most
#: 250 characters, to fit a line. A token that is none of these (a colon outside quotes, say) is not echoed.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]"
_MSGID = re.compile(rf'<(?=[!-;=?-~]{{1,250}}>)(?:{_ATEXT}+|"[ !#-\[\]-~]*")@(?:{_ATEXT}+|\[[!-Z^-~]*\])>')
_MAX_SUBJECT = 300
_MAX_REFERENCES = 30
_FOLD = 78


class _Folded(str):
    """A header already folded by :func:`compose`: every policy writes it exactly as it is.

    policy.SMTP would otherwise refold long values itself, turning a Message-ID longer than
    a line into RFC 2047 encoded words (threading breaks), and it cannot write a compat32
    ``Header`` at all. ``fold`` is what the modern policies call on header objects.
    """

    name: str

    def __new__(cls, name: str, lines: list[str]) -> _Folded:
        folded = super().__new__(cls, "\n ".join(lines))
        folded.name = name
        return folded

    def fold(self, *, policy: Policy) -> str:
        linesep = policy.linesep or "\n"
        first, *rest = self.split("\n")
        return linesep.join([f"{self.name}: {first}".rstrip(), *rest]) + linesep


def mail_date(moment: datetime) -> str:
    """A UTC time as a Date header, as ``email.utils.format_datetime`` writes it, without its ``strftime``
    (a twentieth of composing a mail)."""
    return (f"{DAY_NAMES[moment.weekday()]}, {moment.day:02d} {MONTH_NAMES[moment.month - 1]} {moment.year:04d} "
            f"{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d} +0000")


def _one_line(value: str) -> str:
    """Controls, line breaks and lone surrogates out; runs of whitespace one space."""
    return " ".join(_CONTROL.sub(" ", value).split())


def _text_header(name: str, value: str) -> _Folded:
    """Free text (a subject): one line, bounded, RFC 2047 encoded words where not ASCII."""
    text = _one_line(value)
    if len(text) > _MAX_SUBJECT:
        text = text[:_MAX_SUBJECT - 3].rstrip() + "..."
    if text.isascii() and len(name) + 2 + len(text) <= _FOLD:
        return _Folded(name, [text])  # what Header writes of it, a twentieth of the cost (most subjects)
    header = Header(text, "us-ascii" if text.isascii() else "utf-8", header_name=name)
    return _Folded(name, header.encode(linesep="\n", maxlinelen=_FOLD).split("\n "))


def plain_address(value: str) -> str:
    """One plain address as a header value: an IDN domain in its ASCII form (RFC 5890), a
    non-ASCII local part as UTF-8 (RFC 6532; such mail needs SMTPUTF8 to be relayed)."""
    address = "".join(_one_line(value).split())
    if address.isascii():
        return address
    local, at, domain = address.rpartition("@")
    if at:
        with contextlib.suppress(UnicodeError):
            domain = domain.encode("idna").decode("ascii")
        address = f"{local}@{domain}"
    # Surrogate escapes are what the policies write out as raw 8-bit bytes.
    return address.encode("utf-8").decode("ascii", "surrogateescape")


@lru_cache(maxsize=4)
def _from_header(sender_name: str, sender: str) -> _Folded:
    """The server's From, the same in every mail (``formataddr`` quotes and escapes with regular expressions)."""
    return _Folded("From", [formataddr((_one_line(sender_name), plain_address(sender)))])


def _address_header(name: str, value: str) -> _Folded:
    return _Folded(name, [plain_address(value)])


def message_ids(values: Iterable[str]) -> list[str]:
    """The well-formed msg-ids in ``values``, each once, in order; anything else is dropped."""
    found: list[str] = []
    for value in values:
        found.extend(_ids_in(value) if len(value) <= _LONGEST_ID else _MSGID.findall(value))
    return list(dict.fromkeys(found))


#: The longest value :func:`_ids_in` keeps (one msg-id of at most 250 characters and its angle brackets).
_LONGEST_ID = 252


@lru_cache(maxsize=256)
def _ids_in(value: str) -> tuple[str, ...]:
    """The msg-ids in one short value, kept: a reply names the mail it answers twice (In-Reply-To, References),
    and every mail of a game names its thread's root."""
    return tuple(_MSGID.findall(value))


def _ids_header(name: str, ids: list[str]) -> _Folded:
    lines = [ids[0]]
    for msgid in ids[1:]:
        if len(lines[-1]) + 1 + len(msgid) + (len(name) + 2 if len(lines) == 1 else 1) <= _FOLD:
            lines[-1] += " " + msgid
        else:
            lines.append(msgid)
    if len(lines[0]) + len(name) + 2 > _FOLD:
        lines.insert(0, "")  # "In-Reply-To:" alone, the long id on the next line
    return _Folded(name, lines)


@dataclass(frozen=True, slots=True)
class Composed:
    """A mail ready for the outbox: its Message-ID and its bytes as SMTP sends them (CRLF line ends)."""

    message_id: str
    raw: bytes
    #: The pictures to draw into ``raw`` before it is sent (JSON; "" for none): see pbem.mail.later_pictures.
    pictures: str = ""


def compose(mail: Outgoing, sender: str, sender_name: str, domain: str) -> Composed:
    """The RFC 5322 message for ``mail``: plain UTF-8 text, threaded, marked automatic.

    The bytes are what the email package's compat32 classes, written with policy.SMTP, would make
    of the same parts (tests/mail/test_compose_bytes.py holds that reference and compares), but
    written straight out: building and flattening the Message objects was a sixth of a move's CPU.
    Every header is folded here (see :class:`_Folded`): the values may come from hostile mail.
    """
    message_id = new_message_id(domain)
    headers: list[tuple[str, str]] = [
        ("From", _from_header(sender_name, sender)),
        ("To", _address_header("To", mail.to)),
        ("Reply-To", _address_header("Reply-To", mail.reply_to)),
        ("Subject", _text_header("Subject", mail.subject)),
        ("Date", mail_date(datetime.now(UTC))),
        ("Message-ID", message_id),
    ]
    in_reply_to = message_ids([mail.in_reply_to])
    if in_reply_to:
        headers.append(("In-Reply-To", _ids_header("In-Reply-To", in_reply_to[:1])))
    references = message_ids(mail.references)
    if len(references) > _MAX_REFERENCES:  # the thread root and the latest, as RFC 5322 3.6.4 suggests
        references = [references[0], *references[-(_MAX_REFERENCES - 1):]]
    if references:
        headers.append(("References", _ids_header("References", references)))
    auto_submitted = _one_line(mail.auto_submitted) or "auto-replied"
    headers += [("Auto-Submitted", auto_submitted), ("X-Auto-Response-Suppress", "All"),
                ("Precedence", "bulk" if auto_submitted == "auto-generated" else "auto_reply")]
    out: list[str] = []
    later: list[dict[str, object]] = []
    _write(_body(mail, later), out, headers)
    raw = "".join(out).encode("ascii", "surrogateescape")
    return Composed(message_id, raw, json_text.dumps(later) if later else "")


@dataclass(slots=True)
class _Part:
    """One MIME entity: its own headers, and a body already transfer-encoded or the parts it holds."""

    headers: list[tuple[str, str]]
    payload: str = ""
    parts: list[_Part] | None = None
    boundary: str = ""
    crlf: bool = False  # the payload's line ends are CRLF already


def _multipart(subtype: str, boundary: str, parts: list[_Part]) -> _Part:
    return _Part([("Content-Type", f'multipart/{subtype}; boundary="{boundary}"'), ("MIME-Version", "1.0")],
                 parts=parts, boundary=boundary)


def base64_lines(data: bytes) -> str:
    """``data`` in base64.encodebytes' lines of 76 characters, but CRLF-ended at once (a picture's 500 lines in
    one pass)."""
    return base64_line_bytes(data).decode("ascii")


def base64_line_bytes(data: bytes) -> bytes:
    """:func:`base64_lines` as bytes, as a queued mail's picture goes in (pbem.mail.later_pictures).

    pybase64 encodes and breaks the lines in C (SIMD): a 21 KB picture in 37 µs, where the standard library's
    ``b2a_base64`` and slicing its output into lines in Python took 272 µs (90 for the encoding alone): a move's
    notice to the opponent carries one picture, encoded in the picture process."""
    return pybase64.encodebytes(data).replace(b"\n", b"\r\n")


def _base64_part(content_type: str, lines: str, more: list[tuple[str, str]]) -> _Part:
    return _Part([("Content-Type", content_type), ("MIME-Version", "1.0"), ("Content-Transfer-Encoding", "base64"),
                  *more], lines, crlf=True)


def _image_lines(image: InlineImage, marker: str, later: list[dict[str, object]]) -> str:
    """The image's base64 lines; for a board drawn at delivery, one line ``marker`` that stands in for them
    (a boundary stem followed by a number: base64 has no '=_', and no part holds the stem)."""
    if image.board is None:
        return base64_lines(image.data)
    later.append({"marker": marker, "scale": image.scale, "board": board_to_data(image.board)})
    return f"{marker}\r\n"


#: Longer lines go quoted-printable or base64 whatever their characters: SMTP allows 998 octets a line.
_LONGEST_7BIT_LINE = 900


def _longest_line(text: str) -> int:
    return max(map(len, text.splitlines()), default=0)


def _seven_bit_part(text: str, subtype: str) -> _Part:
    return _Part([("Content-Type", f'text/{subtype}; charset="us-ascii"'), ("MIME-Version", "1.0"),
                  ("Content-Transfer-Encoding", "7bit")], text)


def _text_part(text: str, subtype: str) -> _Part:
    if not text.isascii():  # an ASCII text holds no surrogate: no regex pass over it (isascii is a flag's read)
        text = _SURROGATE.sub("\ufffd", text)
    if text.isascii() and _longest_line(text) <= _LONGEST_7BIT_LINE:
        return _seven_bit_part(text, subtype)
    charset = Charset("utf-8")
    # Plain text in quoted-printable stays readable in the raw mail; the HTML part is for clients
    # only, and base64 costs a third of what quoted-printable does to encode.
    charset.body_encoding = QP if subtype == "plain" else BASE64
    encoded = MIMEText(text, subtype, charset)  # type: ignore[arg-type]
    return _Part(list(encoded.items()), str(encoded.get_payload()))


def _html_part(html: str) -> _Part:
    """The HTML as 7-bit text when it can be (characters beyond ASCII as character references, no line
    near SMTP's 998-octet limit): no transfer encoding to compute, and any client reads it."""
    ascii_html = html if html.isascii() else \
        _SURROGATE.sub("\ufffd", html).encode("ascii", "xmlcharrefreplace").decode("ascii")
    # The ASCII text's lines measured once: _text_part would look at both again.
    return _seven_bit_part(ascii_html, "html") if _longest_line(ascii_html) <= _LONGEST_7BIT_LINE \
        else _text_part(html, "html")


def _body(mail: Outgoing, later: list[dict[str, object]]) -> _Part:
    """The body parts: plain text alone, or text and HTML as alternatives, with pictures and attachments.

    multipart/mixed [ multipart/alternative [ text/plain, multipart/related [ text/html, image/png ... ] ],
    attachments ... ]: each level only where it has something to hold, as Gmail, Outlook and Apple
    Mail expect it (the plain part first: the last alternative is the preferred one).
    """
    message = _text_part(mail.body, "plain")
    if not mail.html and not mail.attachments:
        return message  # no boundary to choose (a reply: half the mails)
    boundary = _boundary(mail)
    if mail.html:
        html = _html_part(mail.html)
        if mail.images:
            pictures = [_base64_part(f"image/{image.subtype}", _image_lines(image, f"{boundary}.picture.{number}",
                                                                            later), [
                ("Content-ID", f"<{image.cid}>"),
                ("Content-Disposition", f'inline; filename="{image.filename}"')])
                for number, image in enumerate(mail.images)]
            html = _multipart("related", f"{boundary}.r", [html, *pictures])
        message = _multipart("alternative", f"{boundary}.a", [message, html])
    if mail.attachments:
        files = [_base64_part(f"{item.maintype}/{item.subtype}", base64_lines(item.data), [
            ("Content-Disposition", f'attachment; filename="{item.filename}"')]) for item in mail.attachments]
        message = _multipart("mixed", f"{boundary}.m", [message, *files])
    return message


def _header_line(name: str, value: str) -> str:
    """One header as policy.SMTP writes it: ours folded already; a short ASCII line as it is; the rest
    (a long file name, say) folded by the policy itself."""
    if isinstance(value, _Folded):
        return value.fold(policy=SMTP)
    if value.isascii() and "\n" not in value and len(name) + 2 + len(value) <= _FOLD:
        return f"{name}: {value}".rstrip() + "\r\n"
    return SMTP.fold_binary(name, value).decode("ascii", "surrogateescape")


def _write(part: _Part, out: list[str], more_headers: Iterable[tuple[str, str]] = ()) -> None:
    """``part`` as the SMTP policy's generator writes it: headers, a blank line, the body with CRLF line
    ends; a multipart's parts each after its delimiter, then the closing delimiter."""
    for name, value in (*part.headers, *more_headers):
        out.append(_header_line(name, value))
    out.append("\r\n")
    if part.parts is None:
        payload = part.payload
        if not part.crlf:  # str.replace passes cost a third of one regex substitution; most texts have no CR
            if "\r" in payload:
                payload = payload.replace("\r\n", "\n").replace("\r", "\n")
            payload = payload.replace("\n", "\r\n")
        out.append(payload)
        return
    for number, inner in enumerate(part.parts):
        out.append(f"--{part.boundary}\r\n" if number == 0 else f"\r\n--{part.boundary}\r\n")
        _write(inner, out)
    out.append(f"\r\n--{part.boundary}--\r\n")


def _boundary(mail: Outgoing) -> str:
    """A boundary stem no part contains, chosen before the mail is written.

    Base64 and quoted-printable text cannot contain '=_'; the 7-bit parts are checked.
    """
    while True:
        stem = f"=_{secrets.token_hex(12)}"  # 96 random bits; short enough for Content-Type to fit a line
        if not any(stem in text for text in (mail.body, mail.html)):
            return stem


def _without_once(text: str, passages: Iterable[str]) -> str:
    """``text`` with one copy of each passage taken out, a line break in its place (so that no string
    forms across the gap); a blank in a passage matches any run of blanks and line breaks, since a
    record wraps its comments wherever the line is full."""
    for passage in passages:
        words = passage.split()
        if words:
            text = re.sub(r"\s+".join(map(re.escape, words)), "\n", text, count=1)
    return text


def scan_for_secrets(mail: Outgoing, forbidden: Iterable[str]) -> None:
    """Raise when the mail's text (headers and body, before any transfer encoding) holds a forbidden string."""
    needles = [needle.lower() for needle in forbidden if needle]
    if not needles:
        return
    # Each player's passage once per part: a second copy would be the server's text.
    body = _without_once(mail.body, mail.own_words)
    html = _without_once(mail.html, [escape(words) for words in mail.own_words])
    texts = [mail.to, mail.subject, mail.reply_to, mail.in_reply_to, *mail.references, body, html]
    texts.extend(image.filename for image in mail.images)
    texts.extend(item.filename for item in mail.attachments)
    texts.extend(_without_once(item.data.decode("utf-8", "replace"), item.own_words)
                 for item in mail.attachments if item.maintype != "image")
    haystack = "\n".join(texts).lower()
    for needle in needles:
        if needle in haystack:
            raise SecretLeakError(f"mail to {mail.to} would reveal a secret; not sent")

