"""Inbound mail parsing: raw bytes to sender, threading headers, automatic-mail verdict and command lines."""

from __future__ import annotations

import base64
import binascii
import codecs
import email
import email.utils
import html
import re
from dataclasses import dataclass
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import Message

__all__ = ["InboundMail", "automatic_reason", "extract_commands", "html_to_text", "parse_mail"]


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


# --------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------


def parse_mail(raw: bytes, envelope_sender: str | None = None) -> InboundMail:
    """Read one mail as received; never raises, whatever the bytes.

    ``envelope_sender`` is the SMTP ``MAIL FROM`` address: ``""`` (or ``"<>"``) is the null
    sender of bounces and auto-replies, ``None`` means unknown.
    """
    data = _as_bytes(raw)
    try:
        return _parse(data, envelope_sender)
    except Exception:  # the last line of defence: a worker must never die on a mail
        try:
            return _salvage(data, envelope_sender)
        except Exception:
            return InboundMail("", "", "", "", "", (), _null_sender_reason(envelope_sender), "", (),
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


# The stdlib's parsing time, measured on Python 3.11.7, must be bounded for mail from anybody:
# its structured-header parser is super-linear (8 KB of '"' in a Content-Type: 1.7 s; 200 KB in
# a From: minutes), and it spends ~50 us per MIME part (1 MiB of empty parts: 6 s). Values it
# parses are cut to _MAX_PARSED_HEADER characters, and the parts to _MAX_PART_LINES.
_MAX_PARSED_HEADER = 256
_MAX_PART_LINES = 100
_MAX_FROM = 4096  # no person's From is longer; such a value is not read at all
_DASH_LINE = re.compile(rb"^--", re.MULTILINE)


class _BoundedHeaderRegistry(HeaderRegistry):
    """policy.default's header factory, on values cut short enough to parse quickly. Only the
    MIME structure headers are read through it, and what they need (type, charset, boundary,
    disposition) comes first; From never reaches it when long (see _parse_from)."""

    def __call__(self, name: str, value: str) -> BaseHeader:
        return super().__call__(name, value[:_MAX_PARSED_HEADER])


_POLICY = policy.default.clone(header_factory=_BoundedHeaderRegistry())


def _bound_parts(raw: bytes, problems: list[str]) -> bytes:
    """Cut the mail after its first _MAX_PART_LINES lines starting with '--' (every MIME part
    starts with one); the commands are at the top of the first text part, far before."""
    for count, match in enumerate(_DASH_LINE.finditer(raw), start=1):
        if count > _MAX_PART_LINES:
            problems.append("the mail had too many parts or '--' lines; only its beginning was read")
            return raw[:match.start()]
    return raw


def _parse(raw: bytes, envelope_sender: str | None) -> InboundMail:
    problems: list[str] = []
    msg = email.message_from_bytes(_bound_parts(raw, problems), policy=_POLICY)
    headers = _raw_headers(msg)
    sender_name, from_addr = _parse_from(_first(headers, "from"))
    sender = _valid_address(from_addr) or _valid_address(_strip_envelope(envelope_sender))
    body = _read_body(msg, problems)
    ids = _MSGID_TOKEN.findall(_clean(_first(headers, "references") or ""))
    in_reply_to = _clean(_first(headers, "in-reply-to") or "")
    first_id = _MSGID_TOKEN.search(in_reply_to)
    return InboundMail(
        message_id=_clean(_first(headers, "message-id") or ""),
        sender=sender,
        sender_name=sender_name,
        subject=_decode_header(_first(headers, "subject") or ""),
        # In-Reply-To often carries a comment ("<id> (Bob's message of ...)"): keep the id itself.
        in_reply_to=first_id.group(0) if first_id else in_reply_to,
        references=_trim_references(ids),
        automatic=_automatic_reason(msg, headers, envelope_sender, from_addr),
        body=body,
        commands=tuple(extract_commands(body)),
        problems=tuple(dict.fromkeys(problems)),
    )


def _salvage(raw: bytes, envelope_sender: str | None) -> InboundMail:
    """Used only if the email package itself failed: read whatever follows the first blank line."""
    text = _sanitise_text(raw.decode("utf-8", "replace"))
    _, _, body = text.partition("\n\n")
    return InboundMail(
        message_id="",
        sender=_valid_address(_strip_envelope(envelope_sender)),
        sender_name="",
        subject="",
        in_reply_to="",
        references=(),
        automatic=_null_sender_reason(envelope_sender),
        body=body,
        commands=tuple(extract_commands(body)),
        problems=("the mail could not be parsed; its text was read as it came",),
    )


# --------------------------------------------------------------------------------------------
# Headers
# --------------------------------------------------------------------------------------------

# C0/C1 controls and the Unicode line separators: whatever a header decodes to, none of these
# may reach a reply's headers or a template (header injection, split lines).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Lone surrogates (a UTF-7 part can decode to them) would make encoding a reply raise.
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_ENCODED_WORD = re.compile(r"=\?([^?\s]{1,75})\?([bBqQ])\?([^?\s]*)\?=")
_MSGID_TOKEN = re.compile(r"<[^<>\s]+>")
_MAX_REFERENCES = 30
# No controls either: the envelope sender reaches here unfiltered, and an address becomes a
# reply's recipient and the account's key.
_ADDRESS_CHAR = r"[^\s\x00-\x1f\x7f-\x9f@<>()\[\],;:\"\\]"
_ADDRESS = re.compile(rf"({_ADDRESS_CHAR}{{1,64}})@({_ADDRESS_CHAR}{{1,255}})")
#: One label of a host name in its ASCII form: letters, digits, inner hyphens (RFC 1123).
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")
_NULL_SENDERS = frozenset({"", "<>"})


def _raw_headers(msg: Message) -> dict[str, list[str]]:
    """Header name (lowercased) -> raw values in order, read without the policy's header parsers.

    The parsers of ``policy.default`` raise on some inputs (an encoded word that decodes to
    CR/LF in a display name raises ValueError) and truncate others (``Message-ID: <a b>``
    becomes ``<a``), so headers are decoded here from their raw text.
    """
    headers: dict[str, list[str]] = {}
    try:
        items = list(msg.raw_items())
    except Exception:
        return headers
    for name, value in items:
        if isinstance(name, str) and isinstance(value, str):
            headers.setdefault(name.strip().lower(), []).append(value)
    return headers


def _first(headers: dict[str, list[str]], name: str) -> str | None:
    values = headers.get(name)
    return _fix_surrogates(values[0]) if values else None


def _fix_surrogates(value: str) -> str:
    """Turn the parser's surrogate-escaped 8-bit bytes back into text (UTF-8, else Windows-1252)."""
    if not any("\udc80" <= ch <= "\udcff" for ch in value):
        return value
    data = value.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def _clean(value: str) -> str:
    """One line of text: controls and line breaks become spaces, runs of whitespace one space."""
    return " ".join(_CONTROL.sub(" ", _SURROGATE.sub("\ufffd", value)).split())


def _decode_header(value: str) -> str:
    """RFC 2047 encoded words decoded, then cleaned to one safe line."""
    return _clean(_decode_words(value))


def _decode_words(value: str) -> str:
    parts: list[str] = []
    pos = 0
    previous_was_word = False
    for match in _ENCODED_WORD.finditer(value):
        gap = value[pos:match.start()]
        # Whitespace between two adjacent encoded words is not part of the text (RFC 2047 6.2).
        if not (previous_was_word and not gap.strip()):
            parts.append(gap)
        parts.append(_decode_word(match))
        previous_was_word = True
        pos = match.end()
    parts.append(value[pos:])
    return "".join(parts)


def _decode_word(match: re.Match[str]) -> str:
    charset, encoding, text = match.group(1), match.group(2).upper(), match.group(3)
    charset = charset.split("*", 1)[0]  # RFC 2231 language suffix: utf-8*en
    try:
        if encoding == "B":
            data = base64.b64decode(text + "=" * (-len(text) % 4))
        else:
            data = binascii.a2b_qp(text.encode("ascii", "replace"), header=True)
    except (binascii.Error, ValueError):
        return match.group(0)
    return _decode_bytes(data, charset, [])


def _reencode_word(match: re.Match[str]) -> str:
    """An encoded word decoded, cleaned of controls and encoded again as harmless base64."""
    text = _clean(_decode_word(match))
    return "=?utf-8?b?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


def _parse_from(raw: str | None) -> tuple[str, str]:
    """(display name, addr-spec as written) of the first From address; empty strings if none."""
    if raw is None or len(raw) > _MAX_FROM:
        return "", ""
    # Encoded words are re-encoded clean first, so a name decoding to "Bob\r\nBcc: ..." neither
    # crashes the address parser nor injects anything.
    safe = _CONTROL.sub(" ", _ENCODED_WORD.sub(_reencode_word, raw))
    # The strict parser is super-linear, and cutting the value could turn bob@example.community
    # into another valid address: long values go to the lenient, linear one.
    if len(safe) <= _MAX_PARSED_HEADER:
        try:
            addresses = policy.default.header_factory("from", safe).addresses
            if addresses:
                return _clean(addresses[0].display_name), addresses[0].addr_spec.strip()
        except Exception:  # the strict parser refused it; the lenient one may not
            pass
    try:
        name, addr = email.utils.parseaddr(safe)
    except Exception:
        return "", ""
    return _decode_header(name), addr.strip()


def _valid_address(addr: str) -> str:
    """The address lowercased if it is a plain local@domain, else "" (never a half-parsed string)."""
    match = _ADDRESS.fullmatch(addr)
    return addr.lower() if match and _valid_domain(match.group(2)) else ""


def _valid_domain(domain: str) -> bool:
    """A host name we can send to: ASCII labels, or an internationalised name that IDNA encodes.

    Anything else (``example.com?=`` from a mangled encoded word, a lone accent) is no address
    to answer: the reply goes to the envelope sender instead, or nowhere.
    """
    try:
        ascii_name = domain if domain.isascii() else domain.encode("idna").decode("ascii")
    except UnicodeError:
        return False
    return len(ascii_name) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in ascii_name.split("."))


