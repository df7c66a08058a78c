"""Board pictures drawn into a queued mail when it is delivered, not when the worker queues it.

The worker applies moves one at a time, under the database's one writer lock; a picture is a
quarter of its work on a move (docs/hot-path.md). So a game mail is queued with a marker line
where its picture's base64 lines will go and, beside its bytes, the board to draw (the
outbox's ``pictures`` column, JSON); the deliverer draws it in just before sending (pbem serve
in a process of its own: pbem.picture_process), and so does anything else that reads a queued
mail. Drawing is deterministic:
a mail sent again after a crash carries the same picture.
"""

from __future__ import annotations

import io
import logging
import re
from typing import Any

from PIL import Image

from pbem.engine.board_view import board_from_data
from pbem.mail.compose import base64_line_bytes
from pbem.pictures.render import render_png
from pbem.store import json_text

__all__ = ["blank_png", "draw_entry", "finished"]

log = logging.getLogger(__name__)

#: A picture's marker line as pbem.mail.compose writes it: the mail's boundary stem, ".picture." and a number.
_MARKER_LINE = re.compile(rb"^=_[0-9a-f]{24}\.picture\.[0-9]+\r\n", re.MULTILINE)


def finished(raw: bytes, pictures: str) -> bytes:
    """``raw`` (an outbox row's bytes) with each picture ``pictures`` names drawn in place of its marker line
    (pbem serve does this in a process of its own: pbem.picture_process)."""
    if not pictures:
        return raw
    try:
        entries = json_text.loads(pictures)
        markers = [f"{entry['marker']}\r\n".encode("ascii") for entry in entries]
    except (ValueError, TypeError, KeyError) as error:
        # Only a damaged row reads so: its mail still goes, its text whole and each picture blank, rather than
        # hold back every mail queued behind it. The marker lines are found by their form (compose's).
        log.error("an outbox row's pictures cannot be read (%r); its mail goes with blank ones", error)
        blank = base64_line_bytes(blank_png())
        return _MARKER_LINE.sub(lambda _: blank, raw)
    for entry, marker in zip(entries, markers, strict=True):
        raw = raw.replace(marker, base64_line_bytes(draw_entry(entry)), 1)
    return raw


def draw_entry(entry: dict[str, Any]) -> bytes:
    """The PNG of one entry of an outbox row's ``pictures``; a blank one if its board cannot be drawn."""
    try:
        return render_png(board_from_data(entry["board"]), scale=int(entry.get("scale", 1)))
    except Exception:  # a board that cannot be drawn must not hold its mail back: the text tells the game
        log.exception("picture %s could not be drawn; the mail goes with a blank one", entry.get("marker"))
        return blank_png()


def blank_png() -> bytes:
    """A transparent 1x1 PNG: what a mail carries if its board cannot be drawn (it still goes out)."""
    out = io.BytesIO()
    Image.new("RGBA", (1, 1), (0, 0, 0, 0)).save(out, format="PNG")
    return out.getvalue()
