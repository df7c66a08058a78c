"""Tri-d chess values: coordinates, square and pin names, piece codes, moves, options, the state, storage."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "BISHOP",
    "BLACK",
    "BOARD",
    "BOX",
    "CASTLE_K",
    "CASTLE_Q",
    "COLOR_NAMES",
    "EP",
    "FILES",
    "KING",
    "KNIGHT",
    "NORMAL",
    "PAWN",
    "PIECE_LETTERS",
    "PIECE_NAMES",
    "PINS",
    "PIN_CELLS",
    "PIN_INDEX",
    "QUEEN",
    "ROOK",
    "ROOK_PAWN",
    "UNMOVED",
    "WHITE",
    "Move",
    "Pin",
    "Rules",
    "TriDState",
    "color_of",
    "dump_state",
    "file_of",
    "level_of",
    "load_raw",
    "main_board_squares",
    "parse_piece_code",
    "parse_square",
    "piece_code_text",
    "pos",
    "rank_of",
    "square_name",
    "type_of",
]

FILES = "abcdef"
NFILES, NRANKS, NLEVELS = 6, 10, 7
#: Every named position, surface or not: file a-f x rank 0-9 x level 1-7.
BOX = NFILES * NRANKS * NLEVELS

WHITE, BLACK = 0, 1
COLOR_NAMES = ("White", "Black")

# A piece is one small int: type in bits 0-2, colour in bit 3, then two flags that travel with it
# (so a pawn carried by an attack board keeps them without any bookkeeping).
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
BLACK_BIT = 8
#: Never moved: a pawn's double step, a king's or rook's castling right (V11, V17).
UNMOVED = 16
#: The pawn started the game on file a or f, so the rook's-pawn exception applies to it (V16).
ROOK_PAWN = 32

PIECE_LETTERS = " PNBRQK"
PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")

# Move kinds. A piece move names squares; an attack-board move names pin positions (indices into PINS).
NORMAL, EP, CASTLE_K, CASTLE_Q, BOARD = 0, 1, 2, 3, 4


class Move(NamedTuple):
    """One turn: ``kind``, from and to (positions, or pin indices for BOARD), promotion type or 0."""

    kind: int
    src: int
    dst: int
    promo: int = 0


def pos(file: int, rank: int, level: int) -> int:
    """The index of a position; level counts from 1 as in the notation."""
    return ((level - 1) * NRANKS + rank) * NFILES + file


def file_of(p: int) -> int:
    return p % NFILES


def rank_of(p: int) -> int:
    return (p // NFILES) % NRANKS


def level_of(p: int) -> int:
    return p // (NFILES * NRANKS) + 1


def type_of(code: int) -> int:
    return code & 7


def color_of(code: int) -> int:
    return (code >> 3) & 1


def square_name(p: int) -> str:
    return f"{FILES[file_of(p)]}{rank_of(p)}({level_of(p)})"


_SQUARE = re.compile(r"^\s*([a-f])\s*([0-9])\s*\(\s*([1-7])\s*\)\s*$", re.IGNORECASE)


def parse_square(text: str) -> int:
    match = _SQUARE.match(text)
    if match is None:
        raise ValueError(f"not a square: {text!r} (write e.g. b1(2))")
    return pos(FILES.index(match.group(1).lower()), int(match.group(2)), int(match.group(3)))


#: The main boards: (level, lowest rank); each covers files b-e and four ranks.
MAIN_BOARDS = ((2, 1), (4, 3), (6, 5))


def main_board_squares() -> tuple[int, ...]:
    return tuple(pos(f, r, lv) for lv, low in MAIN_BOARDS for r in range(low, low + 4) for f in range(1, 5))


@dataclass(frozen=True, slots=True)
class Pin:
    """One of the 24 attack-board positions, named by its pin square (spec 2.2)."""

    file: int  # 1 (b) or 4 (e)
    rank: int
    level: int
    attached: int  # level of the main board it hangs on
    outer_file: int  # 0 (a) or 5 (f)
    outer_rank: int  # rank - 1 at a rear corner, rank + 1 at a front corner

    @property
    def name(self) -> str:
        return f"{FILES[self.file]}{self.rank}({self.level})"

    @property
    def cells(self) -> tuple[int, int, int, int]:
        """Pin cell, outer-file cell, outer-rank cell, outer corner: a carried pawn keeps its index (V10)."""
        return (pos(self.file, self.rank, self.level), pos(self.outer_file, self.rank, self.level),
                pos(self.file, self.outer_rank, self.level), pos(self.outer_file, self.outer_rank, self.level))


def _pins() -> tuple[Pin, ...]:
    found: list[Pin] = []
    for mb_level, low in MAIN_BOARDS:
        for level in (mb_level - 1, mb_level + 1):
            for rank, outer in ((low, low - 1), (low + 3, low + 4)):
                for file, outer_file in ((1, 0), (4, 5)):
                    found.append(Pin(file, rank, level, mb_level, outer_file, outer))
    return tuple(sorted(found, key=lambda p: (p.level, p.rank, p.file)))


PINS: tuple[Pin, ...] = _pins()
#: The cells of each pin position, in Pin.cells order (precomputed: hot in move generation).
PIN_CELLS: tuple[tuple[int, int, int, int], ...] = tuple(p.cells for p in PINS)
PIN_INDEX: dict[str, int] = {p.name: i for i, p in enumerate(PINS)}


@dataclass(frozen=True, slots=True)
class Rules:
    """The per-game options (spec 2.5); the defaults are the rulings."""

    castle_on_first_move: bool = True  # V6: Victor allows it; Meder forbids it
    carried_double_step: bool = True  # V11: a carried pawn keeps its double step; Meder removes it
    knight_two_routes: bool = True  # V7: either route for the knight's one-level component


@dataclass(frozen=True, slots=True)
class TriDState:
    """A position with everything that can change during play.

    ``board`` has one int per position (0 = empty); ``boards`` holds the four attack
    boards as sorted (pin index, owner) pairs; ``ep`` is the square a double step
    skipped when an en-passant capture is really possible, else -1; ``history`` holds
    position keys since the last irreversible move, the current one last.
    """

    board: tuple[int, ...]
    boards: tuple[tuple[int, int], ...]
    turn: int = WHITE
    ep: int = -1
    halfmove: int = 0
    fullmove: int = 1
    history: tuple[str, ...] = ()
    rules: Rules = Rules()


_DUMP_FORMAT = "tri-d/1"
_CODE = re.compile(r"^([PNBRQKpnbrqk])(\*?)(\^?)$")


def piece_code_text(code: int) -> str:
    """A piece as stored: letter (upper case White), ``*`` if unmoved, ``^`` if a rook's pawn."""
    letter = PIECE_LETTERS[type_of(code)]
    letter = letter.lower() if color_of(code) == BLACK else letter
    return letter + ("*" if code & UNMOVED else "") + ("^" if code & ROOK_PAWN else "")


