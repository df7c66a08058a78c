"""Decoded text made safe: one clean header line, or a body without controls or lone surrogates."""

from __future__ import annotations

import re

__all__ = ["CONTROL", "SURROGATE", "clean", "sanitise_text"]

# C0/C1 controls and the Unicode line separators: whatever a header decodes to, none of these
# may reach a reply's headers or a template (header injection, split lines).
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# Lone surrogates (a UTF-7 part can decode to them) would make encoding a reply raise.
SURROGATE = re.compile(r"[\ud800-\udfff]")


def clean(value: str) -> str:
    """One line of text: controls and line breaks become spaces, runs of whitespace one space."""
    return " ".join(CONTROL.sub(" ", SURROGATE.sub("\ufffd", value)).split())


def _normalise_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


# Controls other than tab and newline: PostgreSQL refuses NUL in text, and the other line
# separators str.splitlines() knows (VT, FF, FS, GS, RS, NEL, U+2028/9) become plain newlines.
_BODY_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1b\x1f\x7f]")
_BODY_BREAK = re.compile(r"[\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def sanitise_text(text: str) -> str:
    """A body's text with plain newlines only: no controls, no lone surrogates, no leading BOM."""
    text = _normalise_newlines(text)
    text = _BODY_BREAK.sub("\n", _BODY_CONTROL.sub("", SURROGATE.sub("\ufffd", text)))
    return text[1:] if text.startswith("\ufeff") else text
