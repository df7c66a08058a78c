"""Plain-text hygiene for every mail body: lines within 78 characters, no trailing spaces, no leading blank line.

Mail clients show 78 columns without wrapping, and some rewrap longer lines,
which would spoil diagrams and split digests. Bodies are tidied once, just
before they are queued, so every template and every variant note gets the
same treatment. A long token (a SHA-256 digest, a nonce, a commitment
string) is never split: it goes on a line of its own with its label.
"""

from __future__ import annotations

import re

__all__ = ["WIDTH", "preview", "tidy", "wrap_line"]

#: RFC 5322 2.1.1: lines SHOULD be no more than 78 characters.
WIDTH = 78

#: A word this long is data to copy (digest, nonce, commitment string), not prose.
_TOKEN = 24

#: The signature separator is "-- " by definition (RFC 3676 4.3): its space stays.
_SIGNATURE = "-- "

#: A word that ends a clause: a digest's label starts after it.
_CLAUSE_END = re.compile(r"[.;,]$")

_MOVE_NUMBER = re.compile(r"^\d+\.+$")


def tidy(body: str) -> str:
    """``body`` with long lines wrapped, trailing spaces and leading blank lines gone, one final newline."""
    raw = body.splitlines()
    # Stripped by map in C: a comprehension's loop in Python was most of a mail's tidying (every mail, four a move).
    lines = list(map(str.rstrip, raw))
    found = -1
    for _ in range(raw.count(_SIGNATURE)):  # the signature separator keeps its space
        found = raw.index(_SIGNATURE, found + 1)
        lines[found] = _SIGNATURE
    if max(map(len, lines), default=0) > WIDTH:  # most bodies (diagrams, clocks) have no line to wrap
        lines = [part for line in lines for part in wrap_line(line)]
    while lines and not lines[0]:
        lines.pop(0)
    text = "\n".join(lines).rstrip("\n") + "\n"
    # Runs of blank lines (templates joined together leave them) down to one: each pass shortens every run of three
    # or more line breaks by a third, to two at last. The regex r"\n{3,}" tried a match at every character.
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text


def preview(news: str, width: int = WIDTH) -> str:
    """A mail's first line: its sentences kept whole on lines of ``width`` where they fit.

    A client previews the first line; breaking a deadline in two ("Tue 1 Dec" / "06:12 UTC")
    would spoil it, so the break comes between sentences. A line of its own stays as it is.
    """
    out: list[str] = []
    for line in news.splitlines():
        current = ""
        for sentence in _sentences(line):
            if current and len(current) + 1 + len(sentence) > width:
                out.append(current)
                current = sentence
            else:
                current = f"{current} {sentence}" if current else sentence
        out.append(current)
    return "\n".join(out)


def _sentences(line: str) -> list[str]:
    """``line`` cut after each word ending in a full stop, except a move number ("12." or "12...")."""
    parts: list[str] = []
    words: list[str] = []
    for word in line.split():
        words.append(word)
        if word[-1] == "." and not _MOVE_NUMBER.match(word):
            parts.append(" ".join(words))
            words = []
    if words:
        parts.append(" ".join(words))
    return parts


def wrap_line(line: str, width: int = WIDTH) -> list[str]:
    """One line as lines of at most ``width`` characters where its words allow.

    Continuation lines keep the line's indent; a long token starts a line of
    its own with its label (the words since the last clause end), or, when
    both do not fit, the label ends a line and the token is indented under it.
    """
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    lines: list[str] = []
    current: list[str] = []
    for chunk, forced in _chunks(line.split()):
        text = " ".join(chunk)
        if forced:
            _flush(lines, indent, current)
            current = []
            if len(indent) + len(text) <= width:
                lines.append(indent + text)
            else:
                if len(chunk) > 1:
                    lines.append(indent + " ".join(chunk[:-1]))
                lines.extend(indent + "  " + part for part in _split_token(chunk[-1], width - len(indent) - 2))
            continue
        if current and len(indent) + len(" ".join([*current, text])) > width:
            _flush(lines, indent, current)
            current = []
        current.append(text)
    _flush(lines, indent, current)
    return lines


def _split_token(token: str, width: int) -> list[str]:
    """A token too long for any line (a Hyperspace commitment string), cut after its '|' separators.

    Joined again without spaces, the pieces are the token: the commitment string's fields are
    separated by '|', so the cuts fall where a reader expects them.
    """
    if len(token) <= width:
        return [token]
    pieces: list[str] = []
    current = ""
    for field in re.split(r"(?<=\|)", token):
        if current and len(current) + len(field) > width:
            pieces.append(current)
            current = ""
        current += field
    pieces.append(current)
    return pieces


def _flush(lines: list[str], indent: str, words: list[str]) -> None:
    if words:
        lines.append(indent + " ".join(words))


def _chunks(words: list[str]) -> list[tuple[list[str], bool]]:
    """The words, each alone, except a long token with its label: one chunk that starts a line."""
    chunks: list[tuple[list[str], bool]] = []
    pending: list[str] = []  # words since the last clause end or token: a token's label
    for word in words:
        if len(word) >= _TOKEN:
            chunks.append(([*pending, word], True))
            pending = []
            continue
        pending.append(word)
        if _CLAUSE_END.search(word):
            chunks.extend(([w], False) for w in pending)
            pending = []
    chunks.extend(([w], False) for w in pending)
    return chunks
