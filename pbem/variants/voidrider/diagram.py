"""The ASCII diagram of a Voidrider Chess position: framed spaces, blank void, shaded dark cells."""

from __future__ import annotations

from pbem.variants.voidrider.geometry import FILES, HEIGHT, WIDTH, cell, is_dark
from pbem.variants.voidrider.model import EMPTY, VOID

__all__ = ["LEGEND", "diagram"]

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
