"""The ASCII diagram of the three levels side by side, with stars and king symbols on empty squares."""

from __future__ import annotations

from pbem.variants.space_chess.geometry import markings
from pbem.variants.space_chess.model import FILES, PIECE_LETTERS, SpaceState

__all__ = ["LEGEND", "diagram"]

LEGEND = ("Upper case White, lower case Black (K Q R B N P).\n"
          "Empty: * star (any piece: 1-2 levels), + king symbol (king: 1 level).")
_TITLES = ("Level 1 (C, bottom)", "Level 2 (B, middle)", "Level 3 (A, top)")
_GAP = "   "


def diagram(state: SpaceState, *, flipped: bool = False) -> str:
    """Levels 3, 2, 1 from left to right (top to bottom of the stack); Black's view is turned round.

    Each block is 17 columns wide, so the whole diagram fits in 57 columns.
    """
    marks = markings(state.options)
    files = FILES[::-1] if flipped else FILES
    ranks = range(8) if flipped else range(7, -1, -1)
    levels = (2, 1, 0)
    width = 17
    lines = [_GAP.join(_TITLES[level].ljust(width) for level in levels).rstrip()]
    header = "  " + " ".join(files)
    lines.append(_GAP.join(header for _ in levels))
    for rank in ranks:
        blocks = []
        for level in levels:
            cells = []
            for file_letter in files:
                index = level * 64 + rank * 8 + FILES.index(file_letter)
                piece = state.board[index]
                if piece > 0:
                    cells.append(PIECE_LETTERS[piece])
                elif piece < 0:
                    cells.append(PIECE_LETTERS[-piece].lower())
                elif marks.star[index]:
                    cells.append("*")
                elif marks.king_symbol[index]:
                    cells.append("+")
                else:
                    cells.append(".")
            blocks.append(f"{rank + 1} {' '.join(cells)}")
        lines.append(_GAP.join(blocks))
    lines.append(_GAP.join(header for _ in levels))
    lines.append(LEGEND)
    return "\n".join(lines)
