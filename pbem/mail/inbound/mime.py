"""The MIME walk: the sender's own text part (or HTML part) found, decoded and made readable."""

from __future__ import annotations

import email
import re
from dataclasses import dataclass
from email.message import Message

from pbem.mail.inbound.charsets import ASCII_NAMES, decode_bytes
from pbem.mail.inbound.flowed import unflow
from pbem.mail.inbound.html_text import html_to_text
from pbem.mail.inbound.limits import POLICY
from pbem.mail.inbound.sanitise import clean, sanitise_text

__all__ = ["content_type_of", "read_body"]

_MAX_DEPTH = 20  # MIME nesting deeper than any client writes; bounds the walk on hostile mail
_MAX_RECOVERIES = 3
_BOUNDARY_LINE = re.compile(r"^--([0-9A-Za-z'()+_,\-./:=?]{1,70})[ \t]*\r?$", re.MULTILINE)


@dataclass(frozen=True)
class _TextPart:
    content_type: str
    payload: bytes
    charset: str | None
    flowed: bool = False
    delsp: bool = False
    problem: str | None = None


def read_body(msg: Message, problems: list[str], content_type: str = "") -> str:
    """The sender's text: the first text/plain part, else the first HTML part as text; notes what went wrong.
    ``content_type``: ``msg``'s (content_type_of), when the caller has read it already."""
    plain, markup = _pick_parts(msg, problems, content_type)
    if plain is not None:
        text = _part_text(plain, problems)
        if text.strip() or markup is None:
            return text
        problems.append("the text part was empty; read the HTML part")
    elif markup is not None:
        problems.append("the mail had no text part; read the HTML part")
    if markup is not None:
        # Character references can spell controls (&#13;) the markup itself could not carry.
        return sanitise_text(html_to_text(_part_text(markup, problems)))
    problems.append("the mail had no readable text part")
    return ""


def content_type_of(part: Message) -> str:
    """The part's content type; text/plain (the RFC 2045 default) when the header cannot be read."""
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _pick_parts(msg: Message, problems: list[str],
                content_type: str = "") -> tuple[_TextPart | None, _TextPart | None]:
    """The first text/plain and the first text/html part that are not attachments (``content_type``: ``msg``'s,
    if known)."""
    plain: _TextPart | None = None
    markup: _TextPart | None = None
    recoveries = 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack and (plain is None or markup is None):
        part, depth = stack.pop()
        ctype = content_type if part is msg and content_type else content_type_of(part)
        if ctype.startswith("message/") and depth > 0:
            continue  # a forwarded or bounced mail inside this one: its text is not our sender's
        if part.is_multipart():
            children = part.get_payload()
            if depth < _MAX_DEPTH and isinstance(children, list):
                stack.extend((child, depth + 1) for child in reversed(children) if isinstance(child, Message))
            continue
        if ctype.startswith("multipart/"):
            # Declared multipart, but the parser found no parts: the boundary is missing or wrong.
            recovered = _recover_multipart(part, ctype) if recoveries < _MAX_RECOVERIES else None
            recoveries += 1
            if recovered is not None:
                problems.append("the mail's MIME structure was broken (multipart boundary missing or wrong); "
                                "its parts were read anyway")
                stack.append((recovered, depth + 1))
            else:
                problems.append("the mail's MIME structure was broken; its text was read as it came")
                if plain is None:
                    plain = _TextPart("text/plain", _payload_bytes(part), None)
            continue
        if _is_attachment(part):
            continue
        if ctype == "text/plain" and plain is None:
            plain = _text_part(part, ctype)
        elif ctype == "text/html" and markup is None:
            markup = _text_part(part, ctype)
    return plain, markup


def _is_attachment(part: Message) -> bool:
    try:
        return part.get_content_disposition() == "attachment"
    except Exception:
        return False


