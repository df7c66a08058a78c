"""Header values read from their raw text: encoded words, the From address, threading ids."""

from __future__ import annotations

import base64
import binascii
import email.utils
import re
from email import errors, policy
from email.message import Message

from pbem.mail.inbound.charsets import decode_bytes
from pbem.mail.inbound.limits import MAX_PARSED_HEADER
from pbem.mail.inbound.sanitise import CONTROL, clean

__all__ = ["MSGID_TOKEN", "PLAIN_ADDRESS", "PLAIN_HEADER_BLOCK", "decode_header", "first", "parse_from", "raw_headers",
           "strip_envelope", "trim_references", "valid_address"]

# No person's From is longer; such a value is not read at all (the stdlib's address parser is
# super-linear, see limits).
_MAX_FROM = 4096
_ENCODED_WORD = re.compile(r"=\?([^?\s]{1,75})\?([bBqQ])\?([^?\s]*)\?=")
#: A quoted string of a header value, whose ":" and "<" are words, not syntax.
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
MSGID_TOKEN = re.compile(r"<[^<>\s]+>")
#: A header block of plain lines, as nearly every client writes it: "Name: value" in printable ASCII (a name of
#: the characters the email package takes for one), lines folded with a space or a tab, each ended by CRLF or
#: LF, and the blank line after them (group 1: the lines). Anything else (8-bit bytes, controls, a lone CR, an
#: mbox "From " line, no blank line) is for the email package's parser.
PLAIN_HEADER_BLOCK = re.compile(rb"((?:[\x21-\x39\x3b-\x7e]+:[\t\x20-\x7e]*\r?\n(?:[\t ][\t\x20-\x7e]*\r?\n)*)*)\r?\n")
#: What the parser makes of a header's 8-bit bytes: surrogate escapes (see _fix_surrogates).
_ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
_MAX_REFERENCES = 30
# No controls either: the envelope sender reaches here unfiltered, and an address becomes a
# reply's recipient and the account's key.
_ADDRESS_CHAR = r"[^\s\x00-\x1f\x7f-\x9f@<>()\[\],;:\"\\]"
_ADDRESS = re.compile(rf"({_ADDRESS_CHAR}{{1,64}})@({_ADDRESS_CHAR}{{1,255}})")
#: One label of a host name in its ASCII form: letters, digits, inner hyphens (RFC 1123).
_HOST_LABEL = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)")


def raw_headers(msg: Message) -> dict[str, list[str]]:
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


def first(headers: dict[str, list[str]], name: str) -> str | None:
    values = headers.get(name)
    return _fix_surrogates(values[0]) if values else None


def _fix_surrogates(value: str) -> str:
    """Turn the parser's surrogate-escaped 8-bit bytes back into text (UTF-8, else Windows-1252)."""
    if value.isascii() or not _ESCAPED_BYTE.search(value):  # nearly every header: no character-by-character look
        return value
    data = value.encode("utf-8", "surrogateescape")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", "replace")


def decode_header(value: str) -> str:
    """RFC 2047 encoded words decoded, then cleaned to one safe line."""
    return clean(_decode_words(value))


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
    return decode_bytes(data, charset, [])


def _reencode_word(match: re.Match[str]) -> str:
    """An encoded word decoded, cleaned of controls and encoded again as harmless base64."""
    text = clean(_decode_word(match))
    return "=?utf-8?b?" + base64.b64encode(text.encode("utf-8")).decode("ascii") + "?="


_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_DOT_ATOM = rf"{_ATOM}(?:\.{_ATOM})*"
#: The From most clients write, "Name <local@host>" or a bare "local@host": plain atoms, no quotes, no
#: comments, no encoded words. Read directly, to the same result as the strict parser (a third of the
#: time of reading a whole move mail went to that parser).
#: local@host of plain dot-atoms (also how pbem.mail.smtpd reads an SMTP path).
PLAIN_ADDRESS = rf"{_DOT_ATOM}@{_DOT_ATOM}"
_PLAIN_FROM = re.compile(rf"[ \t]*(?:(?:({_ATOM}(?: {_ATOM})*) )?<({PLAIN_ADDRESS})>|({PLAIN_ADDRESS}))[ \t]*")


def parse_from(raw: str | None) -> tuple[str, str]:
    """(display name, addr-spec as written) of the first From address; empty strings if none."""
    if raw is None or len(raw) > _MAX_FROM:
        return "", ""
    plain = None if "=?" in raw else _PLAIN_FROM.fullmatch(raw)
    if plain is not None:
        name, bracketed, bare = plain.groups()
        return clean(name or ""), bracketed or bare
    return _parse_from_strictly(raw)


def _parse_from_strictly(raw: str) -> tuple[str, str]:
    """:func:`parse_from` through the email package's parsers (any From, however written)."""
    # Encoded words are re-encoded clean first, so a name decoding to "Bob\r\nBcc: ..." neither
    # crashes the address parser nor injects anything.
    safe = CONTROL.sub(" ", _ENCODED_WORD.sub(_reencode_word, raw))
    # The strict parser is super-linear, and cutting the value could turn bob@example.community
    # into another valid address: long values go to the lenient, linear one.
    if len(safe) <= MAX_PARSED_HEADER:
        try:
            header = policy.default.header_factory("from", safe)
            if any(group.display_name is not None for group in header.groups):
                return "", ""  # From holds mailboxes, never a group ("Name: a@b;", RFC 5322 3.6.2)
            invalid = any(isinstance(defect, errors.InvalidHeaderDefect) for defect in header.defects)
            if invalid and header.addresses and "@" in header.addresses[0].addr_spec:
                # The parser skipped what it could not read, and the address it kept may be the hostile part
                # ('victim@example.com" <tom@example.org>' reads as victim@example.com): no one to answer.
                # A bare MAILER-DAEMON is kept (it says the mail is automatic; it is never answered).
                return "", ""
            if header.addresses:
                return clean(header.addresses[0].display_name), header.addresses[0].addr_spec.strip()
        except Exception:  # the strict parser refused it; the lenient one may not
            pass
    if ":" in _QUOTED.sub("", safe).split("<", 1)[0]:
        return "", ""  # a group, or a broken encoded word ("=?utf-8?q?Sam Bcc: victim@..."): no sender
    try:
        name, addr = email.utils.parseaddr(safe)
    except Exception:
        return "", ""
    return decode_header(name), addr.strip()


def valid_address(addr: str) -> str:
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


def strip_envelope(envelope_sender: str | None) -> str:
    return (envelope_sender or "").strip().strip("<>").strip()


def trim_references(ids: list[str]) -> tuple[str, ...]:
    # A long thread (or a hostile header) must not grow our replies' headers without bound;
    # keep the thread root and the most recent ids, as RFC 5322 3.6.4 suggests.
    if len(ids) > _MAX_REFERENCES:
        ids = [ids[0], *ids[-(_MAX_REFERENCES - 1):]]
    return tuple(ids)
