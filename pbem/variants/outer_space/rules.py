"""Outer Space Chess rules: move generation, obligations (A6), playing a move, outcome and perft.

Moves are plain tuples here for speed: ``(origin, target, via, shot)`` with cell indexes,
``via`` = -1 when no Black Hole is named, ``shot`` true for a Spaceship's shot. The pass is
``PASS_MOVE``. The engine converts them to ``Move`` values at its edge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from pbem.engine.base import Outcome, Seat
from pbem.variants.outer_space.geometry import (
    BH_ORDER,
    CLUSTER_CAPTURES,
    CLUSTER_STEPS,
    CLUSTER_ZONE,
    DIAGONAL_RAYS,
    EXIT_STEPS,
    IS_BH,
    KING,
    KING_MASK,
    KNIGHT,
    KNIGHT_MASK,
    ORTHOGONAL_RAYS,
    SHIP_STEPS,
)
from pbem.variants.outer_space.model import (
    EMPTY,
    HYPER_A,
    HYPER_BH,
    HYPER_C,
    NAMES,
    ORDINARY_BLACK_HOLES,
    PIECE_NAMES,
    QUIET_LIMIT,
    OuterSpaceState,
)

__all__ = [
    "PASS_MOVE",
    "Obligation",
    "Played",
    "RawMove",
    "describe_piece",
    "legal_moves",
    "obligations",
    "outcome",
    "perft",
    "play",
    "routes",
    "zone_mask",
    "zone_sources",
]

RawMove = tuple[int, int, int, bool]
PASS_MOVE: Final[RawMove] = (-1, -1, -1, False)
Append = Callable[[RawMove], None]

#: Pieces that may be captured by displacement or shot: never a Galaxy, and a Nebula only by a Galaxy.
_CAPTURABLE: Final = frozenset("CPScps")
_HYPERSPACE: Final = (HYPER_A, HYPER_BH, HYPER_C)


def _owns(white: bool, cell: str) -> bool:
    return cell.isupper() if white else cell.islower()


# -- capture zones (spec 1.5, A15) ------------------------------------------------------------------


def _piece_zone(board: str, index: int) -> int:
    cell = board[index]
    kind = cell.upper()
    if kind == "C":
        return CLUSTER_ZONE[cell.isupper()][index]
    if kind == "P":
        return KNIGHT_MASK[index]
    if kind == "G":
        return KING_MASK[index]
    bits = 0
    for ray in (DIAGONAL_RAYS if kind == "S" else ORTHOGONAL_RAYS)[index]:
        for square in ray:
            bits |= 1 << square
            if board[square] != EMPTY:
                break
    return bits


def zone_mask(board: str, moving: int) -> int:
    """Union of the capture zones of every piece in ordinary space but the Nebula on ``moving``.

    The moving Nebula stays on its square, so it still blocks the other Nebula's rays (A15).
    """
    bits = 0
    for index in range(40):
        if index != moving and board[index] != EMPTY:
            bits |= _piece_zone(board, index)
    return bits


def zone_sources(board: str, moving: int, square: int) -> list[int]:
    """The pieces (cells) whose capture zone holds ``square``, for explaining a refused Nebula move."""
    return [index for index in range(40)
            if index != moving and board[index] != EMPTY and _piece_zone(board, index) >> square & 1]


# -- move generation ----------------------------------------------------------------------------------


def _add_transfer(found: dict[tuple[int, int], int], origin: int, target: int, via: int) -> None:
    """Keep one route per (origin, final square): the alphabetically smallest Black Hole (A17)."""
    key = (origin, target)
    old = found.get(key)
    if old is None or BH_ORDER[via] < BH_ORDER[old]:
        found[key] = via


def _pseudo(board: str, white: bool, nebula_may_move: bool) -> list[RawMove]:
    moves: list[RawMove] = []
    append = moves.append
    hyper_taken = board[HYPER_BH] != EMPTY
    transfers: dict[tuple[int, int], int] = {}
    for index, cell in enumerate(board):
        if cell == EMPTY or not (cell.isupper() if white else cell.islower()):
            continue
        kind = cell.upper()
        if kind == "C":
            for target in CLUSTER_STEPS[white][index]:
                if board[target] == EMPTY:
                    append((index, target, -1, False))
            for target in CLUSTER_CAPTURES[white][index]:
                if board[target] in _CAPTURABLE:
                    append((index, target, -1, False))
        elif kind == "P":
            for target in KNIGHT[index]:
                if board[target] == EMPTY or board[target] in _CAPTURABLE:
                    append((index, target, -1, False))
        elif kind == "N":
            if nebula_may_move:
                _nebula(board, index, append)
        elif kind == "S":
            if index < 40:
                _ship_ordinary(board, index, hyper_taken, append, transfers)
            else:
                _ship_hyper(board, index, append, transfers)
        else:
            _galaxy(board, index, white, append)
    for (origin, target), via in transfers.items():
        append((origin, target, via, False))
    return moves


def _nebula(board: str, index: int, append: Append) -> None:
    zone = -1  # computed only when the Nebula goes further than one square (it is costly)
    for ray in ORTHOGONAL_RAYS[index]:
        previous = -1
        for square in ray:
            if previous >= 0:
                if zone < 0:
                    zone = zone_mask(board, index)
                if zone >> previous & 1:
                    break  # it would cross a square in a capture zone
            cell = board[square]
            if cell == EMPTY:
                append((index, square, -1, False))
                previous = square
                continue
            if cell in _CAPTURABLE:
                append((index, square, -1, False))
            break


def _ship_ordinary(board: str, index: int, hyper_taken: bool, append: Append,
                   transfers: dict[tuple[int, int], int]) -> None:
    for first, second, onward in SHIP_STEPS[index]:
        if board[first] != EMPTY:
            continue  # never captures by displacement; an occupied Black Hole blocks too (A8)
        if IS_BH[first]:
            if not hyper_taken:
                _add_transfer(transfers, index, HYPER_BH, first)
                if onward >= 0 and board[onward] == EMPTY:
                    _add_transfer(transfers, index, onward, first)  # A9 continuation
            continue
        append((index, first, -1, False))
        if second < 0 or board[second] != EMPTY:
            continue
        if IS_BH[second]:
            if not hyper_taken:
                _add_transfer(transfers, index, HYPER_BH, second)
        else:
            append((index, second, -1, False))
    for ray in DIAGONAL_RAYS[index]:
        for square in ray:
            cell = board[square]
            if cell != EMPTY:
                if cell in _CAPTURABLE:
                    append((index, square, -1, True))
                break


def _ship_hyper(board: str, index: int, append: Append, transfers: dict[tuple[int, int], int]) -> None:
    if index == HYPER_BH:
        for side in (HYPER_A, HYPER_C):
            if board[side] == EMPTY:
                append((index, side, -1, False))
        for bh in ORDINARY_BLACK_HOLES:
            if board[bh] != EMPTY:
                continue
            for first, second in EXIT_STEPS[bh]:
                if board[first] != EMPTY or IS_BH[first]:
                    continue  # A10: through empty squares, never over another Black Hole
                _add_transfer(transfers, index, first, bh)
                if second >= 0 and board[second] == EMPTY and not IS_BH[second]:
                    _add_transfer(transfers, index, second, bh)
        return
    if board[HYPER_BH] == EMPTY:  # A18: 2a-2c only over an empty 2b
        append((index, HYPER_BH, -1, False))
        far = HYPER_C if index == HYPER_A else HYPER_A
        if board[far] == EMPTY:
            append((index, far, -1, False))


def _galaxy(board: str, index: int, white: bool, append: Append) -> None:
    enemy_nebula = "n" if white else "N"
    targets: list[int] = []
    if index < 40:
        for square in KING[index]:
            cell = board[square]
            if cell in (EMPTY, enemy_nebula):
                targets.append(square)
    else:
        for square in ((HYPER_BH,) if index != HYPER_BH else (HYPER_A, HYPER_C)):
            if board[square] == EMPTY:
                targets.append(square)
    if IS_BH[index]:
        for bh in (*ORDINARY_BLACK_HOLES, HYPER_BH):
            if bh != index and board[bh] == EMPTY and bh not in targets:
                targets.append(bh)  # warp; a step to an adjacent Black Hole is the same move (A17)
    for square in targets:
        append((index, square, -1, False))


# -- obligations and legal moves ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Obligation:
    """A hyperspace piece of the side to move that must act this turn (A6), or would if it could."""

    square: int
    duty: str  # "enter-bh": move onto 2b; "exit": leave hyperspace
    possible: bool  # false: postponed (2b occupied, or no exit exists)


def obligations(state: OuterSpaceState) -> list[Obligation]:
    """The A6 obligations of the side to move, including postponed ones (for the diagram)."""
    board, white, ages = state.board, state.turn is Seat.WHITE, state.ages
    found: list[Obligation] = []
    for square in (HYPER_A, HYPER_C):
        if board[square] != EMPTY and _owns(white, board[square]) and ages[square - 40] >= 3:
            found.append(Obligation(square, "enter-bh", board[HYPER_BH] == EMPTY))
    if board[HYPER_BH] != EMPTY and _owns(white, board[HYPER_BH]) and ages[1] >= 4:
        moves = _pseudo(board, white, False)
        found.append(Obligation(HYPER_BH, "exit", any(m[0] == HYPER_BH and m[1] < 40 for m in moves)))
    return found


def _legal(state: OuterSpaceState) -> list[RawMove]:
    board = state.board
    white = state.turn is Seat.WHITE
    nebula_moved = state.nebula_moved[0 if white else 1]
    moves = _pseudo(board, white, not nebula_moved)
    ages = state.ages
    if ages[0] >= 3 or ages[1] >= 4 or ages[2] >= 3:
        hyper_free = board[HYPER_BH] == EMPTY
        due: list[RawMove] = []
        for square in (HYPER_A, HYPER_C):
            if hyper_free and ages[square - 40] >= 3 and _owns(white, board[square]):
                due.extend(m for m in moves if m[0] == square and m[1] == HYPER_BH)
        if ages[1] >= 4 and not hyper_free and _owns(white, board[HYPER_BH]):
            due.extend(m for m in moves if m[0] == HYPER_BH and m[1] < 40)
        if due:
            return due
    if not moves and nebula_moved:
        return [PASS_MOVE]  # A4/A16: the forced pass
    return moves


def _finished(state: OuterSpaceState) -> bool:
    board = state.board
    return "N" not in board or "n" not in board or state.quiet >= QUIET_LIMIT


@lru_cache(maxsize=256)
def legal_moves(state: OuterSpaceState) -> tuple[RawMove, ...]:
    """Every legal move of the side to move (empty when the game is over). Memoised: states are values."""
    if _finished(state):
        return ()
    return tuple(_legal(state))


def routes(state: OuterSpaceState, origin: int, target: int) -> list[int]:
    """Every Black Hole through which the Spaceship on ``origin`` can reach ``target`` (for ``/via`` input)."""
    board = state.board
    found: list[int] = []
    if origin == HYPER_BH:
        for bh in ORDINARY_BLACK_HOLES:
            if board[bh] != EMPTY:
                continue
            for first, second in EXIT_STEPS[bh]:
                if board[first] != EMPTY or IS_BH[first]:
                    continue
                if first == target or (second == target and board[second] == EMPTY and not IS_BH[second]):
                    found.append(bh)
    elif origin < 40 and board[HYPER_BH] == EMPTY:
        for first, second, onward in SHIP_STEPS[origin]:
            if board[first] != EMPTY:
                continue
            if IS_BH[first]:
                if target == HYPER_BH or (target == onward and board[onward] == EMPTY):
                    found.append(first)
            elif second >= 0 and IS_BH[second] and board[second] == EMPTY and target == HYPER_BH:
                found.append(second)
    return sorted(set(found), key=NAMES.__getitem__)


# -- playing a move -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Played:
    """What a move did, for records and notes."""

    state: OuterSpaceState
    captured: str  # the captured piece's letter (case = colour), or ""
    obliterated: tuple[int, ...]  # squares of Planets removed by Black Holes (A11 and landing)


def play(state: OuterSpaceState, move: RawMove) -> Played:
    """Apply a legal ``move``; the caller guarantees legality."""
    origin, target, _via, shot = move
    board = state.board
    white = state.turn is Seat.WHITE
    cells = list(board)
    captured = ""
    obliterated: list[int] = []
    moved_nebula = False
    if origin < 0:
        pass
    elif shot:
        captured = cells[target]
        cells[target] = EMPTY
    else:
        piece = cells[origin]
        if cells[target] != EMPTY:
            captured = cells[target]
        cells[target] = piece
        cells[origin] = EMPTY
        kind = piece.upper()
        if kind == "N":
            moved_nebula = True
        elif kind == "P" and IS_BH[target] and cells[HYPER_BH] == EMPTY:
            cells[target] = EMPTY
            obliterated.append(target)
    if board[HYPER_BH] != EMPTY and cells[HYPER_BH] == EMPTY:  # A11: 2b has just been vacated
        for bh in ORDINARY_BLACK_HOLES:
            if cells[bh] in ("P", "p"):
                cells[bh] = EMPTY
                obliterated.append(bh)
    ages = state.ages
    new_ages = [0, 0, 0]
    for square in _HYPERSPACE:
        cell = cells[square]
        if cell == EMPTY:
            continue
        if square == target and not shot:
            # The piece that moved: it keeps counting within hyperspace; an entry turn does not count.
            new_ages[square - 40] = ages[origin - 40] + 1 if origin >= 40 else 0
        elif _owns(white, cell):
            new_ages[square - 40] = ages[square - 40] + 1
        else:
            new_ages[square - 40] = ages[square - 40]
    flags = (moved_nebula, state.nebula_moved[1]) if white else (state.nebula_moved[0], moved_nebula)
    new = OuterSpaceState(
        board="".join(cells),
        turn=Seat.BLACK if white else Seat.WHITE,
        ages=(new_ages[0], new_ages[1], new_ages[2]),
        nebula_moved=flags,
        quiet=0 if captured else state.quiet + 1,
        move_number=state.move_number + (0 if white else 1),
    )
    return Played(new, captured, tuple(obliterated))


# -- the end ----------------------------------------------------------------------------------------------------


def outcome(state: OuterSpaceState) -> Outcome | None:
    board = state.board
    if "n" not in board:
        return Outcome.win(Seat.WHITE, "White's Galaxy captured Black's Nebula")
    if "N" not in board:
        return Outcome.win(Seat.BLACK, "Black's Galaxy captured White's Nebula")
    if state.quiet >= QUIET_LIMIT:
        return Outcome.draw("30-move rule: 30 moves each without a capture")
    if not legal_moves(state):
        return Outcome.draw("stalemate")
    return None


def perft(state: OuterSpaceState, depth: int) -> int:
    """Leaf nodes of the legal-move tree, without the engine's value conversions."""
    if depth == 0:
        return 1
    if _finished(state):
        return 0
    moves = _legal(state)
    if depth == 1:
        return len(moves)
    return sum(perft(play(state, move).state, depth - 1) for move in moves)


def describe_piece(cell: str) -> str:
    """``White's Star Cluster`` for ``C``."""
    return f"{'White' if cell.isupper() else 'Black'}'s {PIECE_NAMES[cell.upper()]}"
