"""A board as one audience may see it, as plain data a picture is drawn from: panels, pieces, marks."""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

__all__ = ["BoardView", "Cell", "Highlight", "Mark", "Panel", "Piece", "PieceKind", "board_from_data", "board_to_data"]

#: A cell of a panel as drawn: (column from the left, row from the top), both from 0.
Cell = tuple[int, int]


class PieceKind(enum.StrEnum):
    """Every piece any variant has; a picture draws one figure per kind."""

    KING = "king"
    QUEEN = "queen"
    ROOK = "rook"
    BISHOP = "bishop"
    KNIGHT = "knight"
    PAWN = "pawn"
    STAR_CLUSTER = "star-cluster"  # Outer Space Chess
    PLANET = "planet"
    SPACESHIP = "spaceship"
    GALAXY = "galaxy"
    NEBULA = "nebula"
    VOIDRIDER = "voidrider"  # Voidrider Chess


class Mark(enum.StrEnum):
    """What a cell shows besides its piece."""

    MOVE_FROM = "move-from"  # the last move started here
    MOVE_TO = "move-to"  # and ended here
    LEFT = "left"  # a piece left the board from here (a Hyperspace phase-out)
    RETURNED = "returned"  # a piece came back from hyperspace here
    PENDING_RETURN = "pending-return"  # a secret return square (only in its owner's and the referee's views)
    BLACK_HOLE = "black-hole"  # Outer Space Chess
    STAR = "star"  # Space Chess level-transfer squares
    KING_SQUARE = "king-square"  # Space Chess king-symbol squares


@dataclass(frozen=True, slots=True)
class Piece:
    kind: PieceKind
    white: bool


#: A mark of the last move by square name in the variant's notation (e.g. ``e2(1)``), which the
#: variant's board view turns into a cell; public by construction (it comes from the public record).
Highlight = tuple[str, Mark]


@dataclass(frozen=True, slots=True)
class Panel:
    """One rectangular board as drawn (already turned for the audience).

    ``at`` places the panel's top-left corner in cell units within the whole
    picture, so tri-d's attack boards can sit beside their levels; ``missing``
    cells do not exist (voids, the corners of a 5x8 Outer Space board section).
    """

    title: str
    columns: int
    rows: int
    file_labels: tuple[str, ...]  # left to right, one per column ("" for none)
    rank_labels: tuple[str, ...]  # top to bottom, one per row
    pieces: tuple[tuple[Cell, Piece], ...] = ()
    marks: tuple[tuple[Cell, Mark], ...] = ()
    dark: frozenset[Cell] = frozenset()
    missing: frozenset[Cell] = frozenset()
    at: tuple[float, float] = (0.0, 0.0)

    def __post_init__(self) -> None:
        if len(self.file_labels) != self.columns or len(self.rank_labels) != self.rows:
            raise ValueError(f"panel {self.title!r}: one label per column and per row")
        for (column, row), _ in (*self.pieces, *self.marks):
            if not (0 <= column < self.columns and 0 <= row < self.rows):
                raise ValueError(f"panel {self.title!r}: cell {(column, row)} is outside the panel")

    def marks_at(self, cell: Cell) -> tuple[Mark, ...]:
        return tuple(mark for where, mark in self.marks if where == cell)

    @staticmethod
    @cache  # the same few sets for every picture (a board's 64 cells walked each time before); frozen, so shared
    def checkered(columns: int, rows: int, dark_when: int) -> frozenset[Cell]:
        """The dark cells of a chequered panel: those whose column + row has the parity ``dark_when``."""
        return frozenset((c, r) for c in range(columns) for r in range(rows) if (c + r) % 2 == dark_when)


@dataclass(frozen=True, slots=True)
class BoardView:
    """Everything a picture of one position shows to one audience.

    ``notes`` are short lines printed beside the board (e.g. the pieces in
    hyperspace); ``legend`` names the unorthodox pieces that appear.
    """

    panels: tuple[Panel, ...]
    notes: tuple[str, ...] = ()
    legend: tuple[tuple[PieceKind, str], ...] = ()

    @property
    def size(self) -> tuple[float, float]:
        """Width and height of the whole layout in cell units."""
        width = max((p.at[0] + p.columns for p in self.panels), default=0.0)
        height = max((p.at[1] + p.rows for p in self.panels), default=0.0)
        return width, height

    def cells_marked(self, mark: Mark) -> Iterable[tuple[Panel, Cell]]:
        for panel in self.panels:
            for cell, found in panel.marks:
                if found is mark:
                    yield panel, cell


def board_to_data(view: BoardView) -> dict[str, Any]:
    """``view`` as JSON-ready data (a mail's picture is drawn from it at delivery: pbem.mail.later_pictures)."""
    return {
        "panels": [{
            "title": panel.title, "columns": panel.columns, "rows": panel.rows,
            "file_labels": list(panel.file_labels), "rank_labels": list(panel.rank_labels),
            "pieces": [[column, row, piece.kind.value, piece.white] for (column, row), piece in panel.pieces],
            "marks": [[column, row, mark.value] for (column, row), mark in panel.marks],
            "dark": list(_in_order(panel.dark)), "missing": list(_in_order(panel.missing)), "at": list(panel.at),
        } for panel in view.panels],
        "notes": list(view.notes),
        "legend": [[kind.value, name] for kind, name in view.legend],
    }


@lru_cache(maxsize=64)
def _in_order(cells: frozenset[Cell]) -> tuple[Cell, ...]:
    """``cells`` sorted, kept: a variant's panels share their dark and missing sets (``checkered``), and a frozenset
    keeps its hash, so finding one here is cheaper than sorting its cells again for every picture."""
    return tuple(sorted(cells))


#: Every piece by its colour and kind's value: a picture's data names up to some forty pieces, and looking each up
#: here takes a sixth of the time of making it (a frozen dataclass of an enum member): 7 against 40 µs a board.
_PIECES: dict[bool, dict[str, Piece]] = {white: {kind.value: Piece(kind, white) for kind in PieceKind}
                                         for white in (True, False)}


def board_from_data(data: dict[str, Any]) -> BoardView:
    """The view :func:`board_to_data` wrote, equal to the one it was given."""
    return BoardView(
        panels=tuple(Panel(
            title=panel["title"], columns=panel["columns"], rows=panel["rows"],
            file_labels=tuple(panel["file_labels"]), rank_labels=tuple(panel["rank_labels"]),
            pieces=tuple(((column, row), _PIECES[white][kind]) for column, row, kind, white in panel["pieces"]),
            marks=tuple(((column, row), Mark(mark)) for column, row, mark in panel["marks"]),
            dark=frozenset((column, row) for column, row in panel["dark"]),
            missing=frozenset((column, row) for column, row in panel["missing"]),
            at=(float(panel["at"][0]), float(panel["at"][1])),
        ) for panel in data["panels"]),
        notes=tuple(data["notes"]),
        legend=tuple((PieceKind(kind), name) for kind, name in data["legend"]),
    )
