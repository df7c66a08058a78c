"""The ASCII diagram of the three levels side by side, with stars and king symbols on empty squares."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.engine.board_view import BoardView, Cell, Highlight, Mark, Panel, Piece, PieceKind
from pbem.variants.space_chess.geometry import markings
from pbem.variants.space_chess.model import FILES, PIECE_LETTERS, SpaceState, parse_square_name

__all__ = ["LEGEND", "board_view", "diagram"]

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


# -- the picture ----------------------------------------------------------------------------------

_KINDS = (PieceKind.PAWN, PieceKind.KNIGHT, PieceKind.BISHOP, PieceKind.ROOK, PieceKind.QUEEN, PieceKind.KING)


def _drawn(index: int, flipped: bool) -> tuple[int, Cell]:
    """Panel (0 for level 3 at the left .. 2 for level 1) and drawn cell of board index ``index``."""
    level, rest = divmod(index, 64)
    rank, file = divmod(rest, 8)
    return 2 - level, ((7 - file, rank) if flipped else (file, 7 - rank))


def board_view(state: SpaceState, highlights: Sequence[Highlight] = (), *, flipped: bool = False) -> BoardView:
    """Levels 3, 2, 1 as three 8x8 panels from left to right, as in the text, turned for Black.

    a1 is dark on every level. Stars and king symbols are marked on every square the rules give
    them, occupied or not (the text can show them only on empty squares).
    """
    marks = markings(state.options)
    pieces: list[list[tuple[Cell, Piece]]] = [[], [], []]
    cell_marks: list[list[tuple[Cell, Mark]]] = [[], [], []]
    for index, piece in enumerate(state.board):
        panel, where = _drawn(index, flipped)
        if piece:
            pieces[panel].append((where, Piece(_KINDS[abs(piece) - 1], piece > 0)))
        if marks.star[index]:
            cell_marks[panel].append((where, Mark.STAR))
        if marks.king_symbol[index]:
            cell_marks[panel].append((where, Mark.KING_SQUARE))
    for name, mark in highlights:
        try:
            panel, where = _drawn(parse_square_name(name), flipped)
        except ValueError:
            continue
        cell_marks[panel].append((where, mark))
    files = tuple(FILES[::-1] if flipped else FILES)
    ranks = tuple(str(r) for r in (range(1, 9) if flipped else range(8, 0, -1)))
    dark = Panel.checkered(8, 8, 1)
    panels = tuple(
        Panel(_TITLES[2 - n], 8, 8, files, ranks, tuple(pieces[n]), tuple(cell_marks[n]), dark, at=(9.0 * n, 0.0))
        for n in range(3))
    return BoardView(panels)
