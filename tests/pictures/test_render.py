"""Board pictures: sizes from the layout, exact highlight colours, marks, figures, legend, notes, PNG format."""

from __future__ import annotations

import io
from collections.abc import Callable
from importlib import resources

import pytest
from PIL import Image

from pbem.engine.board_view import BoardView, Mark, Panel, Piece, PieceKind
from pbem.pictures.colours import PALETTE
from pbem.pictures.figures import CHESS_KINDS, UNORTHODOX_KINDS
from pbem.pictures.layout import WIDTH
from pbem.pictures.render import (
    BACKGROUND,
    BLACK_HOLE,
    HIGHLIGHT,
    HIGHLIGHT_FROM,
    HIGHLIGHT_TO,
    KING_SQUARE_COLOUR,
    LEFT_COLOUR,
    PENDING_COLOUR,
    RETURNED_COLOUR,
    STAR_COLOUR,
    cell_box,
    legend_entries,
    picture_size,
    render_image,
    render_png,
)

from .views import LAYOUTS, VOIDS, chess, hyperspace, outer_space, voidrider

RGB = tuple[int, int, int]


def decode(data: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def rgb(data: bytes) -> Image.Image:
    return decode(data).convert("RGB")


def pixel(image: Image.Image, x: int, y: int) -> RGB:
    value = image.getpixel((x, y))
    assert isinstance(value, tuple)
    return value[0], value[1], value[2]


def edge_middles(box: tuple[int, int, int, int]) -> list[tuple[int, int]]:
    """The middle of each side of a cell, one pixel inside it: a piece never covers these."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) // 2, (y0 + y1) // 2
    return [(x0 + 1, cy), (x1 - 2, cy), (cx, y0 + 1), (cx, y1 - 2)]


def colours_in(image: Image.Image, box: tuple[int, int, int, int]) -> set[RGB]:
    data = image.crop(box).convert("RGB").tobytes()
    return {(data[i], data[i + 1], data[i + 2]) for i in range(0, len(data), 3)}


LAYOUT_NAMES = sorted(LAYOUTS)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
@pytest.mark.parametrize("scale", [1, 2])
def test_the_picture_has_the_layout_size_and_every_cell_inside_it(name: str, scale: int) -> None:
    view = LAYOUTS[name]()
    image = decode(render_png(view, scale))
    assert image.size == picture_size(view, scale)
    assert image.width == WIDTH * scale  # every realistic layout fits the phone width
    for index, panel in enumerate(view.panels):
        boxes = [cell_box(view, index, (c, r), scale) for c in range(panel.columns) for r in range(panel.rows)]
        for x0, y0, x1, y1 in boxes:
            assert 0 <= x0 < x1 <= image.width and 0 <= y0 < y1 <= image.height
        assert {x1 - x0 for x0, _, x1, _ in boxes} == {y1 - y0 for _, y0, _, y1 in boxes}  # square cells, one size


def test_panels_never_overlap_each_other() -> None:
    for name in LAYOUT_NAMES:
        view = LAYOUTS[name]()
        spans = []
        for index, panel in enumerate(view.panels):
            x0, y0, _, _ = cell_box(view, index, (0, 0))
            _, _, x1, y1 = cell_box(view, index, (panel.columns - 1, panel.rows - 1))
            spans.append((x0, y0, x1, y1))
        for i, a in enumerate(spans):
            for b in spans[i + 1:]:
                assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (name, a, b)


def test_multi_panel_layouts_get_smaller_cells() -> None:
    def side(view: BoardView) -> int:
        x0, _, x1, _ = cell_box(view, 0, (0, 0))
        return x1 - x0

    assert side(chess()) > side(LAYOUTS["space-chess"]()) and side(chess()) >= 60


@pytest.mark.parametrize("name", LAYOUT_NAMES)
@pytest.mark.parametrize("scale", [1, 2])
def test_the_last_move_cells_show_the_highlight_colours_exactly(name: str, scale: int) -> None:
    view = LAYOUTS[name]()
    image = rgb(render_png(view, scale))
    checked = 0
    for mark, colour in ((Mark.MOVE_FROM, HIGHLIGHT_FROM), (Mark.MOVE_TO, HIGHLIGHT_TO)):
        for panel, cell in view.cells_marked(mark):
            box = cell_box(view, view.panels.index(panel), cell, scale)
            for x, y in edge_middles(box):
                assert pixel(image, x, y) == colour, (name, mark, cell, (x, y))
            checked += 1
    assert checked >= (0 if name == "hyperspace" else 1)


@pytest.mark.parametrize("scale", [1, 2])
def test_no_figure_covers_the_edge_middles_of_its_cell_even_in_small_cells(scale: int) -> None:
    kinds = list(PieceKind)
    panels = tuple(Panel(f"Level {i}", 8, 8, tuple("abcdefgh"), tuple("87654321"), at=(9.0 * i, 0.0),
                         pieces=tuple(((c, r), Piece(kinds[(c + r) % len(kinds)], (c + i) % 2 == 0))
                                      for c in range(8) for r in range(8)),
                         marks=tuple(((c, r), Mark.MOVE_TO) for c in range(8) for r in range(8)))
                   for i in range(3))
    view = BoardView(panels=panels)
    image = rgb(render_png(view, scale))
    for index in range(3):
        for c in range(8):
            for r in range(8):
                for x, y in edge_middles(cell_box(view, index, (c, r), scale)):
                    assert pixel(image, x, y) == HIGHLIGHT_TO, (index, c, r)


def test_highlight_is_one_of_the_two_move_colours_and_all_are_in_the_palette() -> None:
    assert HIGHLIGHT in (HIGHLIGHT_FROM, HIGHLIGHT_TO) and HIGHLIGHT_FROM != HIGHLIGHT_TO
    for colour in (BACKGROUND, HIGHLIGHT_FROM, HIGHLIGHT_TO, LEFT_COLOUR, RETURNED_COLOUR, PENDING_COLOUR,
                   BLACK_HOLE, STAR_COLOUR, KING_SQUARE_COLOUR):
        assert colour in PALETTE


def test_a_missing_cell_is_background() -> None:
    view = voidrider()
    image = rgb(render_png(view))
    for cell in VOIDS:
        assert colours_in(image, cell_box(view, 0, cell)) == {BACKGROUND}
    assert BACKGROUND not in colours_in(image, cell_box(view, 0, (1, 1)))  # a present cell is drawn


def one_panel(*pieces: Piece, marks: tuple[tuple[tuple[int, int], Mark], ...] = ()) -> BoardView:
    """A row of light cells holding the pieces, and one empty cell after them."""
    count = len(pieces) + 1
    return BoardView(panels=(Panel("", count, 1, ("",) * count, ("",),
                                   pieces=tuple(((i, 0), p) for i, p in enumerate(pieces)), marks=marks),))


@pytest.mark.parametrize("kind", list(PieceKind))
def test_every_kind_renders_and_white_differs_from_black(kind: PieceKind) -> None:
    view = one_panel(Piece(kind, True), Piece(kind, False))
    image = rgb(render_png(view))
    white, black, empty = (image.crop(cell_box(view, 0, (i, 0))) for i in range(3))
    assert white.tobytes() != empty.tobytes() and black.tobytes() != empty.tobytes()
    assert white.tobytes() != black.tobytes()
    ground = empty.convert("L").tobytes()
    means = []
    for figure in (white, black):  # the mean grey of the pixels the figure changed
        grey = figure.convert("L").tobytes()
        changed = [g for g, e in zip(grey, ground, strict=True) if g != e]
        means.append(sum(changed) / len(changed))
    assert means[0] > means[1] + 30  # the white figure is lighter


def test_the_kinds_all_look_different() -> None:
    kinds = list(PieceKind)
    view = one_panel(*(Piece(kind, True) for kind in kinds))
    image = rgb(render_png(view))
    crops = {image.crop(cell_box(view, 0, (i, 0))).tobytes() for i in range(len(kinds))}
    assert len(crops) == len(kinds)


def test_the_legend_lists_exactly_the_unorthodox_kinds_present() -> None:
    view = outer_space()
    entries = legend_entries(view)
    present = {p.kind for panel in view.panels for _, p in panel.pieces}
    assert [kind for kind, _ in entries] == [kind for kind in UNORTHODOX_KINDS if kind in present]
    assert dict(entries)[PieceKind.STAR_CLUSTER] == "Star cluster (moves like a queen)"  # the view's own name
    assert dict(entries)[PieceKind.PLANET] == "Planet"  # a default name
    assert legend_entries(chess()) == ()
    named_but_absent = BoardView(panels=chess().panels, legend=((PieceKind.GALAXY, "Galaxy"),))
    assert legend_entries(named_but_absent) == ()


def test_a_legend_makes_the_picture_taller() -> None:
    orthodox = one_panel(Piece(PieceKind.KNIGHT, True))
    unorthodox = one_panel(Piece(PieceKind.NEBULA, True))
    two_kinds = one_panel(Piece(PieceKind.NEBULA, True), Piece(PieceKind.VOIDRIDER, False))
    assert picture_size(unorthodox)[1] > picture_size(orthodox)[1]
    assert picture_size(two_kinds)[1] == picture_size(unorthodox)[1]  # one row holds both
    assert decode(render_png(unorthodox)).size == picture_size(unorthodox)


def test_notes_appear_below_the_board() -> None:
    bare, one, two = hyperspace(()), hyperspace(("In hyperspace: white knight.",)), hyperspace()
    heights = [picture_size(v)[1] for v in (bare, one, two)]
    assert heights[0] < heights[1] < heights[2]
    image = rgb(render_png(one))
    _, _, _, board_bottom = cell_box(one, 0, (7, 7))
    below = image.crop((0, picture_size(bare)[1] - 8, image.width, image.height))
    assert len(colours_in(below, (0, 0, below.width, below.height))) > 2  # text was drawn there
    assert picture_size(bare)[1] - 8 > board_bottom
    wrapped = hyperspace(("word " * 200,))
    assert picture_size(wrapped)[1] > heights[1] + 60 and picture_size(wrapped)[0] == WIDTH


def test_scale_two_doubles_everything() -> None:
    for name in LAYOUT_NAMES:
        view = LAYOUTS[name]()
        w, h = picture_size(view)
        assert decode(render_png(view, 2)).size == (2 * w, 2 * h)
        box1, box2 = cell_box(view, 0, (0, 0)), cell_box(view, 0, (0, 0), 2)
        assert box2 == tuple(2 * v for v in box1)


@pytest.mark.parametrize("name", LAYOUT_NAMES)
def test_the_png_is_a_small_palette_picture(name: str) -> None:
    view = LAYOUTS[name]()
    one, two = render_png(view), render_png(view, 2)
    assert decode(one).mode == "P" and decode(two).mode == "P"
    assert len(one) < 30_000 and len(two) < 100_000
    assert one[:8] == b"\x89PNG\r\n\x1a\n"
    assert render_png(view) == one  # the same view, the same bytes


def test_frames_share_one_palette() -> None:
    a, b = render_image(chess()), render_image(outer_space(), 2)
    assert a.mode == b.mode == "P"
    assert a.getpalette() == b.getpalette()


def test_marks_are_drawn_in_their_colours() -> None:
    view = hyperspace()
    image = rgb(render_png(view))
    x0, y0, x1, y1 = cell_box(view, 0, (5, 7))  # LEFT: the top-left corner
    assert pixel(image, x0 + 2, y0 + 2) == LEFT_COLOUR
    x0, y0, x1, y1 = cell_box(view, 0, (2, 2))  # RETURNED: the top-right corner
    assert pixel(image, x1 - 3, y0 + 2) == RETURNED_COLOUR
    assert PENDING_COLOUR in colours_in(image, cell_box(view, 0, (5, 5)))
    space = LAYOUTS["space-chess"]()
    image = rgb(render_png(space))
    assert STAR_COLOUR in colours_in(image, cell_box(space, 0, (2, 2)))
    assert KING_SQUARE_COLOUR in colours_in(image, cell_box(space, 1, (4, 0)))
    assert STAR_COLOUR not in colours_in(image, cell_box(space, 0, (3, 3)))
    outer = outer_space()
    image = rgb(render_png(outer))
    x0, y0, x1, y1 = cell_box(outer, 0, (0, 3))
    assert pixel(image, x0 + 1, y0 + 1) == BLACK_HOLE
    assert len(colours_in(image, (x0, y0, x1, y1))) > 3  # the swirl


def test_marks_on_one_cell_combine() -> None:
    view = one_panel(Piece(PieceKind.QUEEN, True), marks=(((0, 0), Mark.MOVE_TO), ((0, 0), Mark.RETURNED)))
    image = rgb(render_png(view))
    box = cell_box(view, 0, (0, 0))
    assert pixel(image, box[2] - 3, box[1] + 2) == RETURNED_COLOUR
    assert pixel(image, box[0] + 1, (box[1] + box[3]) // 2) == HIGHLIGHT_TO


@pytest.mark.parametrize("call", [lambda: render_png(chess(), 0), lambda: cell_box(chess(), 0, (8, 0)),
                                  lambda: cell_box(chess(), 1, (0, 0))])
def test_bad_arguments_are_refused(call: Callable[[], object]) -> None:
    with pytest.raises((ValueError, IndexError)):
        call()


def test_the_sprites_and_their_licence_ship_in_the_package() -> None:
    folder = resources.files("pbem.pictures") / "pieces"
    assert "BSD" in (folder / "LICENSE").read_text() and "Burnett" in (folder / "LICENSE").read_text()
    for kind in CHESS_KINDS:
        for colour in ("white", "black"):
            with (folder / f"{colour}-{kind.value}.png").open("rb") as stream:
                assert Image.open(stream).size == (180, 180)


def test_the_package_imports_only_the_standard_library_pillow_xxhash_zlib_ng_and_the_engine() -> None:
    import ast
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "pbem" / "pictures"
    init = ast.parse((folder / "__init__.py").read_text())
    assert ast.get_docstring(init) is not None and len(init.body) == 1  # a docstring, no imports of its children
    for path in folder.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for name in names:
                top = name.split(".")[0]
                assert (top in sys.stdlib_module_names or top in ("PIL", "xxhash", "zlib_ng")
                        or name.startswith(("pbem.engine", "pbem.pictures"))), (path.name, name)