def _payload_bytes(part: Message) -> bytes:
    """The part's raw (not transfer-decoded) payload as bytes."""
    try:
        payload = part.get_payload()
    except Exception:
        return b""
    if isinstance(payload, bytes):
        return payload
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogateescape")
    return b""


def _text_part(part: Message, ctype: str) -> _TextPart:
    params = _params(part)
    charset = _param(params, "charset")
    problem = None
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        payload = None
    if not isinstance(payload, bytes):
        payload = _payload_bytes(part)
    elif _transfer_encoding(part) == "base64":
        raw = _payload_bytes(part)
        if _not_base64(raw, payload, charset):
            # The stdlib glues the lines of a broken base64 body together ("games" + "draw"
            # became "gamesdraw"); a text part that is no base64 is read as it came.
            payload = raw
            problem = "the text was declared base64 but is not; it was read as it came"
    return _TextPart(ctype, payload, charset, _param(params, "format") == "flowed",
                     _param(params, "delsp") == "yes", problem)


def _transfer_encoding(part: Message) -> str:
    try:
        value = part.get("content-transfer-encoding")
    except Exception:
        return ""
    return clean(str(value or "")).lower()


_BASE64_TEXT = re.compile(rb"[A-Za-z0-9+/=\s]*")


def _not_base64(raw: bytes, decoded: bytes, charset: str | None) -> bool:
    """Whether a part declared base64 is plainly text instead: characters base64 has not,
    or a length no base64 has, or bytes that are no text while the part itself is ASCII text."""
    if not raw.strip():
        return False
    if not _BASE64_TEXT.fullmatch(raw):
        return True
    if len(re.sub(rb"[\s=]", b"", raw)) % 4 == 1:
        return True
    if not raw.isascii():
        return False
    try:
        decoded.decode(charset if charset and charset not in ASCII_NAMES else "utf-8")
    except (LookupError, UnicodeDecodeError, ValueError, TypeError):
        # Encoders write lines of one length (76); a person's lines differ.
        lines = raw.split()
        if len(lines) == 1:
            return len(lines[0]) < 16
        return (len({len(line) for line in lines[:-1]}) > 1 or len(lines[0]) % 4 != 0
                or len(lines[-1]) > len(lines[0]))
    return False


def _params(part: Message) -> dict[str, object] | None:
    """The Content-Type's parameters by lowercased name, the first of each, as ``get_param`` reads them: the
    header parsed once for all the names asked (each ``get_param`` parses it again); None when unreadable."""
    try:
        found = part.get_params()
    except Exception:
        return None
    params: dict[str, object] = {}
    for name, value in found or ():
        params.setdefault(name.lower(), value)
    return params


def _param(params: dict[str, object] | None, name: str) -> str | None:
    value = params.get(name) if params is not None else None
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = value[2]
    if not isinstance(value, str):
        return None
    return clean(value).strip("\"'").lower() or None


def _recover_multipart(part: Message, ctype: str) -> Message | None:
    """Re-parse a multipart whose boundary parameter is missing or wrong, using the boundary
    its body actually uses; None when the body shows no usable boundary."""
    payload = _payload_bytes(part).decode("ascii", "surrogateescape")
    match = _BOUNDARY_LINE.search(payload)
    if match is None:
        return None
    boundary = match.group(1)
    # A lone dashed line (a quoted "-----Original Message-----") is no boundary: it must recur.
    if payload.count("--" + boundary) < 2:
        return None
    head = f'Content-Type: {ctype}; boundary="{boundary}"\r\n\r\n'.encode("ascii")
    try:
        recovered = email.message_from_bytes(head + payload.encode("ascii", "surrogateescape"),
                                             policy=POLICY)
    except Exception:
        return None
    return recovered if recovered.is_multipart() else None


def _part_text(part: _TextPart, problems: list[str]) -> str:
    if part.problem:
        problems.append(part.problem)
    text = sanitise_text(decode_bytes(part.payload, part.charset, problems))
    if part.flowed and part.content_type == "text/plain":
        text = unflow(text, part.delsp)
    return text