def _strip_envelope(envelope_sender: str | None) -> str:
    return (envelope_sender or "").strip().strip("<>").strip()


def _trim_references(ids: list[str]) -> tuple[str, ...]:
    # A long thread (or a hostile header) must not grow our replies' headers without bound;
    # keep the thread root and the most recent ids, as RFC 5322 3.6.4 suggests.
    if len(ids) > _MAX_REFERENCES:
        ids = [ids[0], *ids[-(_MAX_REFERENCES - 1):]]
    return tuple(ids)


# --------------------------------------------------------------------------------------------
# Automatic mail
# --------------------------------------------------------------------------------------------

_AUTOREPLY_HEADERS = ("x-autoreply", "x-autorespond", "x-autoreply-from", "x-mail-autoreply")
_COMMENT = re.compile(r"\([^()]*\)")
_SUPPRESS_TOKENS = frozenset({"all", "oof", "autoreply"})
_BULK_PRECEDENCE = frozenset({"bulk", "junk", "list", "auto_reply", "auto-reply"})
_DAEMON_LOCAL_PARTS = frozenset({
    "mailer-daemon", "mailer_daemon", "maildaemon", "mail-daemon", "postmaster",
    "noreply", "no-reply", "no_reply", "donotreply", "do-not-reply", "do_not_reply",
})


