"""Bytes to text in the charset a mail declares, with a stated fallback when it is unknown or wrong."""

from __future__ import annotations

import codecs

from pbem.mail.inbound.sanitise import clean

__all__ = ["ASCII_NAMES", "decode_bytes"]

ASCII_NAMES = frozenset({"us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "us", "646"})
# Codecs Python knows that are no mail charset, are slow (punycode is quadratic) or decode
# escape sequences: treated as unknown.
_REFUSED_CODECS = frozenset({"punycode", "idna", "raw-unicode-escape", "unicode-escape", "undefined"})


def decode_bytes(data: bytes, charset: str | None, problems: list[str]) -> str:
    """Decode with the declared charset; unknown or wrong charsets fall back and say so."""
    name = clean(charset or "").strip("\"'").lower()
    shown = name[:40]
    if not name or name in ASCII_NAMES:
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
