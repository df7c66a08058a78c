"""Outer Space Chess values: squares, geometry tables, actions, the state and its position string."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from pbem.engine.base import Seat

__all__ = [
    "BLACK_HOLES",
    "EMPTY",
    "HYPER_BH",
    "INITIAL_POSITION",
    "NAMES",
    "ORDINARY_BLACK_HOLES",
    "PASS",
    "PIECE_NAMES",
    "QUIET_LIMIT",
    "SQUARES",
    "WHITE_ON_RANK_1",
    "Action",
    "Move",
    "OuterSpaceState",
    "Pass",
    "dump_state",
    "format_position",
    "load_state",
    "parse_position",
]

#: A1: White is the side on ranks 1-3 (Galaxy on 2c) and moves first. Set to False to give White
#: the ranks 6-8 army instead; the array is mirror-symmetric, so only labels depend on this.
WHITE_ON_RANK_1: Final = True

#: A12: the game is drawn after this many consecutive plies without a capture (30 moves each).
QUIET_LIMIT: Final = 60

FILES: Final = "abcde"
EMPTY: Final = "."
#: Cells 0..39 are ordinary space (index = 5 * (rank - 1) + file), 40..42 are hyperspace 2a 2b 2c.
NAMES: Final[tuple[str, ...]] = tuple(
    [f"1{FILES[i % 5]}{i // 5 + 1}" for i in range(40)] + ["2a", "2b", "2c"])
SQUARES: Final[dict[str, int]] = {name: index for index, name in enumerate(NAMES)}
HYPER_A, HYPER_BH, HYPER_C = 40, 41, 42
ORDINARY_BLACK_HOLES: Final[tuple[int, ...]] = tuple(SQUARES[n] for n in ("1b3", "1d3", "1c4", "1c5", "1b6", "1d6"))
BLACK_HOLES: Final[frozenset[int]] = frozenset((*ORDINARY_BLACK_HOLES, HYPER_BH))

PIECE_NAMES: Final[dict[str, str]] = {
    "C": "Star Cluster", "P": "Planet", "S": "Spaceship", "G": "Galaxy", "N": "Nebula"}

#: The seed's array with White on ranks 1-3; upper case is White here (seed diagram: lower case).
_HOME_RANKS: Final = {1: "CPNPC", 2: ".CSC.", 3: "..C.."}


def _initial_board() -> str:
    cells = [EMPTY] * 43
    for rank, row in _HOME_RANKS.items():
        for file, letter in enumerate(row):
            if letter == EMPTY:
                continue
            white_rank = rank if WHITE_ON_RANK_1 else 9 - rank
            cells[5 * (white_rank - 1) + file] = letter
            cells[5 * (8 - white_rank) + file] = letter.lower()
    # The Galaxy of the rank-1 side starts on 2c, the other on 2a (seed array, A1).
    cells[HYPER_C if WHITE_ON_RANK_1 else HYPER_A] = "G"
    cells[HYPER_A if WHITE_ON_RANK_1 else HYPER_C] = "g"
    return "".join(cells)


@dataclass(frozen=True, slots=True)
class Move:
    """One move: ``piece`` (upper-case letter) from ``origin`` to ``target``.

    For a Spaceship's shot ``capture`` is true and ``target`` is the square shot at (the
    ship stays). ``via`` is the Black Hole a Spaceship passes when it enters or leaves
    hyperspace: the alphabetically smallest legal one (A17), informational only.
    """

    piece: str
    origin: str
    target: str
    capture: bool = False
    via: str | None = None

    @property
    def is_shot(self) -> bool:
        return self.piece == "S" and self.capture


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass of A4/A16."""


PASS: Final = Pass()
Action = Move | Pass


@dataclass(frozen=True, slots=True)
class OuterSpaceState:
    """A position.

    ``board`` has 43 cells (see ``NAMES``): ``.`` empty, upper case White, lower case Black.
    ``ages`` is the A6 age of the piece on 2a, 2b, 2c (0 where empty). ``nebula_moved`` says,
    for White and Black, whether that side's last turn was a Nebula move. ``quiet`` counts
    plies since the last capture (A12); ``move_number`` is the full-move number.
    """

    board: str
    turn: Seat = Seat.WHITE
    ages: tuple[int, int, int] = (0, 0, 0)
    nebula_moved: tuple[bool, bool] = (False, False)
    quiet: int = 0
    move_number: int = 1


# -- the position string ----------------------------------------------------------------------------
#
# FEN-like, one line, seven fields separated by spaces:
#   ranks 8..1 of ordinary space separated by "/" (digits = runs of empty squares),
#   hyperspace 2a2b2c (same letters and digits), side to move (w/b), ages of 2a,2b,2c ("0,0,3"),
#   Nebula-moved-last-turn flags ("-", "w", "b" or "wb"), plies without capture, move number.
# The initial position is
#   cpnpc/1csc1/2c2/5/5/2C2/1CSC1/CPNPC g1G w 0,0,0 - 0 1

