"""``tidy`` strips, wraps and joins as the plain per-line version it replaced did, on any text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.app.text import WIDTH, tidy, wrap_line


def reference_tidy(body: str) -> str:
    """The version before the lines were stripped in C (the signature separator keeps its space)."""
    lines = [line if line == "-- " else line.rstrip() for line in body.splitlines()]
    if max(map(len, lines), default=0) > WIDTH:
        lines = [part for line in lines for part in wrap_line(line)]
    while lines and not lines[0]:
        lines.pop(0)
    text = "\n".join(lines).rstrip("\n") + "\n"
    return re.sub(r"\n{3,}", "\n\n", text)


#: Pieces a mail's text is made of, and what splitlines and rstrip treat specially.
_PIECES = st.sampled_from(["-- ", "--", "- ", " ", "\t", "\n", "\r\n", "\r", "\x0b", "\x0c", "\x1c", "\x85",
                           "\u2028", "\xa0", "word", "x" * 30, "a|b|" * 12, ".", "12."])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(_PIECES, st.text(max_size=5)), max_size=60))
def test_tidy_is_the_reference(pieces: list[str]) -> None:
    body = "".join(pieces)
    assert tidy(body) == reference_tidy(body)


def test_signature_lines_keep_their_space() -> None:
    assert tidy("a  \n-- \nb\n-- \n") == "a\n-- \nb\n-- \n"