def automatic_reason(msg: Message, envelope_sender: str | None = None) -> str | None:
    """Why this mail is automatic and must never be answered, or None for a person's mail."""
    try:
        headers = _raw_headers(msg)
        return _automatic_reason(msg, headers, envelope_sender, _parse_from(_first(headers, "from"))[1])
    except Exception:
        return _null_sender_reason(envelope_sender)


def _null_sender_reason(envelope_sender: str | None) -> str | None:
    if envelope_sender is not None and envelope_sender.strip() in _NULL_SENDERS:
        return "null envelope sender (a bounce or an auto-reply)"
    return None


def _automatic_reason(
    msg: Message, headers: dict[str, list[str]], envelope_sender: str | None, from_addr: str
) -> str | None:
    reason = _null_sender_reason(envelope_sender)
    if reason:
        return reason

    def value(name: str) -> str | None:
        raw = _first(headers, name)
        return None if raw is None else _clean(raw)

    return_path = value("return-path")
    if return_path is not None and return_path.replace(" ", "") == "<>":
        return "Return-Path: <> (null sender)"
    auto_submitted = value("auto-submitted")
    if auto_submitted is not None:
        # RFC 3834 allows comments around the keyword: "no (sent by a person)" is "no".
        token = _COMMENT.sub(" ", auto_submitted).split(";", 1)[0].strip().lower()
        if token != "no":
            return f"Auto-Submitted: {token or '(empty)'}"
    for name in _AUTOREPLY_HEADERS:
        if name in headers:
            return f"{_HEADER_TITLES.get(name, name)} header (an auto-reply)"
    suppress = value("x-auto-response-suppress")
    if suppress is not None:
        tokens = {token.lower() for token in re.split(r"[\s,;]+", suppress) if token}
        if tokens & _SUPPRESS_TOKENS:
            return f"X-Auto-Response-Suppress: {suppress[:80]}"
    precedence = value("precedence")
    if precedence is not None and precedence.strip().lower() in _BULK_PRECEDENCE:
        return f"Precedence: {precedence.strip().lower()}"
    for name in ("list-id", "list-unsubscribe"):
        if name in headers:
            return f"{_HEADER_TITLES[name]} header (mailing-list mail)"
    if _content_type(msg) == "multipart/report":
        return "delivery or disposition report (multipart/report)"
    if "x-failed-recipients" in headers:
        return "X-Failed-Recipients header (a bounce)"
    for addr in (from_addr, _strip_envelope(envelope_sender)):
        local = addr.rpartition("@")[0] if "@" in addr else addr
        if local.strip('"').lower() in _DAEMON_LOCAL_PARTS:
            return f"sent by a mail-system address ({_clean(addr)[:80]})"
    return None


