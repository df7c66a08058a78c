"""The Hyperspace Chess diagram: the python-chess board as letters, White at the bottom unless flipped."""

from __future__ import annotations

import chess

__all__ = ["diagram"]


def diagram(board: chess.Board, *, flipped: bool) -> str:
    files = "hgfedcba" if flipped else "abcdefgh"
    ranks = range(8) if flipped else range(7, -1, -1)
    border = "  " + " ".join(files)
    lines = [border]
    for rank in ranks:
        cells = []
        for file_letter in files:
            piece = board.piece_at(chess.square(ord(file_letter) - ord("a"), rank))
            cells.append(piece.symbol() if piece else ".")
        lines.append(f"{rank + 1} {' '.join(cells)} {rank + 1}")
    lines.append(border)
    return "\n".join(lines)
