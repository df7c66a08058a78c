"""The Hyperspace Chess diagram: the python-chess board as letters, White at the bottom unless flipped."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import chess

from pbem.engine.base import Audience, Recipient, Seat
from pbem.engine.board_view import BoardView, Cell, Highlight, Mark, Panel, Piece, PieceKind
from pbem.variants.hyperspace.model import PoolEntry

__all__ = ["Placed", "board_view", "diagram", "knows_square", "placed", "pool_note"]


Placed = tuple[tuple[chess.Square, chess.PieceType, bool], ...]


def placed(board: chess.BaseBoard) -> Placed:
    """Every piece as (square, type, white), read off the board's bitboards one kind and colour at a time:
    python-chess's ``piece_map`` asks each square for its type and makes a ``Piece`` of it (12 against 39 µs a
    board). A move's mails read the same position three times (two diagrams, a picture): the pieces are kept by
    the bitboards they are read from, which say all of it (a board itself may change)."""
    return _placed(board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK], board.pawns, board.knights,
                   board.bishops, board.rooks, board.queens, board.kings)


@lru_cache(maxsize=16)
def _placed(white_men: int, black_men: int, *kinds: int) -> Placed:
    found: list[tuple[chess.Square, chess.PieceType, bool]] = []
    for white, mine in ((True, white_men), (False, black_men)):
        for piece_type, mask in zip(chess.PIECE_TYPES, kinds, strict=True):
            found += [(square, piece_type, white) for square in chess.scan_reversed(mask & mine)]
    return tuple(found)


_LETTERS = {(piece_type, white): chess.piece_symbol(piece_type).upper() if white else chess.piece_symbol(piece_type)
            for piece_type in chess.PIECE_TYPES for white in (True, False)}


def diagram(board: chess.Board, *, flipped: bool) -> str:
    files = "hgfedcba" if flipped else "abcdefgh"
    border = "  " + " ".join(files)
    rows = [["."] * 8 for _ in range(8)]  # rank, file: one pass over the pieces, not 64 square lookups
    for square, piece_type, white in placed(board):
        rows[square >> 3][square & 7] = _LETTERS[piece_type, white]
    lines = [border]
    for rank in range(8) if flipped else range(7, -1, -1):
        cells = rows[rank][::-1] if flipped else rows[rank]
        lines.append(f"{rank + 1} {' '.join(cells)} {rank + 1}")
    lines.append(border)
    return "\n".join(lines)


# -- the picture ----------------------------------------------------------------------------------

_KINDS = {chess.PAWN: PieceKind.PAWN, chess.KNIGHT: PieceKind.KNIGHT, chess.BISHOP: PieceKind.BISHOP,
          chess.ROOK: PieceKind.ROOK, chess.QUEEN: PieceKind.QUEEN, chess.KING: PieceKind.KING}
_PIECES = {(piece_type, white): Piece(kind, white) for piece_type, kind in _KINDS.items() for white in (True, False)}


def _drawn(square: chess.Square, flipped: bool) -> Cell:
    file, rank = chess.square_file(square), chess.square_rank(square)
    return (7 - file, rank) if flipped else (file, 7 - rank)


def knows_square(entry: PoolEntry, audience: Recipient) -> bool:
    """Whether ``audience``'s text view shows the return square of ``entry`` (its private lines do)."""
    return entry.square is not None and (audience is entry.seat or audience is Audience.REFEREE)


def pool_note(entry: PoolEntry, audience: Recipient, over: bool) -> str:
    """One piece in hyperspace as a short note; the return square only for whom may know it."""
    who = entry.seat.value.capitalize()
    line = f"{who} {entry.public} ({entry.name}): "
    line += "never returns, the game is over" if over else f"returns at the end of {who}'s turn {entry.returns}"
    if entry.square is not None and knows_square(entry, audience):
        line += f", to {entry.square.reveal()}"
    elif entry.square is None and (audience is entry.seat or audience is Audience.REFEREE):
        line += ", no return square recorded"
    return line


def board_view(board: chess.Board, pool: Sequence[PoolEntry], audience: Recipient,
               highlights: Sequence[Highlight] = (), *, over: bool = False, flipped: bool | None = None) -> BoardView:
    """The 8x8 board as the text shows it to ``audience`` (turned for Black unless ``flipped`` says), a1 dark.

    The pieces in hyperspace are notes. Only the owner (and the referee, who sees every secret
    in the text too) gets the return squares: in the notes and as PENDING_RETURN marks.
    """
    if flipped is None:
        flipped = audience is Seat.BLACK
    pieces = tuple((_drawn(square, flipped), _PIECES[piece_type, white]) for square, piece_type, white in placed(board))
    marks: list[tuple[Cell, Mark]] = []
    for entry in pool:
        if entry.square is not None and knows_square(entry, audience) and not over:
            marks.append((_drawn(chess.parse_square(entry.square.reveal()), flipped), Mark.PENDING_RETURN))
    for name, mark in highlights:
        if name in chess.SQUARE_NAMES:
            marks.append((_drawn(chess.parse_square(name), flipped), mark))
    files = tuple("hgfedcba" if flipped else "abcdefgh")
    ranks = tuple(str(r) for r in (range(1, 9) if flipped else range(8, 0, -1)))
    panel = Panel("Hyperspace Chess", 8, 8, files, ranks, pieces, tuple(marks), Panel.checkered(8, 8, 1))
    return BoardView((panel,), tuple(pool_note(entry, audience, over) for entry in pool))