_ROW = re.compile(r"^[CPSGNcpsgn1-5]+$")


def _encode_row(cells: str) -> str:
    out, run = [], 0
    for cell in cells:
        if cell == EMPTY:
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append(cell)
    if run:
        out.append(str(run))
    return "".join(out)


def _decode_row(text: str, width: int, what: str) -> str:
    if not _ROW.match(text):
        raise ValueError(f"bad {what} {text!r}: use C P S G N (upper case White), digits for empty squares")
    cells = "".join(EMPTY * int(ch) if ch.isdigit() else ch for ch in text)
    if len(cells) != width:
        raise ValueError(f"bad {what} {text!r}: it has {len(cells)} squares, not {width}")
    return cells


def format_position(state: OuterSpaceState) -> str:
    rows = [_encode_row(state.board[5 * (rank - 1): 5 * rank]) for rank in range(8, 0, -1)]
    flags = ("w" if state.nebula_moved[0] else "") + ("b" if state.nebula_moved[1] else "")
    return " ".join([
        "/".join(rows), _encode_row(state.board[40:43]), "w" if state.turn is Seat.WHITE else "b",
        ",".join(str(a) for a in state.ages), flags or "-", str(state.quiet), str(state.move_number)])


def parse_position(text: str) -> OuterSpaceState:
    """The state written by ``format_position``; ValueError says what is wrong."""
    fields = text.split()
    if len(fields) != 7:
        raise ValueError(f"a position has 7 fields (board, hyperspace, side, ages, nebula flags, quiet plies, "
                         f"move number), not {len(fields)}: {text!r}")
    ranks = fields[0].split("/")
    if len(ranks) != 8:
        raise ValueError(f"ordinary space has 8 ranks separated by '/', not {len(ranks)}")
    board = "".join(_decode_row(ranks[8 - rank], 5, f"rank {rank}") for rank in range(1, 9))
    board += _decode_row(fields[1], 3, "hyperspace")
    if fields[2] not in ("w", "b"):
        raise ValueError(f"side to move must be 'w' or 'b', not {fields[2]!r}")
    try:
        ages = tuple(int(a) for a in fields[3].split(","))
        quiet, number = int(fields[5]), int(fields[6])
    except ValueError:
        raise ValueError(f"ages, quiet plies and move number must be whole numbers: {text!r}") from None
    if len(ages) != 3 or min(ages) < 0:
        raise ValueError(f"ages are three numbers >= 0 for 2a,2b,2c, e.g. '0,0,3', not {fields[3]!r}")
    if fields[4] not in ("-", "w", "b", "wb"):
        raise ValueError(f"nebula flags must be '-', 'w', 'b' or 'wb', not {fields[4]!r}")
    if quiet < 0 or number < 1:
        raise ValueError("quiet plies must be >= 0 and the move number >= 1")
    state = OuterSpaceState(board, Seat.WHITE if fields[2] == "w" else Seat.BLACK,
                            (ages[0], ages[1], ages[2]), ("w" in fields[4], "b" in fields[4]), quiet, number)
    _validate(state)
    return state


def _validate(state: OuterSpaceState) -> None:
    board = state.board
    for letter in "CPSGN":
        for piece, limit in ((letter, 5 if letter == "C" else 2 if letter == "P" else 1),
                             (letter.lower(), 5 if letter == "C" else 2 if letter == "P" else 1)):
            if board.count(piece) > limit:
                raise ValueError(f"too many {piece!r} pieces: at most {limit}")
    for index in range(40, 43):
        if board[index] not in "GSgs" + EMPTY:
            raise ValueError(f"only Galaxies and Spaceships can be in hyperspace, not {board[index]!r} on "
                             f"{NAMES[index]}")
        if board[index] == EMPTY and state.ages[index - 40]:
            raise ValueError(f"an empty hyperspace square has no age ({NAMES[index]})")
    for index in ORDINARY_BLACK_HOLES:
        if board[index] in "Ss":
            raise ValueError(f"a Spaceship never stands on a Black Hole in ordinary space ({NAMES[index]})")
        if board[index] in "Pp" and board[HYPER_BH] == EMPTY:
            raise ValueError(f"a Planet on a Black Hole ({NAMES[index]}) needs an occupied 2b")


INITIAL_POSITION: Final = format_position(OuterSpaceState(_initial_board()))

_DUMP_FORMAT = "outer-space/1"


def dump_state(state: OuterSpaceState) -> dict[str, Any]:
    return {"format": _DUMP_FORMAT, "position": format_position(state)}


def load_state(data: Mapping[str, Any]) -> OuterSpaceState:
    if data.get("format") != _DUMP_FORMAT:
        raise ValueError(f"not an outer space chess state: format {data.get('format')!r}")
    return parse_position(str(data["position"]))
