"""Notation helpers every variant shares: decorations, typographic dashes, castling, annotations, errors.

Each variant's ``notation`` module writes its own canonical move text and reads its own
squares; what players add around a move (a ``// comment``, a move number ``12.`` or
``12...``, trailing ``+ # ! ?``, a mail client's typographic dash) is read the same way
in every variant, here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from pbem.engine.errors import AmbiguousMoveError, InvalidMoveError, MoveError

__all__ = [
    "ANNOTATION",
    "CASTLE_LONG",
    "CASTLE_SHORT",
    "castling_side",
    "comment_words",
    "looks_like_move",
    "move_error",
    "pgn_comment",
    "strip_annotation",
    "strip_comment_and_number",
    "strip_decorations",
    "typography",
    "wrap_words",
]

_COMMENT = re.compile(r"//.*", re.DOTALL)
_NUMBER = re.compile(r"^\d+\s*(?:[.\u2026]\s*)+")
#: Trailing check, mate and quality marks (``+``, ``#``, ``!``, ``?``, ``!?``...).
ANNOTATION = re.compile(r"[+#!?]+$")
#: Castling spellings, after lower-casing: ``O-O``, ``0-0``, ``OO``, ``00`` and the long forms.
CASTLE_SHORT = re.compile(r"^(?:o-o|0-0|oo|00)$")
CASTLE_LONG = re.compile(r"^(?:o-o-o|0-0-0|ooo|000)$")
# Mail clients like to turn '-' into typographic dashes and 'x' into a multiplication sign.
_TYPOGRAPHY = str.maketrans({"\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
                             "\u2212": "-", "\u00d7": "x", "\u223c": "~", "\u02dc": "~", "\uff5e": "~"})


def typography(text: str) -> str:
    """Typographic dashes as ``-``, the multiplication sign as ``x``, tilde look-alikes as ``~``."""
    return text.translate(_TYPOGRAPHY)


def strip_comment_and_number(text: str) -> str:
    """Drop a ``// comment``, a move-number prefix (``12.``, ``12...``) and surrounding blanks."""
    return _NUMBER.sub("", _COMMENT.sub("", text).strip()).strip()


def strip_annotation(line: str) -> str:
    """Drop trailing ``+ # ! ?`` marks."""
    return ANNOTATION.sub("", line)


def strip_decorations(text: str) -> str:
    """Drop a comment, a move-number prefix and trailing ``+ # ! ?`` marks."""
    return strip_annotation(strip_comment_and_number(text)).strip()


# Any variant's move, roughly: an optional piece letter (or '@' for a tri-d attack board), then a
# square — 'e2', 'd2(1)', Outer Space's '1a1' — or a castling spelling. Prose rarely starts so.
_MOVE_SHAPE = re.compile(r"^(?:@|[a-z])?\d?[a-z]\d|^(?:o-o|0-0)(?:-o|-0)?(?![\w-])")


def looks_like_move(line: str) -> bool:
    """Whether a line reads like a move in some variant's notation (no rules are consulted)."""
    return bool(_MOVE_SHAPE.match(typography(strip_decorations(line)).lower()))


def castling_side(line: str) -> bool | None:
    """True for a kingside (short) castling spelling, False for queenside (long), None for neither."""
    if CASTLE_SHORT.match(line):
        return True
    if CASTLE_LONG.match(line):
        return False
    return None


def move_error(kind: type[MoveError], text: str, reason: str,
               quote: Callable[[str], str] = lambda text: repr(text.strip())) -> MoveError:
    """``invalid move 'x': reason`` (or ``illegal``/``ambiguous``, after the error class)."""
    word = {InvalidMoveError: "invalid", AmbiguousMoveError: "ambiguous"}.get(kind, "illegal")
    return kind(f"{word} move {quote(text)}: {reason}")


def wrap_words(words: Sequence[str], width: int = 79) -> list[str]:
    """Words joined by spaces into lines of at most ``width`` characters (a longer word stands alone)."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def comment_words(text: str) -> list[str]:
    """``text`` as one PGN brace comment, in units for :func:`wrap_words` (a comment may span lines).

    PGN has no escape inside braces (a comment ends at the first ``}``), so a ``}`` in the text is
    written ``)``; ``[%`` is written ``[ %``, since readers take ``[%name ...]`` in a comment for a
    command (the Hyperspace reader applies ``[%hs ...]``); line breaks and runs of blanks become one
    space; and a word that begins with ``%`` stays on its neighbour's line, since a line that begins
    with ``%`` is an escape line, which readers skip.
    """
    words = text.replace("}", ")").replace("[%", "[ %").split()
    units = ["{" + (words[0] if words else "")]
    for word in words[1:]:
        if word.startswith("%"):
            units[-1] = f"{units[-1]} {word}"
        else:
            units.append(word)
    units[-1] += "}"
    return units


def pgn_comment(text: str) -> str:
    """``text`` as one PGN brace comment, exactly as :func:`comment_words` writes it, on one line."""
    return " ".join(comment_words(text))