_HEADER_TITLES = {
    "x-autoreply": "X-Autoreply",
    "x-autorespond": "X-Autorespond",
    "x-autoreply-from": "X-Autoreply-From",
    "x-mail-autoreply": "X-Mail-Autoreply",
    "list-id": "List-Id",
    "list-unsubscribe": "List-Unsubscribe",
}


# --------------------------------------------------------------------------------------------
# Body
# --------------------------------------------------------------------------------------------

_MAX_DEPTH = 20  # MIME nesting deeper than any client writes; bounds the walk on hostile mail
_MAX_RECOVERIES = 3
_BOUNDARY_LINE = re.compile(r"^--([0-9A-Za-z'()+_,\-./:=?]{1,70})[ \t]*\r?$", re.MULTILINE)
_ASCII_NAMES = frozenset({"us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "us", "646"})
# Codecs Python knows that are no mail charset, are slow (punycode is quadratic) or decode
# escape sequences: treated as unknown.
_REFUSED_CODECS = frozenset({"punycode", "idna", "raw-unicode-escape", "unicode-escape", "undefined"})


@dataclass(frozen=True)
class _TextPart:
    content_type: str
    payload: bytes
    charset: str | None
    flowed: bool = False
    delsp: bool = False
    problem: str | None = None


def _read_body(msg: Message, problems: list[str]) -> str:
    plain, markup = _pick_parts(msg, problems)
    if plain is not None:
        text = _part_text(plain, problems)
        if text.strip() or markup is None:
            return text
        problems.append("the text part was empty; read the HTML part")
    elif markup is not None:
        problems.append("the mail had no text part; read the HTML part")
    if markup is not None:
        # Character references can spell controls (&#13;) the markup itself could not carry.
        return _sanitise_text(html_to_text(_part_text(markup, problems)))
    problems.append("the mail had no readable text part")
    return ""


def _content_type(part: Message) -> str:
    try:
        return part.get_content_type()
    except Exception:
        return "text/plain"


def _pick_parts(msg: Message, problems: list[str]) -> tuple[_TextPart | None, _TextPart | None]:
    """The first text/plain and the first text/html part that are not attachments."""
    plain: _TextPart | None = None
    markup: _TextPart | None = None
    recoveries = 0
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack and (plain is None or markup is None):
        part, depth = stack.pop()
        ctype = _content_type(part)
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
    charset = _param(part, "charset")
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
    return _TextPart(ctype, payload, charset, _param(part, "format") == "flowed",
                     _param(part, "delsp") == "yes", problem)


def _transfer_encoding(part: Message) -> str:
    try:
        value = part.get("content-transfer-encoding")
    except Exception:
        return ""
    return _clean(str(value or "")).lower()


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
        decoded.decode(charset if charset and charset not in _ASCII_NAMES else "utf-8")
    except (LookupError, UnicodeDecodeError, ValueError, TypeError):
        # Encoders write lines of one length (76); a person's lines differ.
        lines = raw.split()
        if len(lines) == 1:
            return len(lines[0]) < 16
        return (len({len(line) for line in lines[:-1]}) > 1 or len(lines[0]) % 4 != 0
                or len(lines[-1]) > len(lines[0]))
    return False


def _param(part: Message, name: str) -> str | None:
    try:
        value = part.get_param(name)
    except Exception:
        return None
    if isinstance(value, tuple):  # RFC 2231 (charset, language, value)
        value = value[2]
    if not isinstance(value, str):
        return None
    return _clean(value).strip("\"'").lower() or None


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
                                             policy=_POLICY)
    except Exception:
        return None
    return recovered if recovered.is_multipart() else None


def _part_text(part: _TextPart, problems: list[str]) -> str:
    if part.problem:
        problems.append(part.problem)
    text = _sanitise_text(_decode_bytes(part.payload, part.charset, problems))
    if part.flowed and part.content_type == "text/plain":
        text = _unflow(text, part.delsp)
    return text


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Controls other than tab and newline: PostgreSQL refuses NUL in text, and the other line
# separators str.splitlines() knows (VT, FF, FS, GS, RS, NEL, U+2028/9) become plain newlines.
_BODY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f]")
_BODY_BREAK = re.compile(r"[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _sanitise_text(text: str) -> str:
    text = _normalise_newlines(text)
    text = _BODY_BREAK.sub("\n", _BODY_CONTROL.sub("", _SURROGATE.sub("\ufffd", text)))
    return text[1:] if text.startswith("\ufeff") else text


def _decode_bytes(data: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode with the declared charset; unknown or wrong charsets fall back and say so."""
    name = _clean(charset or "").strip("\"'").lower()
    shown = name[:40]
    if not name or name in _ASCII_NAMES:
        # Undeclared or ASCII: UTF-8 is a superset and the commonest mislabelling.
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            declared = f"declared {shown}" if name else "without a declared charset"
            problems.append(f"the text was {declared} but is not UTF-8; decoded as Windows-1252")
            return data.decode("cp1252", "replace")
    try:
        info = codecs.lookup(name)
        known = getattr(info, "_is_text_encoding", True) and info.name not in _REFUSED_CODECS
    except (LookupError, ValueError, TypeError):
        known = False
    if not known:
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            problems.append(f"unknown charset {shown!r} and the text is not UTF-8; decoded as Windows-1252")
            return data.decode("cp1252", "replace")
        problems.append(f"unknown charset {shown!r}; decoded as UTF-8")
        return text
    try:
        return data.decode(info.name)
    except Exception:
        pass
    problems.append(f"the text is not valid {shown}; undecodable bytes were replaced")
    try:
        return data.decode(info.name, "replace")
    except Exception:
        return data.decode("utf-8", "replace")


def _unflow(text: str, delsp: bool) -> str:
    """Undo format=flowed (RFC 3676): join soft-broken lines, remove space-stuffing."""
    out: list[str] = []
    pieces: list[str] = []
    current_depth = 0

    def flush() -> None:
        if pieces:
            joined = "".join(pieces)
            out.append(">" * current_depth + " " + joined if current_depth else joined)
            pieces.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        soft = content.endswith(" ") and content != "-- "  # the signature separator never flows
        if pieces and depth != current_depth:
            flush()  # a change of quote depth ends a paragraph whatever its last line said
        current_depth = depth
        pieces.append(content[:-1] if soft and delsp else content)
        if not soft:
            flush()
    flush()
    return "\n".join(out)


# --------------------------------------------------------------------------------------------
# HTML to text
# --------------------------------------------------------------------------------------------

# A hand-written linear scanner rather than html.parser: on Python 3.11.7 HTMLParser took 28 s
# on 200 KB of "<a<a<a..." and raised AssertionError on "<![<![...", and a mail body is input
# from anybody.
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9:-]*")
_TAG_STOP = re.compile(r">|=\s*([\"'])")
_WHITESPACE = re.compile(r"\s+")
_RAW_TEXT = frozenset({"script", "style", "title", "textarea", "xmp"})
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "caption", "center", "dd", "details", "dialog", "dir",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5",
    "h6", "header", "hr", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table",
    "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
})


class _TextWriter:
    """Collects text the way a reader sees it: blocks on their own lines, quotes marked '> '."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.at_line_start = True
        self.quote_depth = 0
        self.pre_depth = 0
        self.in_head = False

    def newline(self, hard: bool = False) -> None:
        if hard or not self.at_line_start:
            self.parts.append("\n")
            self.at_line_start = True

    def text(self, data: str) -> None:
        if self.in_head or not data:
            return
        data = html.unescape(data)
        if self.pre_depth:
            for index, line in enumerate(data.split("\n")):
                if index:
                    self.newline(hard=True)
                self._write(line)
            return
        data = _WHITESPACE.sub(" ", data)
        if self.at_line_start:
            data = data.lstrip()
        self._write(data)

    def _write(self, data: str) -> None:
        if not data:
            return
        if self.at_line_start and self.quote_depth:
            self.parts.append("> " * self.quote_depth)
        self.parts.append(data)
        self.at_line_start = False

    def start(self, name: str) -> None:
        if name == "head":
            self.in_head = True
        elif name == "body":
            self.in_head = False  # a missing </head> must not hide the whole body
        elif name == "br":
            self.newline(hard=True)
        elif name in ("td", "th"):
            self._write(" ")
        elif name in _BLOCKS:
            self.newline()
            if name == "blockquote":
                self.quote_depth += 1
            elif name == "pre":
                self.pre_depth += 1

    def end(self, name: str) -> None:
        if name == "head":
            self.in_head = False
        elif name in _BLOCKS:
            self.newline()
            if name == "blockquote":
                self.quote_depth = max(0, self.quote_depth - 1)
            elif name == "pre":
                self.pre_depth = max(0, self.pre_depth - 1)

    def result(self) -> str:
        lines = [line.rstrip() for line in "".join(self.parts).split("\n")]
        out: list[str] = []
        for line in lines:
            if line or (out and out[-1]):  # at most one blank line in a row
                out.append(line)
        return "\n".join(out).strip("\n")


def html_to_text(markup: str) -> str:
    """Visible text of an HTML mail part: tags stripped, script/style dropped, blocks on their own
    lines, blockquotes prefixed with '> ', entities unescaped. Linear in the input's length."""
    writer = _TextWriter()
    lower = markup.lower()
    length = len(markup)
    pos = 0
    while pos < length:
        lt = markup.find("<", pos)
        if lt < 0:
            writer.text(markup[pos:])
            break
        writer.text(markup[pos:lt])
        if markup.startswith("<!--", lt):
            end = markup.find("-->", lt + 4)
            if end < 0:
                break  # an unterminated comment runs to the end, as in a browser
            pos = end + 3
            continue
        following = markup[lt + 1:lt + 2]
        if following in ("!", "?"):  # doctype, CDATA, processing instruction
            end = markup.find(">", lt)
            if end < 0:
                break
            pos = end + 1
            continue
        closing = following == "/"
        name_match = _TAG_NAME.match(markup, lt + (2 if closing else 1))
        if name_match is None:
            writer.text("<")  # a lone "<" in text, e.g. "a < b"
            pos = lt + 1
            continue
        end = _tag_end(markup, name_match.end())
        if end < 0:
            break  # an unterminated tag at the end is dropped, as in a browser
        name = name_match.group(0).lower()
        pos = end + 1
        if closing:
            writer.end(name)
            continue
        writer.start(name)
        if name in _RAW_TEXT:
            # Raw text runs to its closing tag; script and style are invisible, and title and
            # the rest are not part of what the sender wrote.
            close = lower.find("</" + name, pos)
            gt = markup.find(">", close) if close >= 0 else -1
            pos = gt + 1 if gt >= 0 else length
            writer.end(name)
    return writer.result()


def _tag_end(markup: str, pos: int) -> int:
    """Index of the '>' closing a tag whose name ends at pos (quoted values may hold '>'), or -1."""
    while True:
        stop = _TAG_STOP.search(markup, pos)
        if stop is None:
            return -1
        quote = stop.group(1)
        if quote is None:
            return stop.start()
        close = markup.find(quote, stop.end())
        if close < 0:
            return -1
        pos = close + 1


# --------------------------------------------------------------------------------------------
# Command lines
# --------------------------------------------------------------------------------------------

_INVISIBLE = "\ufeff\u200b\u200c\u200d\u2060\u200e\u200f"
# Command lines may come from any text (extract_commands is public): no controls, no lone surrogates.
_LINE_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ud800-\udfff]")

_DEVICE = (
    r"(?:iphone|ipad|ipod(?:\s+touch)?|blackberry|android|mobile(?:\s+(?:device|phone))?|device"
    r"|(?:smart|cell|mobile\s+)?phone|cellphone|smartphone|tablet|handy|windows\s+phone|galaxy|samsung"
    r"|huawei|xiaomi|nokia|motorola|htc|sony|oneplus|móvil|movil|celular|telefoon|telefono|téléphone|mobile)"
)
_DEVICE_PHRASE = rf"(?:[\w'’&+.-]+\s+){{0,4}}?{_DEVICE}(?:\s+[\w'’&+.-]+){{0,4}}"
# Whole-line mobile and app footers only: "Sent from my desk, is much easier then my mobile
# phone." is prose, and "Sent from a magnificent torch of pixels" is a custom footer we cannot know.
_FOOTER = re.compile(
    r"^(?:"
    rf"sent\s+(?:from|with|via|using|on)\s+my\s+{_DEVICE_PHRASE}"
    r"|sent\s+from\s+(?:samsung\s+mobile|outlook(?:\s+for\s+\w+)?|mail\s+for\s+windows(?:\s+1[01])?"
    r"|yahoo\s+mail\s+(?:for|on)\s+\w+|proton\s*mail\s+mobile|aol\s+mobile\s+mail|gmail\s+mobile)"
    r"|get\s+outlook\s+for\s+(?:ios|android)"
    rf"|(?:von|gesendet\s+von)\s+meinem\s+{_DEVICE_PHRASE}(?:\s+gesendet)?"
    rf"|envoy[ée]\s+(?:de|depuis)\s+mon\s+{_DEVICE_PHRASE}"
    rf"|enviado\s+(?:desde\s+mi|do\s+meu|de\s+meu)\s+{_DEVICE_PHRASE}"
    rf"|verzonden\s+(?:vanaf|met|van)\s+mijn\s+{_DEVICE_PHRASE}"
    rf"|inviato\s+da(?:l\s+mio)?\s+{_DEVICE_PHRASE}"
    r")\s*[.!]?(?:\s*<[^<>\s]*>)?$",  # Outlook's HTML-to-text keeps the link: "...for iOS<https://aka.ms/...>"
    re.IGNORECASE,
)
_ORIGINAL_MESSAGE = re.compile(
    r"^[-=_*\s]*(?:original\s+message|ursprüngliche\s+nachricht|originalnachricht|message\s+d'origine"
    r"|mensaje\s+original|oorspronkelijk\s+bericht|messaggio\s+originale|mensagem\s+original"
    r"|originalmeddelande|oprindelig\s+meddelelse|opprinnelig\s+melding|alkuperäinen\s+viesti"
    r"|wiadomość\s+oryginalna|původní\s+zpráva|forwarded\s+message|weitergeleitete\s+nachricht"
    r"|message\s+transféré|mensaje\s+reenviado|doorgestuurd\s+bericht|begin\s+forwarded\s+message:?)"
    r"[-=_*\s]*$",
    re.IGNORECASE,
)
# Attribution lines end with the verb (English "wrote:", Spanish "escribió:", ...), or put the
# verb before the name (German "Am ... schrieb Max <m@x.de>:", Dutch "schreef", Nordic "skrev"),
# or have no verb at all (Gmail in Japanese or Russian: "... Taro <t@x.jp>:").
_ATTRIBUTION_END = re.compile(
    r"(?:\b(?:wrote|writes|escribió|escribio|escreveu|écrit|ecrit|écrivait|scritto|kirjoitti|pisze"
    r"|napisał|napisała|napisal|napsal|napsala|написал|написала|yazdı|rašė|skrifaði)(?:\s*\(\w{1,2}\))?"
    r"|(?:写道|寫道|のメッセージ|작성)"
    r"|<[^<>\s]+@[^<>\s]+>\)?"
    r"|\b(?:schrieb|schreef|skrev)\b[^:：]{0,200}"
    r"|\bezt\s+írta\b.{0,120}"
    r")\s*[:：]\s*$",
    re.IGNORECASE,
)
_ATTRIBUTION_OPENER = re.compile(r"^(?:on|am|le|el|op|il|em|den|dne|w\s+dniu|at|quoting|zitat\s+von)\s", re.I)
_SEPARATOR = re.compile(r"^(?:_{5,}|-{5,})$")
_FROM_FIELD = re.compile(
    r"^\**\s*(?:from|von|de|van|da|från|fra|od|lähettäjä|от|feladó|kimden)\s*\**\s*:", re.IGNORECASE
)
_HEADER_FIELD = re.compile(
    r"^\**\s*(?:sent|date|to|subject|cc|bcc|reply-to|gesendet|datum|an|betreff|envoyé|à|objet|enviado"
    r"|fecha|para|asunto|verzonden|aan|onderwerp|inviato|data|a|oggetto|skickat|till|ämne|sendt|til"
    r"|emne|wysłano|do|temat|odesláno|komu|předmět|lähetetty|vastaanottaja|aihe|отправлено|кому|тема"
    r"|dátum|címzett|tárgy|gönderildi|kime|konu)\s*\**\s*:",
    re.IGNORECASE,
)
# Attribution lines are short; looking only at a line's tail keeps every test O(1) per line.
_TAIL = 300
_LOOKAHEAD = 4


def extract_commands(text: str) -> list[str]:
    """The command lines of a mail body, stripped, in order, up to where the quoted mail begins.

    Reading stops at the first quoted line ('>'), attribution line ("On ... wrote:" in several
    languages, also wrapped over up to three lines), Outlook header block or "Original Message"
    line, signature separator ('--'), whole-line mobile footer, or a line 'end'. Blank lines
    and '//' comments are skipped. Linear in the length of the text.
    """
    lines = text.splitlines()
    commands: list[str] = []
    for index, line in enumerate(lines):
        stripped = _clean_line(line)
        if not stripped:
            continue
        if stripped.startswith(">"):
            break
        if stripped.startswith("//"):
            continue
        if _ends_commands(stripped, lines, index):
            break
        commands.append(stripped)
    return commands


def _clean_line(line: str) -> str:
    if _LINE_CONTROL.search(line):
        line = _LINE_CONTROL.sub("", _SURROGATE.sub("\ufffd", line))
    return line.strip().lstrip(_INVISIBLE).strip()


def _ends_commands(line: str, lines: list[str], index: int) -> bool:
    if line == "--" or line.lower() == "end":
        return True
    head = line[:_TAIL]
    if len(line) <= 160 and _FOOTER.match(line):
        return True
    if len(line) <= 200 and _ORIGINAL_MESSAGE.match(line):
        return True
    if _ATTRIBUTION_END.search(line[-_TAIL:]):
        return True
    if len(line) <= _TAIL and _ATTRIBUTION_OPENER.match(line) and _wrapped_attribution(line, lines, index):
        return True
    if _SEPARATOR.match(head) and _next_line_matches(lines, index, _FROM_FIELD):
        return True
    return bool(_FROM_FIELD.match(head) and _next_line_matches(lines, index, _HEADER_FIELD))


def _wrapped_attribution(line: str, lines: list[str], index: int) -> bool:
    """'On Tue, ... Someone' + '<a@b.com>' + 'wrote:' on up to three lines, as clients wrap it."""
    joined = line
    for following in lines[index + 1:index + 3]:
        part = _clean_line(following)
        if not part or part.startswith(">"):
            return False
        joined = joined + " " + part[:_TAIL]
        if _ATTRIBUTION_END.search(joined[-_TAIL:]):
            return True
    return False


def _next_line_matches(lines: list[str], index: int, pattern: re.Pattern[str]) -> bool:
    for following in lines[index + 1:index + 1 + _LOOKAHEAD]:
        part = _clean_line(following)
        if part:
            return bool(pattern.match(part[:_TAIL]))
    return False
