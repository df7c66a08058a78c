"""A :class:`BoardView` drawn as a palette picture: ``render_png``, ``render_image`` and ``cell_box``.

Every picture uses the one fixed palette of :mod:`pbem.pictures.colours` and is drawn straight into
palette indices: each cell (ground, marks and piece) is made once per cell size as a small palette
tile (drawn at four times the size and scaled down, so figures and marks are smooth), and so is each
piece of text; a picture is then only tiles pasted onto a blank canvas. Nothing is dithered, so the
named colours (the move highlights, the background) come out of the PNG exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from PIL import Image, ImageDraw
from zlib_ng import zlib_ng

from pbem.engine.board_view import BoardView, Cell, Mark, Piece, PieceKind

from .colours import (
    BACKGROUND,
    BLACK_HOLE,
    BLACK_HOLE_SWIRL,
    DARK,
    HIGHLIGHT,
    HIGHLIGHT_FROM,
    HIGHLIGHT_TO,
    KING_SQUARE_COLOUR,
    LEFT_COLOUR,
    LIGHT,
    PALETTE,
    PENDING_COLOUR,
    RETURNED_COLOUR,
    RGB,
    STAR_COLOUR,
    TEXT,
)
from .figures import figure
from .layout import WIDTH, Layout, cell_box, font, layout_of, legend_entries, picture_size
from .png import BandedPngEncoder, index_bytes

__all__ = [
    "BACKGROUND", "BLACK_HOLE", "DARK", "HIGHLIGHT", "HIGHLIGHT_FROM", "HIGHLIGHT_TO", "KING_SQUARE_COLOUR",
    "LEFT_COLOUR", "LIGHT", "PALETTE", "PENDING_COLOUR", "PNG_ENCODER", "RETURNED_COLOUR", "STAR_COLOUR", "cell_box",
    "draw_png", "legend_entries", "picture_size", "render_image", "render_png",
]

_SUPERSAMPLE = 4
PIECE_SHARE = 0.86  # a figure's side as a share of its cell's
PNG_COMPRESS_LEVEL = 3  # zlib level: ~1 ms for a 600 px board, ~20 KB; 6 would double the time for 20% less
#: Run-length matching only: a board is runs of one colour. 0.14 to 0.32 ms less a picture (a sixth to a
#: quarter) for 0 to 3 KB more, measured over 15 positions of each variant (space-chess's small pictures: 5 KB).
PNG_STRATEGY = zlib_ng.Z_RLE
#: Bands of rows deflated once for every picture that shows them (see pbem.pictures.png); 4096 bands of
#: about 1.7 KB are some 7 MB, the rows of about 300 different pictures.
PNG_ENCODER = BandedPngEncoder(bands=4096, level=PNG_COMPRESS_LEVEL, strategy=PNG_STRATEGY)
_FLAT_PALETTE = [channel for colour in PALETTE for channel in colour]
_PALETTE_IMAGE = Image.new("P", (1, 1))
_PALETTE_IMAGE.putpalette(_FLAT_PALETTE)
_OUTLINE = (0, 0, 0)


def _to_palette(image: Image.Image) -> Image.Image:
    return image.convert("RGB").quantize(palette=_PALETTE_IMAGE, dither=Image.Dither.NONE)


def _ground(dark: bool, marks: tuple[Mark, ...]) -> RGB:
    if Mark.MOVE_TO in marks:
        return HIGHLIGHT_TO
    if Mark.MOVE_FROM in marks:
        return HIGHLIGHT_FROM
    if Mark.BLACK_HOLE in marks:
        return BLACK_HOLE
    return DARK if dark else LIGHT


def _star(x: float, y: float, r: float) -> list[tuple[float, float]]:
    return [(x + (r if i % 2 == 0 else r * 0.45) * math.cos(-math.pi / 2 + i * math.pi / 5),
             y + (r if i % 2 == 0 else r * 0.45) * math.sin(-math.pi / 2 + i * math.pi / 5)) for i in range(10)]


class _Tile(NamedTuple):
    """A palette tile as it is pasted: Pillow's core image and its size, read once when the tile is made (the
    ``Image`` properties cost as much as the paste itself, some eighty pastes a picture)."""

    core: Any
    width: int
    height: int


def _tile(image: Image.Image) -> _Tile:
    return _Tile(image.im, image.width, image.height)


@lru_cache(maxsize=4096)
def _cell_tile(size: int, dark: bool, marks: tuple[Mark, ...], piece: Piece | None) -> _Tile:
    """One cell, ``size`` pixels square, as a palette tile."""
    big = size * _SUPERSAMPLE
    image = Image.new("RGB", (big, big), _ground(dark, marks))
    pen = ImageDraw.Draw(image)

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        return x0 * big, y0 * big, x1 * big, y1 * big

    def points(unit: list[tuple[float, float]]) -> list[tuple[float, float]]:
        return [(x * big, y * big) for x, y in unit]

    line = max(1, round(big * 0.045))
    if Mark.BLACK_HOLE in marks:
        pen.ellipse(box(0.08, 0.08, 0.92, 0.92), fill=BLACK_HOLE)
        for inset, start in ((0.14, 0), (0.24, 120), (0.34, 240)):
            pen.arc(box(inset, inset, 1 - inset, 1 - inset), start, start + 250, fill=BLACK_HOLE_SWIRL, width=line)
        pen.ellipse(box(0.43, 0.43, 0.57, 0.57), fill=_OUTLINE)
    if piece is not None:
        side = round(size * PIECE_SHARE) * _SUPERSAMPLE
        sprite = figure(piece.kind, piece.white, side)
        offset = (big - side) // 2
        image.paste(sprite, (offset, offset), sprite)
    if Mark.PENDING_RETURN in marks:
        for start in range(0, 360, 30):
            pen.arc(box(0.1, 0.1, 0.9, 0.9), start, start + 17, fill=PENDING_COLOUR, width=round(big * 0.06))
    if Mark.LEFT in marks:
        pen.polygon(points([(0, 0), (0.36, 0), (0, 0.36)]), fill=LEFT_COLOUR)
    if Mark.RETURNED in marks:
        pen.polygon(points([(1, 0), (0.64, 0), (1, 0.36)]), fill=RETURNED_COLOUR)
    if Mark.STAR in marks:
        pen.polygon(points(_star(0.17, 0.82, 0.15)), fill=STAR_COLOUR, outline=_OUTLINE, width=max(1, line // 2))
    if Mark.KING_SQUARE in marks:
        crown = [(0.70, 0.94), (0.70, 0.74), (0.765, 0.84), (0.83, 0.70), (0.895, 0.84), (0.96, 0.74), (0.96, 0.94)]
        pen.polygon(points(crown), fill=KING_SQUARE_COLOUR, outline=_OUTLINE, width=max(1, line // 2))
    return _tile(_to_palette(image.reduce(_SUPERSAMPLE)))


@lru_cache(maxsize=2048)
def _text_tile(text: str, size: int, anchor: str) -> tuple[_Tile, int, int]:
    """A piece of text on the background as a palette tile, and its offset from the anchor point."""
    face = font(size)
    x0, y0, x1, y1 = (round(v) for v in face.getbbox(text, anchor=anchor))
    image = Image.new("RGB", (max(1, x1 - x0), max(1, y1 - y0)), BACKGROUND)
    ImageDraw.Draw(image).text((-x0, -y0), text, fill=TEXT, font=face, anchor=anchor)
    return _tile(_to_palette(image)), x0, y0


@lru_cache(maxsize=256)
def _legend_tile(kind: PieceKind, white: bool, size: int) -> _Tile:
    image = Image.new("RGB", (size, size), BACKGROUND)
    sprite = figure(kind, white, size)
    image.paste(sprite, (0, 0), sprite)
    return _tile(_to_palette(image))


def _paster(canvas: Image.Image, left: int) -> Callable[[_Tile, int, int], None]:
    """Pastes a palette tile onto ``canvas`` (a new palette image) at a left and top, moved ``left`` columns right:
    Pillow's own paste, without ``Image.paste``'s checks, which were three quarters of a paste's time and a fifth
    of a picture's (a palette tile onto a palette canvas needs none; Pillow clips the box to the canvas)."""
    core = canvas.im

    def paste(tile: _Tile, x: int, y: int) -> None:
        core.paste(tile.core, (x + left, y, x + left + tile.width, y + tile.height))

    return paste


