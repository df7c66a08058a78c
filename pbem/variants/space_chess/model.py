"""Space Chess values: squares, pieces, options, the move, the immutable state and its storage form."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = [
    "BISHOP",
    "BLACK",
    "CENTRE_STARS",
    "DEFAULT_OPTIONS",
    "FILES",
    "KING",
    "KING_SYMBOLS",
    "KNIGHT",
    "LEVELS",
    "OPTION_CHOICES",
    "OUTER_STARS",
    "PAWN",
    "PIECE_LETTERS",
    "PIECE_NAMES",
    "QUEEN",
    "ROOK",
    "WHITE",
    "Move",
    "Options",
    "SpaceState",
    "dump_state",
    "load_state",
    "parse_options",
    "square",
    "square_name",
]

#: Levels are 0, 1, 2 inside the engine and 1 (bottom), 2 (middle), 3 (top) in notation (spec 3.6).
LEVELS = 3
FILES = "abcdefgh"

#: Side to move and piece colour: +1 White, -1 Black; a board cell holds colour * piece type (0 = empty).
WHITE, BLACK = 1, -1
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6
PIECE_LETTERS = ".PNBRQK"
PIECE_NAMES = {PAWN: "pawn", KNIGHT: "knight", BISHOP: "bishop", ROOK: "rook", QUEEN: "queen", KING: "king"}

#: Markings, identical on every level (S2); squares are 0..63 within a level (rank * 8 + file).
OUTER_STARS = (2 * 8 + 2, 2 * 8 + 5, 5 * 8 + 2, 5 * 8 + 5)  # c3, f3, c6, f6
CENTRE_STARS = (3 * 8 + 3, 3 * 8 + 4, 4 * 8 + 3, 4 * 8 + 4)  # d4, e4, d5, e5: "the centre" (S1)
KING_SYMBOLS = (0 * 8 + 5, 7 * 8 + 5)  # f1, f8

_DUMP_FORMAT = "space-chess/1"


def square(level: int, rank: int, file: int) -> int:
    """The index 0..191 of a square; level, rank and file count from 0."""
    return level * 64 + rank * 8 + file


def square_name(index: int) -> str:
    """``e4(2)``: file, rank and the level number 1..3 (spec 3.6)."""
    level, rest = divmod(index, 64)
    rank, file = divmod(rest, 8)
    return f"{FILES[file]}{rank + 1}({level + 1})"


_SQUARE_NAME = re.compile(r"^([a-h])([1-8])\(([123])\)$")


def parse_square_name(name: str) -> int:
    match = _SQUARE_NAME.match(name)
    if match is None:
        raise ValueError(f"not a space chess square: {name!r} (write e.g. 'e4(2)')")
    file, rank, level = match.groups()
    return square(int(level) - 1, int(rank) - 1, FILES.index(file))


class Move(NamedTuple):
    """One move: ``origin`` -> ``landing`` on the origin level, then the transfer to ``final``.

    ``final == landing`` when the piece stays on its level. Castling is the king's two-file
    move (the rook follows, on the same final level); ``promotion`` is a piece type or 0.
    """

    origin: int
    landing: int
    final: int
    promotion: int = 0


#: The per-game options (spec: a ruling that names an option gives the default; the option is the other reading).
OPTION_CHOICES: dict[str, tuple[str, ...]] = {
    "promotion": ("any-level", "enemy-level"),  # S9
    "first-move-stay": ("last-resort", "in-check"),  # S5: the seed's reading, or the video's
    "centre-star": ("yes", "no"),  # S1: are d4, e4, d5, e5 stars?
    "two-level": ("all", "pawns"),  # S7: who may transfer two levels on a first move
}
_KEY_ALIASES = {"center-star": "centre-star", "stay": "first-move-stay"}
_VALUE_ALIASES = {"on": "yes", "true": "yes", "off": "no", "false": "no", "any": "any-level",
                  "enemy": "enemy-level"}


@dataclass(frozen=True, slots=True)
class Options:
    """The rules variations in force for one game (all defaults = the rulings of spec 3.5)."""

    promotion: str = "any-level"
    first_move_stay: str = "last-resort"
    centre_star: str = "yes"
    two_level: str = "all"

    def as_dict(self) -> dict[str, str]:
        return {"promotion": self.promotion, "first-move-stay": self.first_move_stay,
                "centre-star": self.centre_star, "two-level": self.two_level}

    def changed(self) -> dict[str, str]:
        """Only the options that differ from the defaults, in a fixed order."""
        default = DEFAULT_OPTIONS.as_dict()
        return {key: value for key, value in self.as_dict().items() if value != default[key]}

    @property
    def stars(self) -> tuple[int, ...]:
        return OUTER_STARS + (CENTRE_STARS if self.centre_star == "yes" else ())


DEFAULT_OPTIONS = Options()


def parse_options(options: Mapping[str, object] | None) -> Options:
    """Validated options; unknown keys or values raise ValueError naming what is accepted."""
    chosen: dict[str, str] = {}
    for raw_key, raw_value in (options or {}).items():
        key = str(raw_key).strip().lower()
        key = _KEY_ALIASES.get(key, key)
        if key not in OPTION_CHOICES:
            known = ", ".join(OPTION_CHOICES)
            raise ValueError(f"unknown option {raw_key!r} for space chess (known options: {known})")
        value = str(raw_value).strip().lower()
        value = _VALUE_ALIASES.get(value, value)
        if value not in OPTION_CHOICES[key]:
            valid = " or ".join(OPTION_CHOICES[key])
            raise ValueError(f"bad value {raw_value!r} for option {key}: use {valid}")
        chosen[key.replace("-", "_")] = value
    return Options(**chosen)


@dataclass(frozen=True, slots=True)
class SpaceState:
    """A position and everything that decides its future.

    ``board`` has 192 cells (level * 64 + rank * 8 + file) holding colour * piece type.
    ``unmoved`` is a bit set of squares whose piece has never moved: those pieces still owe
    their first-move transfer, and the king and rooks among them may castle.
    ``ep`` is the square skipped by a double step, on the level where the pawn ended (S12), or -1.
    ``history`` holds position keys since the last irreversible move, the current one last.
    """

    board: tuple[int, ...]
    turn: int = WHITE
    unmoved: int = 0
    ep: int = -1
    halfmove: int = 0
    fullmove: int = 1
    options: Options = DEFAULT_OPTIONS
    history: tuple[str, ...] = ()

    def __hash__(self) -> int:
        # The engine caches by state; the last history key already digests board, side, rights and e.p.,
        # so hashing it is much cheaper than hashing 192 cells (equality still compares every field).
        return hash((self.history[-1] if self.history else self.board, self.turn, self.halfmove, self.fullmove,
                     len(self.history)))


def _level_text(board: tuple[int, ...], level: int) -> str:
    cells = board[level * 64:(level + 1) * 64]
    return "".join(PIECE_LETTERS[abs(p)].lower() if p < 0 else PIECE_LETTERS[p] for p in cells)


def dump_state(state: SpaceState) -> dict[str, Any]:
    """JSON-ready form; each level is 64 characters from a1 to h8 (rank 1 first), '.' empty."""
    return {
        "format": _DUMP_FORMAT,
        "levels": [_level_text(state.board, level) for level in range(LEVELS)],
        "turn": "white" if state.turn == WHITE else "black",
        "unmoved": [square_name(i) for i in range(192) if state.unmoved >> i & 1],
        "ep": None if state.ep < 0 else square_name(state.ep),
        "halfmove": state.halfmove,
        "fullmove": state.fullmove,
        "options": state.options.as_dict(),
        "history": list(state.history),
    }


def load_state(data: Mapping[str, Any]) -> SpaceState:
    """The inverse of ``dump_state``; malformed data raises ValueError."""
    if data.get("format") != _DUMP_FORMAT:
        raise ValueError(f"not a space chess state: format {data.get('format')!r}")
    levels = data.get("levels")
    if not isinstance(levels, list) or len(levels) != LEVELS or any(
            not isinstance(text, str) or len(text) != 64 for text in levels):
        raise ValueError("a space chess state needs three levels of 64 characters")
    board: list[int] = []
    for text in levels:
        for char in text:
            index = PIECE_LETTERS.find(char.upper())
            if index < 0:
                raise ValueError(f"bad piece character {char!r} in a space chess state")
            board.append(0 if index == 0 else (index if char.isupper() else -index))
    for colour, name in ((WHITE, "white"), (BLACK, "black")):
        if board.count(colour * KING) != 1:
            raise ValueError(f"a space chess position needs exactly one {name} king")
    turn = {"white": WHITE, "black": BLACK}.get(str(data.get("turn")))
    if turn is None:
        raise ValueError(f"bad side to move {data.get('turn')!r}")
    unmoved = 0
    for name in data.get("unmoved", []):
        index = parse_square_name(str(name))
        if board[index] == 0:
            raise ValueError(f"unmoved square {name} is empty")
        unmoved |= 1 << index
    ep_name = data.get("ep")
    ep = -1 if ep_name is None else parse_square_name(str(ep_name))
    options = parse_options(data.get("options", {}))
    return SpaceState(board=tuple(board), turn=turn, unmoved=unmoved, ep=ep, halfmove=int(data["halfmove"]),
                      fullmove=int(data["fullmove"]), options=options,
                      history=tuple(str(key) for key in data.get("history", [])))
