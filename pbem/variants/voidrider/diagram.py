"""The ASCII diagram of a Voidrider Chess position: framed spaces, blank void, shaded dark cells."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.engine.board_view import BoardView, Cell, Highlight, Mark, Panel, Piece, PieceKind
from pbem.variants.voidrider.geometry import FILES, HEIGHT, SQUARE_NAMES, WIDTH, cell, file_of, is_dark, rank_of
from pbem.variants.voidrider.model import EMPTY, VOID

__all__ = ["LEGEND", "board_view", "diagram"]

LEGEND = (
    "Blank = void. Each space is framed: ' . ' or ':::' empty (light/dark),",
    "' n ' or ':n:' a piece on it. Upper case White, lower case Black:",
    "K king, R rook, B bishop, N knight, P pawn, V Voidrider.",
)


def diagram(board: str, *, flipped: bool = False) -> str:
    """The seed's frame style: each space is a box, void has no frame, so holes are plain to see.

    An empty light space shows a dot, so a blank cell between two frames is always void.
    ``flipped`` draws the board from Black's side.
    """
    files = list(range(WIDTH - 1, -1, -1)) if flipped else list(range(WIDTH))
    ranks = list(range(HEIGHT)) if flipped else list(range(HEIGHT - 1, -1, -1))

    def space(row: int, col: int) -> bool:
        if not (0 <= row < HEIGHT and 0 <= col < WIDTH):
            return False
        return board[cell(files[col], ranks[row])] != VOID

    def border(row: int) -> str:
        # The frame line above display row ``row``.
        parts = ["   "]
        for col in range(WIDTH + 1):
            corner = any(space(r, c) for r in (row - 1, row) for c in (col - 1, col))
            parts.append("+" if corner else " ")
            if col < WIDTH:
                parts.append("---" if space(row - 1, col) or space(row, col) else "   ")
        return "".join(parts).rstrip()

    def content(row: int, col: int) -> str:
        index = cell(files[col], ranks[row])
        piece = board[index]
        if piece == VOID:
            return "   "
        dark = is_dark(index)
        if piece == EMPTY:
            return ":::" if dark else " . "
        return f":{piece}:" if dark else f" {piece} "

    labels = "     " + "   ".join(FILES[f] for f in files)
    lines = [labels]
    for row in range(HEIGHT):
        lines.append(border(row))
        number = ranks[row] + 1
        parts = [f"{number:<3}"]
        for col in range(WIDTH + 1):
            parts.append("|" if space(row, col - 1) or space(row, col) else " ")
            if col < WIDTH:
                parts.append(content(row, col))
        lines.append(f"{''.join(parts)}  {number}")
    lines.append(border(HEIGHT))
    lines.append(labels)
    return "\n".join([*lines, *LEGEND])


# -- the picture ----------------------------------------------------------------------------------

_KINDS = {"K": PieceKind.KING, "R": PieceKind.ROOK, "B": PieceKind.BISHOP, "N": PieceKind.KNIGHT,
          "P": PieceKind.PAWN, "V": PieceKind.VOIDRIDER}


def _drawn(index: int, flipped: bool) -> Cell:
    file, rank = file_of(index), rank_of(index)
    return (WIDTH - 1 - file, rank) if flipped else (file, HEIGHT - 1 - rank)


def board_view(board: str, highlights: Sequence[Highlight] = (), *, flipped: bool = False) -> BoardView:
    """The 7x9 area as one panel, turned for Black as the text is; void cells are ``missing``.

    Dark cells are the text's shaded ones (a1 dark, ``is_dark``); a void cell is neither dark nor light.
    A highlight may name a cell that is void now (the space a space move left): it is marked all the same.
    """
    pieces: list[tuple[Cell, Piece]] = []
    dark: set[Cell] = set()
    missing: set[Cell] = set()
    for index, content in enumerate(board):
        where = _drawn(index, flipped)
        if content == VOID:
            missing.add(where)
            continue
        if is_dark(index):
            dark.add(where)
        if content != EMPTY:
            pieces.append((where, Piece(_KINDS[content.upper()], content.isupper())))
    marks: list[tuple[Cell, Mark]] = []
    for name, mark in highlights:
        if name in SQUARE_NAMES:
            marks.append((_drawn(SQUARE_NAMES.index(name), flipped), mark))
    files = tuple(FILES[::-1] if flipped else FILES)
    ranks = tuple(str(r) for r in (range(1, HEIGHT + 1) if flipped else range(HEIGHT, 0, -1)))
    panel = Panel("Voidrider Chess", WIDTH, HEIGHT, files, ranks, tuple(pieces), tuple(marks),
                  frozenset(dark), frozenset(missing))
    return BoardView((panel,))
