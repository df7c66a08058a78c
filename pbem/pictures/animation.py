"""A whole game as one animated GIF: the positions drawn in the fixed palette, cut to a few colours, no resampling."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import lru_cache

from PIL import Image

from pbem.engine.board_view import BoardView

from .colours import PALETTE
from .layout import WIDTH
from .render import render_image

__all__ = ["GIF_COLOURS", "GIF_WIDTHS", "animated_gif"]

#: Colours of a GIF: the pictures' antialiased edges use many more, but 64 look the same and compress
#: far better (about half the bytes of the full palette).
GIF_COLOURS = 64
#: The widths tried, largest first, until the GIF fits its budget.
GIF_WIDTHS = (WIDTH, 480, 380, 300)
#: A GIF's bytes grow with its width to about this power (its area's, a little slower): a width the last
#: try shows would not fit is skipped, not drawn.
_GROWTH = 1.7


def animated_gif(views: Sequence[BoardView], frame_ms: int, last_frame_ms: int, budget: int) -> bytes | None:
    """The views as the frames of a looping GIF, at the largest of :data:`GIF_WIDTHS` that fits ``budget``
    bytes; None when even the narrowest does not (or there is no view)."""
    if not views:
        return None
    durations = [frame_ms] * (len(views) - 1) + [last_frame_ms]
    last: tuple[int, int] | None = None  # the width last tried and its bytes
    for width in GIF_WIDTHS:
        if last is not None and width != GIF_WIDTHS[-1] and last[1] * (width / last[0]) ** _GROWTH > budget:
            continue
        data = _encode([render_image(view, width=width) for view in views], durations)
        if len(data) <= budget:
            return data
        last = width, len(data)
    return None


def _encode(frames: Sequence[Image.Image], durations: Sequence[int]) -> bytes:
    table, palette = _reduction(frames[-1])
    reduced = []
    for frame in frames:
        # bytes.translate maps every pixel's palette index in C: no per-frame quantizing
        image = Image.frombytes("P", frame.size, frame.tobytes().translate(table))
        image.putpalette(palette)
        reduced.append(image)
    out = io.BytesIO()
    reduced[0].save(out, format="GIF", save_all=True, append_images=reduced[1:], duration=list(durations), loop=0,
                    optimize=True, disposal=1)
    return out.getvalue()


def _reduction(frame: Image.Image) -> tuple[bytes, list[int]]:
    """The :data:`GIF_COLOURS` colours most used in ``frame`` (the final position: most colours of the game
    are on it), and a table sending every palette index to the nearest of them."""
    counts = frame.histogram()[:len(PALETTE)]
    kept = [i for i in sorted(range(len(PALETTE)), key=lambda i: (-counts[i], i))[:GIF_COLOURS] if counts[i]] or [0]
    return _table(tuple(kept))


@lru_cache(maxsize=128)
def _table(kept: tuple[int, ...]) -> tuple[bytes, list[int]]:
    """The games of a variant keep much the same colours: the table is made once per set of them."""
    flat = [channel for i in kept for channel in PALETTE[i]]
    chosen = Image.new("P", (1, 1))
    chosen.putpalette(flat)
    every = Image.new("RGB", (len(PALETTE), 1))
    every.frombytes(bytes(channel for colour in PALETTE for channel in colour))
    # Pillow maps each palette colour to the nearest chosen one, in C
    nearest = every.quantize(palette=chosen, dither=Image.Dither.NONE).tobytes()
    return nearest + bytes(256 - len(PALETTE)), flat
