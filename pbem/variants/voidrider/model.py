"""Voidrider Chess values: the move, the position (pieces and spaces in one string) and its storage form."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.engine.base import Seat
from pbem.variants.voidrider.geometry import CELLS, HEIGHT, SQUARE_NAMES, WIDTH, cell

__all__ = [
    "EMPTY",
    "INITIAL_BOARD",
    "PIECE_NAMES",
    "PROMOTIONS",
    "VOID",
    "Move",
    "VoidriderState",
    "board_from_rows",
    "board_rows",
    "dump_state",
    "load_state",
    "position_key",
]

#: A cell of the board string: void, an empty space, or a piece (upper case White) on a space.
VOID = " "
EMPTY = "."
PIECE_NAMES = {"K": "king", "R": "rook", "B": "bishop", "N": "knight", "P": "pawn", "V": "Voidrider"}
#: W6: what a pawn may become on the last rank (there is no queen).
PROMOTIONS = "VRBN"
_CASTLING_LETTERS = "AGag"
_DUMP_FORMAT = "voidrider-chess/1"


@dataclass(frozen=True, slots=True)
class Move:
    """One action: an ordinary move, a space move (``space``) or castling (the king's two-cell move).

    Cells are indexes of the 7x9 area (``geometry.parse_square``); ``promotion`` is an
    upper-case letter of PROMOTIONS or None.
    """

    from_cell: int
    to_cell: int
    space: bool = False
    promotion: str | None = None

    @property
    def uci(self) -> str:
        sep = "~" if self.space else ""
        promo = (self.promotion or "").lower()
        return f"{SQUARE_NAMES[self.from_cell]}{sep}{SQUARE_NAMES[self.to_cell]}{promo}"


def board_from_rows(rows: Sequence[str]) -> str:
    """The board string from nine rows of seven characters, rank 9 first (as a diagram reads)."""
    if len(rows) != HEIGHT or any(len(row) != WIDTH for row in rows):
        raise ValueError(f"a board is {HEIGHT} rows of {WIDTH} cells, rank 9 first")
    cells = [VOID] * CELLS
    for index, row in enumerate(rows):
        rank = HEIGHT - 1 - index
        for file, char in enumerate(row):
            cells[cell(file, rank)] = char
    board = "".join(cells)
    bad = set(board) - set(VOID + EMPTY + "KRBNPVkrbnpv")
    if bad:
        raise ValueError(f"unknown board characters {sorted(bad)!r}: use ' ' void, '.' empty space, KRBNPV/krbnpv")
    return board


def board_rows(board: str) -> list[str]:
    """The inverse of board_from_rows."""
    return [board[cell(0, rank):cell(0, rank) + WIDTH] for rank in range(HEIGHT - 1, -1, -1)]


INITIAL_BOARD = board_from_rows([
    " v   v ",
    "rnbkbnr",
    " ppppp ",
    " ..... ",
    " ..... ",
    " ..... ",
    " PPPPP ",
    "RNBKBNR",
    " V   V ",
])


def position_key(board: str, turn: Seat, castling: str) -> str:
    """W10: a repetition compares pieces and spaces (both in ``board``), the side to move and castling."""
    return f"{board}|{turn.value[0]}|{castling}"


@dataclass(frozen=True, slots=True)
class VoidriderState:
    """A position. ``board`` holds 63 cells (index = rank * 7 + file): ' ' void, '.' empty space,
    or a piece letter standing on a space, upper case White.

    ``castling`` keeps the letters of the rights left: A/G for White with the a-/g-file rook,
    a/g for Black. ``history`` holds the position keys since the last irreversible move,
    the current position last.
    """

    board: str = INITIAL_BOARD
    turn: Seat = Seat.WHITE
    castling: str = _CASTLING_LETTERS
    halfmove: int = 0
    fullmove: int = 1
    history: tuple[str, ...] = (position_key(INITIAL_BOARD, Seat.WHITE, _CASTLING_LETTERS),)


def dump_state(state: VoidriderState) -> dict[str, Any]:
    return {
        "format": _DUMP_FORMAT,
        "board": board_rows(state.board),
        "turn": state.turn.value,
        "castling": state.castling,
        "halfmove": state.halfmove,
        "fullmove": state.fullmove,
        "history": list(state.history),
    }


def load_state(data: Mapping[str, Any]) -> VoidriderState:
    """A state from dump_state's form; ``history`` may be left out (then it is the position alone)."""
    if data.get("format") != _DUMP_FORMAT:
        raise ValueError(f"not a voidrider chess state: format {data.get('format')!r}")
    board = board_from_rows([str(row) for row in data["board"]])
    for king in "Kk":
        if board.count(king) != 1:
            raise ValueError(f"a position needs exactly one {'white' if king == 'K' else 'black'} king")
    turn = Seat(str(data.get("turn", "white")))
    castling = str(data.get("castling", ""))
    if any(letter not in _CASTLING_LETTERS for letter in castling) or len(set(castling)) != len(castling):
        raise ValueError(f"bad castling rights {castling!r}: a subset of 'AGag'")
    castling = "".join(letter for letter in _CASTLING_LETTERS if letter in castling)
    halfmove, fullmove = int(data.get("halfmove", 0)), int(data.get("fullmove", 1))
    if halfmove < 0 or fullmove < 1:
        raise ValueError(f"bad move counters: halfmove {halfmove}, fullmove {fullmove}")
    key = position_key(board, turn, castling)
    history = tuple(str(item) for item in data.get("history", ())) or (key,)
    if history[-1] != key:
        raise ValueError("the last history entry must be the current position")
    return VoidriderState(board, turn, castling, halfmove, fullmove, history)