def render_image(view: BoardView, scale: int = 1, width: int = WIDTH) -> Image.Image:
    """The picture of a view as a palette ("P") image with the fixed palette (every frame alike, for a GIF),
    laid out ``width`` pixels wide at scale 1 (a smaller picture is drawn small, not shrunk: it stays crisp)."""
    canvas = _draw(view, layout_of(view, width), scale, 0)
    canvas.putpalette(_FLAT_PALETTE)
    return canvas


def _draw(view: BoardView, layout: Layout, scale: int, left: int) -> Image.Image:
    """:func:`render_image`'s pixels, laid out by ``layout``, after ``left`` columns of palette index 0 (and with no
    palette)."""
    if scale < 1:
        raise ValueError("the scale is a whole number from 1")
    canvas = Image.new("P", (layout.width * scale + left, layout.height * scale), 0)
    paste = _paster(canvas, left)
    size = layout.cell * scale
    for panel, (ox, oy) in zip(view.panels, layout.origins, strict=True):
        marks: dict[Cell, list[Mark]] = {}
        for where, mark in panel.marks:
            marks.setdefault(where, []).append(mark)
        pieces = dict(panel.pieces)
        dark, missing = panel.dark, panel.missing
        for row in range(panel.rows):
            y = (oy * scale) + row * size
            for column in range(panel.columns):
                cell = (column, row)
                if cell in missing:
                    continue
                here = marks.get(cell)
                tile = _cell_tile(size, cell in dark, tuple(sorted(here)) if here else (), pieces.get(cell))
                paste(tile, ox * scale + column * size, y)
    for text in layout.texts:
        tile, dx, dy = _text_tile(text.text, text.size * scale, text.anchor)
        paste(tile, text.x * scale + dx, text.y * scale + dy)
    side = layout.legend_figure * scale
    for kind, _, x, y in layout.legend:
        paste(_legend_tile(kind, True, side), x * scale, y * scale)
        paste(_legend_tile(kind, False, side), x * scale + side + 4 * scale, y * scale)
    if left:
        canvas.im.paste(0, (0, 0, left, canvas.height))  # what hangs over the picture's left edge is cut there
    return canvas


