"""The tri-d ASCII diagram: the three main boards stacked, each with its attack boards beside their pins."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from pbem.engine.board_view import BoardView, Cell, Highlight, Mark, Panel, Piece, PieceKind
from pbem.variants.tri_d.geometry import geometry_for
from pbem.variants.tri_d.model import (
    BLACK,
    COLOR_NAMES,
    FILES,
    PIECE_LETTERS,
    PINS,
    WHITE,
    TriDState,
    color_of,
    parse_square,
    pos,
    type_of,
)

__all__ = ["board_view", "diagram"]

#: Main board level, its name, its lowest rank, top to bottom as Black sits above White.
_SECTIONS = ((6, "B", "Black's board", 5), (4, "N", "neutral", 3), (2, "W", "White's board", 1))


def _cell(state: TriDState, surface: bytes, p: int) -> str:
    if not surface[p]:
        return " "  # an implied position: nothing can stand there
    code = state.board[p]
    if not code:
        return "."
    letter = PIECE_LETTERS[type_of(code)]
    return letter.lower() if color_of(code) == BLACK else letter


def _group(state: TriDState, surface: bytes, files: tuple[int, ...], rank: int, level: int) -> str:
    return " ".join(_cell(state, surface, pos(f, rank, level)) for f in files)


def diagram(state: TriDState) -> str:
    """Plain ASCII, 46 columns: rank 9 at the top of each section, levels labelled in the headers.

    Every section shows one main board (level L) with the attack-board levels L+1 (outer
    columns) and L-1 (inner columns) on both sides, so each attack board appears beside the
    main-board corner its pin hangs on. The orientation is the same for both players: ranks and
    levels are absolute names, and a mirrored 3-D picture confuses more than it helps.
    """
    geo = geometry_for(tuple(pin for pin, _ in state.boards), state.rules.knight_two_routes)
    surface = geo.surface
    owners = dict(state.boards)
    lines: list[str] = []
    for level, short, title, low in _SECTIONS:
        up, down = level + 1, level - 1
        here = [i for i in sorted(owners) if PINS[i].attached == level]
        boards = ", ".join(f"{PINS[i].name} {COLOR_NAMES[owners[i]]}" for i in here) or "none"
        lines.append(f"{short} = level {level}, {title}")
        lines.append(f"       ({up})  ({down})     ({level})     ({down})  ({up})")
        lines.append("       a b  a b   b c d e   e f  e f")
        for rank in range(low + 4, low - 2, -1):
            row = "  ".join((
                _group(state, surface, (0, 1), rank, up),
                _group(state, surface, (0, 1), rank, down),
                " " + _group(state, surface, (1, 2, 3, 4), rank, level) + " ",
                _group(state, surface, (4, 5), rank, down),
                _group(state, surface, (4, 5), rank, up),
            ))
            lines.append(f"  {rank}    {row}    {rank}".rstrip())
        lines.append(f"  attack boards: {boards}")
        lines.append("")
    lines.append("Upper case White, lower case Black; . empty square; blank: no surface.")
    lines.append("(n) above a column is its level; a square is named like b1(2).")
    return "\n".join(lines)



# -- the picture ----------------------------------------------------------------------------------

_KINDS = (PieceKind.PAWN, PieceKind.KNIGHT, PieceKind.BISHOP, PieceKind.ROOK, PieceKind.QUEEN, PieceKind.KING)
#: Section height in cells: six rows (ranks low-1 .. low+4, as the text) and room for titles.
_SECTION = 8.0
#: Left edge of each column group, as in the text: (up) (down) (main) (down) (up).
_UP_LEFT, _DOWN_LEFT, _MAIN, _DOWN_RIGHT, _UP_RIGHT = 0.0, 2.5, 5.0, 9.5, 12.0
#: Every cell of every attack-board position belongs to exactly one pin.
_CELL_PIN = {cell: index for index, pin in enumerate(PINS) for cell in pin.cells}


def _dark(file: int, rank: int) -> bool:
    """b1 dark and e1 light (White's left and right corners, as on a chessboard); levels do not matter."""
    return (file + rank) % 2 == 0


def _section(level: int) -> tuple[int, int]:
    """Index (0 at the top) and lowest rank of the section of main board ``level``."""
    for index, (main, _, _, low) in enumerate(_SECTIONS):
        if main == level:
            return index, low
    raise ValueError(f"no main board on level {level}")


def _attack_slot(pin: int) -> tuple[tuple[float, float], tuple[int, int], tuple[int, int]]:
    """Where an attack board is drawn: beside its main board's corner, outer column group above, inner below."""
    p = PINS[pin]
    section, low = _section(p.attached)
    up = p.level > p.attached
    left = p.file == 1
    x = (_UP_LEFT if up else _DOWN_LEFT) if left else (_UP_RIGHT if up else _DOWN_RIGHT)
    top = max(p.rank, p.outer_rank)
    files = (0, 1) if left else (4, 5)
    return (x, section * _SECTION + (low + 4 - top)), files, (top, top - 1)


def _panel(title: str, files: tuple[int, ...], ranks: tuple[int, int] | tuple[int, ...], level: int,
           at: tuple[float, float], state: TriDState, located: dict[int, tuple[int, Cell]], number: int,
           ghost: bool = False) -> Panel:
    pieces: list[tuple[Cell, Piece]] = []
    dark: set[Cell] = set()
    for column, file in enumerate(files):
        for row, rank in enumerate(ranks):
            p = pos(file, rank, level)
            located[p] = (number, (column, row))
            if _dark(file, rank):
                dark.add((column, row))
            code = state.board[p]
            if code and not ghost:
                pieces.append(((column, row), Piece(_KINDS[type_of(code) - 1], color_of(code) == WHITE)))
    cells = frozenset((c, r) for c in range(len(files)) for r in range(len(ranks)))
    return Panel(title, len(files), len(ranks), tuple(FILES[f] for f in files), tuple(str(r) for r in ranks),
                 tuple(pieces), (), frozenset(dark), cells if ghost else frozenset(), at)


def board_view(state: TriDState, highlights: Sequence[Highlight] = ()) -> BoardView:
    """The text's arrangement as panels: three 4x4 main boards stacked (level 6 at the top), each
    attack board a 2x2 panel beside the corner its pin hangs on (outer columns: the level above,
    inner: the level below), titled by pin and owner. One orientation for everybody, as the text.

    A board that has just moved away leaves a ghost panel of missing cells at its old pin, so the
    MOVE_FROM highlight has somewhere to be drawn. Each attack board is drawn once, in its own
    main board's section (the text may show a level-3 or level-5 board a second time in the
    neighbouring section, where its ranks also appear).
    """
    located: dict[int, tuple[int, Cell]] = {}
    panels: list[Panel] = []
    for number, (level, short, title, low) in enumerate(_SECTIONS):
        panels.append(_panel(f"{short} = level {level}, {title}", (1, 2, 3, 4), tuple(range(low + 3, low - 1, -1)),
                             level, (_MAIN, number * _SECTION + 1.0), state, located, len(panels)))
    for pin, owner in state.boards:
        at, files, ranks = _attack_slot(pin)
        panels.append(_panel(f"{PINS[pin].name} {COLOR_NAMES[owner]}", files, ranks, PINS[pin].level, at, state,
                             located, len(panels)))
    marks: list[list[tuple[Cell, Mark]]] = [[] for _ in panels]
    for name, mark in highlights:
        try:
            p = parse_square(name)
        except ValueError:
            continue
        if p not in located and p in _CELL_PIN:
            pin = _CELL_PIN[p]
            at, files, ranks = _attack_slot(pin)
            panels.append(_panel(f"{PINS[pin].name} (empty)", files, ranks, PINS[pin].level, at, state, located,
                                 len(panels), ghost=True))
            marks.append([])
        if p in located:
            number, cell = located[p]
            marks[number].append((cell, mark))
    return BoardView(tuple(replace(panel, marks=tuple(found)) for panel, found in zip(panels, marks, strict=True)))
