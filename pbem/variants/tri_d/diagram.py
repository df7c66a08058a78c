"""The tri-d ASCII diagram: the three main boards stacked, each with its attack boards beside their pins."""

from __future__ import annotations

from pbem.variants.tri_d.geometry import geometry_for
from pbem.variants.tri_d.model import (
    BLACK,
    COLOR_NAMES,
    PIECE_LETTERS,
    PINS,
    TriDState,
    color_of,
    pos,
    type_of,
)

__all__ = ["diagram"]

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

