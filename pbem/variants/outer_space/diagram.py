"""The ASCII diagram: ordinary space and hyperspace side by side, with ages, duties and a legend."""

from __future__ import annotations

from collections.abc import Sequence

from pbem.engine.base import Seat
from pbem.engine.board_view import BoardView, Cell, Highlight, Mark, Panel, Piece, PieceKind
from pbem.variants.outer_space.geometry import IS_BH
from pbem.variants.outer_space.model import EMPTY, HYPER_BH, NAMES, PIECE_NAMES, SQUARES, OuterSpaceState
from pbem.variants.outer_space.rules import obligations

__all__ = ["board_view", "diagram", "hyperspace_lines"]

_GAP = "    "
_LEGEND = (
    "Upper case: White (moves up), lower case: Black (moves down).",
    "C Star Cluster  P Planet  S Spaceship  G Galaxy  N Nebula",
    ". empty   * Black Hole   *C* a piece on a Black Hole",
    "Hyperspace limit (A6): a piece of age 3 on 2a/2c must move to 2b,",
    "one of age 4 on 2b must leave; age = its owner's turns there.",
)


def _cell(board: str, index: int) -> str:
    piece = board[index]
    if IS_BH[index]:
        return " * " if piece == EMPTY else f"*{piece}*"
    return " . " if piece == EMPTY else f" {piece} "


def hyperspace_lines(state: OuterSpaceState) -> list[str]:
    """One line per piece in hyperspace, with its age and duty, e.g. ``2c: White Galaxy, age 3``."""
    board = state.board
    duties = {o.square: o for o in obligations(state)}
    lines: list[str] = []
    for index in range(40, 43):
        piece = board[index]
        if piece == EMPTY:
            continue
        owner = Seat.WHITE if piece.isupper() else Seat.BLACK
        lines.append(f"{NAMES[index]}: {owner.value.capitalize()} {PIECE_NAMES[piece.upper()]}, "
                     f"age {state.ages[index - 40]}")
        age = state.ages[index - 40]
        if index == HYPER_BH and age >= 4:
            duty = duties.get(index)
            if duty is None:
                lines.append("  must leave on its next turn")
            else:
                lines.append("  must leave now" if duty.possible else "  must leave when it can")
        elif index != HYPER_BH and age >= 3:
            free = board[HYPER_BH] == EMPTY
            lines.append("  must move to 2b" if free else "  must move to 2b once free")
    return lines


def diagram(state: OuterSpaceState) -> str:
    board = state.board
    files = "     a   b   c   d   e"
    rule = "   +---+---+---+---+---+"
    left = ["Ordinary space (1)", files, rule]
    for rank in range(8, 0, -1):
        cells = "|".join(_cell(board, 5 * (rank - 1) + f) for f in range(5))
        left.append(f" {rank} |{cells}| {rank}")
    left += [rule, files]
    right = ["Hyperspace (2)", "    a   b   c", "  +---+---+---+",
             "  |" + "|".join(_cell(board, i) for i in range(40, 43)) + "|", "  +---+---+---+", ""]
    right += hyperspace_lines(state) or ["(empty)"]
    width = max(len(line) for line in left)
    rows = max(len(left), len(right))
    lines = []
    for n in range(rows):
        lhs = left[n] if n < len(left) else ""
        rhs = right[n] if n < len(right) else ""
        lines.append((lhs.ljust(width) + _GAP + rhs).rstrip())
    return "\n".join([*lines, "", *_LEGEND])


# -- the picture ----------------------------------------------------------------------------------

_KINDS = {"C": PieceKind.STAR_CLUSTER, "P": PieceKind.PLANET, "S": PieceKind.SPACESHIP,
          "G": PieceKind.GALAXY, "N": PieceKind.NEBULA}


def _locate(index: int) -> tuple[int, Cell]:
    """Panel (0 ordinary space, 1 hyperspace) and drawn cell of board index ``index``."""
    if index >= 40:
        return 1, (index - 40, 0)
    return 0, (index % 5, 7 - index // 5)


def board_view(state: OuterSpaceState, highlights: Sequence[Highlight] = ()) -> BoardView:
    """The picture of the text diagram: one orientation for every audience, as the text has.

    Ordinary space is a 5x8 panel (rank 8 at the top) whose a1 is dark, as on a chessboard;
    hyperspace is a 1x3 panel beside its top right with 2b dark (it is the hyperspace Black Hole).
    Black Holes carry BLACK_HOLE marks; the ages and duties of the text are the notes.
    """
    pieces: tuple[list[tuple[Cell, Piece]], list[tuple[Cell, Piece]]] = ([], [])
    marks: tuple[list[tuple[Cell, Mark]], list[tuple[Cell, Mark]]] = ([], [])
    present: set[str] = set()
    for index, letter in enumerate(state.board):
        panel, where = _locate(index)
        if IS_BH[index]:
            marks[panel].append((where, Mark.BLACK_HOLE))
        if letter != EMPTY:
            pieces[panel].append((where, Piece(_KINDS[letter.upper()], letter.isupper())))
            present.add(letter.upper())
    for name, mark in highlights:
        if name in SQUARES:
            panel, where = _locate(SQUARES[name])
            marks[panel].append((where, mark))
    ordinary = Panel("Ordinary space (1)", 5, 8, tuple("abcde"), tuple(str(r) for r in range(8, 0, -1)),
                     tuple(pieces[0]), tuple(marks[0]), Panel.checkered(5, 8, 1))
    hyper = Panel("Hyperspace (2)", 3, 1, ("a", "b", "c"), ("2",), tuple(pieces[1]), tuple(marks[1]),
                  frozenset({(1, 0)}), at=(6.0, 0.0))
    legend = tuple((_KINDS[letter], PIECE_NAMES[letter]) for letter in "CPSGN" if letter in present)
    return BoardView((ordinary, hyper), tuple(hyperspace_lines(state)), legend)