def parse_piece_code(text: str) -> int:
    match = _CODE.match(text)
    if match is None:
        raise ValueError(f"bad piece {text!r}: write a letter such as P, n, K* or P*^")
    letter, unmoved, rook_pawn = match.groups()
    code = PIECE_LETTERS.index(letter.upper()) | (BLACK_BIT if letter.islower() else 0)
    if unmoved:
        code |= UNMOVED
    if rook_pawn:
        if letter.upper() != "P":
            raise ValueError(f"bad piece {text!r}: only a pawn can be a rook's pawn (^)")
        code |= ROOK_PAWN
    return code


def dump_state(state: TriDState) -> dict[str, Any]:
    return {
        "format": _DUMP_FORMAT,
        "pieces": {square_name(p): piece_code_text(c) for p, c in enumerate(state.board) if c},
        "boards": [{"pin": PINS[pin].name, "owner": COLOR_NAMES[owner].lower()} for pin, owner in state.boards],
        "turn": COLOR_NAMES[state.turn].lower(),
        "ep": None if state.ep < 0 else square_name(state.ep),
        "halfmove": state.halfmove,
        "fullmove": state.fullmove,
        "history": list(state.history),
        "rules": {
            "castle_on_first_move": state.rules.castle_on_first_move,
            "carried_double_step": state.rules.carried_double_step,
            "knight_two_routes": state.rules.knight_two_routes,
        },
    }


def load_raw(data: Mapping[str, Any]) -> TriDState:
    """The stored form as a state, checking names and types but not the rules (see rules.load)."""
    if data.get("format") != _DUMP_FORMAT:
        raise ValueError(f"not a tri-d state: format {data.get('format')!r}")
    board = [0] * BOX
    for name, text in dict(data.get("pieces", {})).items():
        board[parse_square(str(name))] = parse_piece_code(str(text))
    boards: list[tuple[int, int]] = []
    for item in data.get("boards", []):
        pin = PIN_INDEX.get(str(item["pin"]).lower())
        if pin is None:
            raise ValueError(f"bad attack-board pin {item['pin']!r}")
        owner = ("white", "black").index(str(item["owner"]).lower())
        boards.append((pin, owner))
    turn = ("white", "black").index(str(data.get("turn", "white")).lower())
    ep = data.get("ep")
    raw_rules = dict(data.get("rules", {}))
    rules = Rules(**{k: bool(v) for k, v in raw_rules.items() if k in Rules.__dataclass_fields__})
    return TriDState(
        board=tuple(board),
        boards=tuple(sorted(boards)),
        turn=turn,
        ep=-1 if ep is None else parse_square(str(ep)),
        halfmove=int(data.get("halfmove", 0)),
        fullmove=int(data.get("fullmove", 1)),
        history=tuple(str(h) for h in data.get("history", [])),
        rules=rules,
    )
