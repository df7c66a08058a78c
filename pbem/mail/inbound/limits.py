"""Bounds on the stdlib parser's work, for mail from anybody: short header values, few MIME parts."""

from __future__ import annotations

import re
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from functools import lru_cache

__all__ = ["MAX_PARSED_HEADER", "POLICY", "bound_parts"]

# The stdlib's parsing time, measured on Python 3.11.7, must be bounded for mail from anybody:
# its structured-header parser is super-linear (8 KB of '"' in a Content-Type: 1.7 s; 200 KB in
# a From: minutes), and it spends ~50 us per MIME part (1 MiB of empty parts: 6 s). Values it
# parses are cut to MAX_PARSED_HEADER characters, and the parts to _MAX_PART_LINES.
MAX_PARSED_HEADER = 256
_MAX_PART_LINES = 100
_DASH_LINE = re.compile(rb"^--", re.MULTILINE)


class _BoundedHeaderRegistry(HeaderRegistry):
    """policy.default's header factory, on values cut short enough to parse quickly. Only the
    MIME structure headers are read through it, and what they need (type, charset, boundary,
    disposition) comes first; From never reaches it when long (see headers.parse_from)."""

    def __call__(self, name: str, value: str) -> BaseHeader:
        return self._parsed(name, value[:MAX_PARSED_HEADER])

    # The email package parses a header again each time it is read (a Content-Type five times per
    # part); the parsed headers are immutable strings, so one parse per distinct value serves all.
    @lru_cache(maxsize=512)  # noqa: B019  # the registry is a module-level singleton
    def _parsed(self, name: str, value: str) -> BaseHeader:
        return super().__call__(name, value)


POLICY = policy.default.clone(header_factory=_BoundedHeaderRegistry())


def bound_parts(raw: bytes, problems: list[str]) -> bytes:
    """Cut the mail after its first _MAX_PART_LINES lines starting with '--' (every MIME part
    starts with one); the commands are at the top of the first text part, far before."""
    for count, match in enumerate(_DASH_LINE.finditer(raw), start=1):
        if count > _MAX_PART_LINES:
            problems.append("the mail had too many parts or '--' lines; only its beginning was read")
            return raw[:match.start()]
    return raw
