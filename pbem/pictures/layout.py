"""Where everything of a picture goes: the cell size and every panel's, label's and text's position.

The geometry is worked out at scale 1 in whole pixels and multiplied by the scale, so the 2x picture
is exactly twice the 1x one. A panel's ``at`` (in cell units) is kept, with room let in for labels:
each distinct left edge of a panel gets the width of its rank labels before it, each distinct top
edge the height of a title, each distinct bottom edge the height of the file labels after it (and each
distinct right edge a little gap), so
panels placed edge to edge (or attack boards beside their levels) never have their labels overlap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import ImageFont

from pbem.engine.board_view import BoardView, Cell, PieceKind

from .figures import DEFAULT_NAMES, UNORTHODOX_KINDS

__all__ = ["WIDTH", "Layout", "Text", "cell_box", "font", "layout_of", "legend_entries", "picture_size"]

WIDTH = 600  # the picture's width at scale 1 (wider only if the board cannot fit at the smallest cells)
MARGIN = 8
MAX_CELL, MIN_CELL = 80, 14
MAX_HEIGHT = 1000  # a tall layout gets smaller cells rather than a picture taller than this
NOTE_SIZE = 15  # font size of the notes and legend names at scale 1
LEGEND_FIGURE = 30  # legend figures at scale 1


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font (FreeType) at a pixel size."""
    return ImageFont.load_default(size=size)


def text_width(text: str, size: int) -> int:
    return math.ceil(font(size).getlength(text))


@dataclass(frozen=True, slots=True)
class Text:
    """A line of text placed at scale 1: ``anchor`` as in Pillow (e.g. ``"mm"`` centred, ``"ls"`` left baseline)."""

    text: str
    x: int
    y: int
    size: int
    anchor: str


@dataclass(frozen=True, slots=True)
class Layout:
    """The geometry of one picture at scale 1."""

    width: int
    height: int
    cell: int
    origins: tuple[tuple[int, int], ...]  # each panel's top-left cell corner
    texts: tuple[Text, ...]
    legend: tuple[tuple[PieceKind, str, int, int], ...]  # kind, name, where its white figure goes (x, y)
    legend_figure: int


_Geometry = tuple[tuple[str, int, int, tuple[str, ...], tuple[str, ...], tuple[float, float]], ...]


def legend_entries(view: BoardView) -> tuple[tuple[PieceKind, str], ...]:
    """The unorthodox kinds on the board (in PieceKind order), named as the view names them."""
    present = {piece.kind for panel in view.panels for _, piece in panel.pieces}
    names = dict(view.legend)
    return tuple((kind, names.get(kind, DEFAULT_NAMES[kind])) for kind in UNORTHODOX_KINDS if kind in present)


def layout_of(view: BoardView, width: int = WIDTH) -> Layout:
    """The geometry of a view's picture ``width`` pixels wide (cached by everything it depends on: not the
    pieces or marks). A narrower picture gets smaller cells, and its notes wrap sooner."""
    geometry = tuple((p.title, p.columns, p.rows, p.file_labels, p.rank_labels, p.at) for p in view.panels)
    return _fit(geometry, view.notes, legend_entries(view), width)


