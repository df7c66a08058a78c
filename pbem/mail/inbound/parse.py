"""Raw bytes to an InboundMail: sender, threading headers, automatic-mail verdict, body and command lines."""

from __future__ import annotations

import email
import re
from collections.abc import Callable
from dataclasses import dataclass
from email.message import EmailMessage, Message

from pbem.mail.inbound.automatic import automatic_reason_from, null_sender_reason
from pbem.mail.inbound.headers import (
    MSGID_TOKEN,
    PLAIN_HEADER_BLOCK,
    decode_header,
    first,
    parse_from,
    raw_headers,
    strip_envelope,
    trim_references,
    valid_address,
)
from pbem.mail.inbound.limits import POLICY, bound_parts
from pbem.mail.inbound.mime import content_type_of, read_body
from pbem.mail.inbound.quotes import extract_commands
from pbem.mail.inbound.sanitise import clean, sanitise_text

__all__ = ["InboundMail", "message_of", "parse_mail"]


@dataclass(frozen=True)
class InboundMail:
    """What the worker needs from one received mail; every field but ``body`` is free of line breaks."""

    message_id: str
    sender: str
    sender_name: str
    subject: str
    in_reply_to: str
    references: tuple[str, ...]
    automatic: str | None
    body: str
    commands: tuple[str, ...]
    problems: tuple[str, ...]


def parse_mail(raw: bytes, envelope_sender: str | None = None,
               is_command: Callable[[str], bool] | None = None) -> InboundMail:
    """Read one mail as received; never raises, whatever the bytes.

    ``envelope_sender`` is the SMTP ``MAIL FROM`` address: ``""`` (or ``"<>"``) is the null
    sender of bounces and auto-replies, ``None`` means unknown. ``is_command`` tells command
    lines from prose, so that a reply written below the quote is found (see ``extract_commands``).
    """
    data = _as_bytes(raw)
    try:
        return _parse(data, envelope_sender, is_command)
    except Exception:  # the last line of defence: a worker must never die on a mail
        try:
            return _salvage(data, envelope_sender, is_command)
        except Exception:
            return InboundMail("", "", "", "", "", (), null_sender_reason(envelope_sender), "", (),
                               ("the mail could not be read at all",))


def _as_bytes(raw: object) -> bytes:
    # Typed as bytes, but a caller handing over a str or a memoryview must not crash the worker.
    if isinstance(raw, bytes):
        return raw
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape")
    if isinstance(raw, bytearray | memoryview):
        return bytes(raw)
    return b""


def _parse(raw: bytes, envelope_sender: str | None, is_command: Callable[[str], bool] | None) -> InboundMail:
    problems: list[str] = []
    msg, content_type = _message_and_type(bound_parts(raw, problems))
    # The mail's own content type, read once: the MIME walk and the automatic-mail check both ask for it, and
    # each reading goes through the email package's header look-up and parameter split.
    content_type = content_type or content_type_of(msg)
    headers = raw_headers(msg)
    sender_name, from_addr = parse_from(first(headers, "from"))
    sender = valid_address(from_addr) or valid_address(strip_envelope(envelope_sender))
    body = read_body(msg, problems, content_type)
    ids = MSGID_TOKEN.findall(clean(first(headers, "references") or ""))
    in_reply_to = clean(first(headers, "in-reply-to") or "")
    first_id = MSGID_TOKEN.search(in_reply_to)
    return InboundMail(
        message_id=clean(first(headers, "message-id") or ""),
        sender=sender,
        sender_name=sender_name,
        subject=decode_header(first(headers, "subject") or ""),
        # In-Reply-To often carries a comment ("<id> (Bob's message of ...)"): keep the id itself.
        in_reply_to=first_id.group(0) if first_id else in_reply_to,
        references=trim_references(ids),
        automatic=automatic_reason_from(msg, headers, envelope_sender, from_addr, content_type),
        body=body,
        commands=tuple(extract_commands(body, is_command)),
        problems=tuple(dict.fromkeys(problems)),
    )


#: One field of a plain header block: its line, and the folded lines that continue it.
_FIELD = re.compile(r"[^\t ][^\n]*\n(?:[\t ][^\n]*\n)*")


def message_of(raw: bytes) -> Message:
    """``raw`` as the email package's parser reads it (``POLICY``).

    A plain header block (PLAIN_HEADER_BLOCK) over a body of one part, as most clients send a reply, is
    read here instead: each field as the parser's feed hands it to ``POLICY`` (``header_source_parse``,
    ``set_raw``) and the body as the payload, which is what the parser makes of such a mail, at a third
    of its cost (the feed goes line by line, the body's too). A multipart or message/* body, or any other
    header block, is parsed by the email package (tests/mail/test_message_of.py compares the two).
    """
    return _message_and_type(raw)[0]


def _message_and_type(raw: bytes) -> tuple[Message, str]:
    """:func:`message_of`, and the message's content type where that reading found it ("" where it did not)."""
    block = PLAIN_HEADER_BLOCK.match(raw)
    if block is None:
        return email.message_from_bytes(raw, policy=POLICY), ""
    msg = EmailMessage(policy=POLICY)
    for field in _FIELD.findall(block.group(1).decode("ascii")):
        msg.set_raw(*POLICY.header_source_parse(field.splitlines(keepends=True)))
    content_type = msg.get_content_type()
    if content_type.split("/")[0] in ("multipart", "message"):  # get_content_maintype, without reading it again
        return email.message_from_bytes(raw, policy=POLICY), ""
    msg.set_payload(raw[block.end():].decode("ascii", "surrogateescape"))
    return msg, content_type


def _salvage(raw: bytes, envelope_sender: str | None, is_command: Callable[[str], bool] | None) -> InboundMail:
    """Used only if the email package itself failed: read whatever follows the first blank line."""
    text = sanitise_text(raw.decode("utf-8", "replace"))
    _, _, body = text.partition("\n\n")
    return InboundMail(
        message_id="",
        sender=valid_address(strip_envelope(envelope_sender)),
        sender_name="",
        subject="",
        in_reply_to="",
        references=(),
        automatic=null_sender_reason(envelope_sender),
        body=body,
        commands=tuple(extract_commands(body, is_command)),
        problems=("the mail could not be parsed; its text was read as it came",),
    )