def draw_png(view: BoardView, scale: int = 1) -> bytes:
    """The picture of a view as palette PNG bytes (``scale=2``: the crisp double-size version), drawn now
    (its rows deflated only where no earlier picture had the same). Drawn one column to the right: that column,
    index 0, is each row's PNG filter byte (none), so the canvas's bytes are the rows as PNG deflates them."""
    layout = layout_of(view, WIDTH)
    canvas = _draw(view, layout, scale, 1)
    return PNG_ENCODER.encode_filtered(index_bytes(canvas), canvas.width - 1, canvas.height, _FLAT_PALETTE,
                                       _cell_row_edges(view, layout, scale))


def _cell_row_edges(view: BoardView, layout: Layout, scale: int) -> set[int]:
    """The picture rows where its panels' rows of cells begin and end: the PNG's bands are cut there, so that a
    row of cells that looks as it did in an earlier picture is deflated once for both (pbem.pictures.png)."""
    size = layout.cell * scale
    return {top * scale + row * size
            for panel, (_, top) in zip(view.panels, layout.origins, strict=True) for row in range(panel.rows + 1)}


@lru_cache(maxsize=64)
def render_png(view: BoardView, scale: int = 1) -> bytes:
    """:func:`draw_png`, remembered: views are immutable values, so the same position seen the same way
    (both players of an unturned board, the public and an observer) is drawn once."""
    return draw_png(view, scale)