@lru_cache(maxsize=256)
def _board(geometry: _Geometry, cell: int) -> tuple[int, int, tuple[tuple[int, int], ...], tuple[Text, ...]]:
    """The board part at one cell size: its width and height, the panel origins and the labels."""
    label = max(9, min(18, round(cell * 0.3)))
    title_size = max(11, min(18, round(cell * 0.34)))
    pad = max(5, cell // 4)

    def gap_left(ranks: tuple[str, ...]) -> int:
        widest = max((text_width(r, label) for r in ranks if r), default=0)
        return widest + 7 if widest else 3

    lefts: dict[float, int] = {}
    tops: dict[float, int] = {}
    bottoms: dict[float, int] = {}
    rights: set[float] = set()
    for title, columns, rows, files, ranks, (x, y) in geometry:
        lefts[x] = max(lefts.get(x, 0), gap_left(ranks))
        tops[y] = max(tops.get(y, 0), title_size + 8 if title else 3)
        bottoms[y + rows] = max(bottoms.get(y + rows, 0), label + 7 if any(files) else 3)
        rights.add(x + columns)

    def px(u: float) -> int:
        return MARGIN + round(u * cell) + sum(g for edge, g in lefts.items() if edge <= u) + sum(
            pad for edge in rights if edge <= u)

    def py(v: float) -> int:
        return MARGIN + round(v * cell) + sum(g for edge, g in tops.items() if edge <= v) + sum(
            g for edge, g in bottoms.items() if edge <= v)

    origins = tuple((px(x), py(y)) for *_, (x, y) in geometry)
    width = max((ox + columns * cell for (ox, _), (_, columns, *_) in zip(origins, geometry, strict=True)),
                default=0) + MARGIN
    height = max((oy + rows * cell + bottoms[y + rows]
                  for (_, oy), (_, _, rows, _, _, (_, y)) in zip(origins, geometry, strict=True)), default=0)
    texts: list[Text] = []
    for (ox, oy), (title, _columns, rows, files, ranks, _) in zip(origins, geometry, strict=True):
        if title:
            texts.append(Text(title, ox, oy - 5, title_size, "ls"))
        for column, name in enumerate(files):
            if name:
                texts.append(Text(name, ox + column * cell + cell // 2, oy + rows * cell + 3, label, "mt"))
        for row, name in enumerate(ranks):
            if name:
                texts.append(Text(name, ox - 4, oy + row * cell + cell // 2, label, "rm"))
    return width, height + MARGIN, origins, tuple(texts)


def _wrap(line: str, size: int, room: int) -> list[str]:
    words, lines, current = line.split(), [], ""
    for word in words:
        candidate = f"{current} {word}" if current else word
        if current and text_width(candidate, size) > room:
            lines.append(current)
            current = word
        else:
            current = candidate
    return [*lines, current] if current or not lines else lines


@lru_cache(maxsize=256)
def _fit(geometry: _Geometry, notes: tuple[str, ...], legend: tuple[tuple[PieceKind, str], ...],
         wanted: int = WIDTH) -> Layout:
    cell = MAX_CELL
    tallest = MAX_HEIGHT * wanted // WIDTH
    while True:
        board_width, board_height, origins, texts = _board(geometry, cell)
        if cell <= MIN_CELL or (board_width <= wanted and board_height <= tallest):
            break
        cell -= 1
    width = max(wanted, board_width)
    shift = (width - board_width) // 2  # the board is centred
    origins = tuple((x + shift, y) for x, y in origins)
    placed = [Text(t.text, t.x + shift, t.y, t.size, t.anchor) for t in texts]
    y = board_height
    entries: list[tuple[PieceKind, str, int, int]] = []
    if legend:  # one row after another: [white][black] name
        x, figure, row = MARGIN, LEGEND_FIGURE, LEGEND_FIGURE + 6
        for kind, name in legend:
            span = 2 * figure + 4 + text_width(name, NOTE_SIZE) + 18
            if x > MARGIN and x + span > width - MARGIN:
                x, y = MARGIN, y + row
            entries.append((kind, name, x, y))
            placed.append(Text(name, x + 2 * figure + 6, y + figure // 2, NOTE_SIZE, "lm"))
            x += span
        y += row + 4
    line_height = NOTE_SIZE + 5
    for note in notes:
        for line in _wrap(note, NOTE_SIZE, width - 2 * MARGIN):
            placed.append(Text(line, MARGIN, y, NOTE_SIZE, "lt"))
            y += line_height
    if notes:
        y += 4
    return Layout(width, y, cell, origins, tuple(placed), tuple(entries), LEGEND_FIGURE)


def picture_size(view: BoardView, scale: int = 1) -> tuple[int, int]:
    """The picture's width and height in pixels."""
    layout = layout_of(view)
    return layout.width * scale, layout.height * scale


def cell_box(view: BoardView, panel_index: int, cell: Cell, scale: int = 1) -> tuple[int, int, int, int]:
    """The pixel box ``(x0, y0, x1, y1)`` of a cell in the picture; ``x1`` and ``y1`` are exclusive."""
    layout = layout_of(view)
    panel = view.panels[panel_index]
    column, row = cell
    if not (0 <= column < panel.columns and 0 <= row < panel.rows):
        raise ValueError(f"cell {cell} is outside panel {panel_index}")
    ox, oy = layout.origins[panel_index]
    size = layout.cell
    return ((ox + column * size) * scale, (oy + row * size) * scale, (ox + (column + 1) * size) * scale,
            (oy + (row + 1) * size) * scale)
