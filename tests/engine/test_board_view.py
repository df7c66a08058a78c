"""The picture data model: panels check their cells, the layout has a size, marks are found."""

from __future__ import annotations

import pytest

from pbem.engine.board_view import BoardView, Mark, Panel, Piece, PieceKind


def test_a_panel_refuses_cells_outside_it_and_missing_labels() -> None:
    with pytest.raises(ValueError, match="outside"):
        Panel("A", 2, 2, ("a", "b"), ("2", "1"), pieces=(((2, 0), Piece(PieceKind.KING, True)),))
    with pytest.raises(ValueError, match="one label"):
        Panel("A", 2, 2, ("a",), ("2", "1"))


def test_checkered_cells_alternate() -> None:
    dark = Panel.checkered(8, 8, 1)
    assert len(dark) == 32 and (0, 1) in dark and (0, 0) not in dark


def test_layout_size_and_marks() -> None:
    first = Panel("1", 4, 4, tuple("abcd"), tuple("4321"), marks=(((1, 2), Mark.MOVE_TO),))
    second = Panel("2", 2, 2, ("z", "y"), ("2", "1"), at=(5.0, 1.0))
    view = BoardView((first, second))
    assert view.size == (7.0, 4.0)
    assert list(view.cells_marked(Mark.MOVE_TO)) == [(first, (1, 2))]
    assert first.marks_at((1, 2)) == (Mark.MOVE_TO,)
