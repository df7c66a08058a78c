"""Tri-d geometry: surfaces, attack-board adjacency and per-placement move tables (spec 2.2, 2.4)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from pbem.engine.geometry import Grid, rays
from pbem.variants.tri_d.model import (
    BISHOP,
    BLACK,
    BOX,
    NFILES,
    NLEVELS,
    NORMAL,
    NRANKS,
    PINS,
    QUEEN,
    ROOK,
    WHITE,
    Move,
    file_of,
    level_of,
    main_board_squares,
    pos,
    rank_of,
)

__all__ = [
    "ADJACENT",
    "DIAGONAL_RAYS",
    "ORTHOGONAL_RAYS",
    "Geometry",
    "Step",
    "adjacent_pins",
    "geometry_for",
    "step",
]

_MAIN = frozenset(main_board_squares())


def _in_box(file: int, rank: int, level: int) -> bool:
    return 0 <= file < NFILES and 0 <= rank < NRANKS and 1 <= level <= NLEVELS


# Sliders pass through every named position, surface or not (spec 2.4, V13), so the rays
# do not depend on where the attack boards are.
_GRID = Grid((NFILES, NRANKS, NLEVELS))  # the level axis counts from 0 here: pos(f, r, lv) = index (f, r, lv - 1)


_ORTHOGONAL = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
# Two-dimensional diagonals only (v0.1.1 changelog): (F,R), (R,L) and (F,L) planes, 12 directions.
_DIAGONAL = [(a, b, 0) for a in (1, -1) for b in (1, -1)] + [(0, a, b) for a in (1, -1) for b in (1, -1)] + [
    (a, 0, b) for a in (1, -1) for b in (1, -1)]
ORTHOGONAL_RAYS = rays(_GRID, _ORTHOGONAL)
DIAGONAL_RAYS = rays(_GRID, _DIAGONAL)

#: A destination and the plain move there from the square the table belongs to.
Step = tuple[int, Move]
_STEPS: dict[tuple[int, int], Step] = {}


def step(origin: int, target: int) -> Step:
    """The one shared (target, move) pair for ``origin`` -> ``target``: generation picks, never builds, moves."""
    found = _STEPS.get((origin, target))
    if found is None:
        found = _STEPS[(origin, target)] = (target, Move(NORMAL, origin, target))
    return found

_KNIGHT = [(a * x, b * y, 0) for x, y in ((1, 2), (2, 1)) for a in (1, -1) for b in (1, -1)] + [
    (a * x, 0, b * y) for x, y in ((1, 2), (2, 1)) for a in (1, -1) for b in (1, -1)] + [
    (0, a * x, b * y) for x, y in ((1, 2), (2, 1)) for a in (1, -1) for b in (1, -1)]
_KING = [(a, b, c) for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1) if (a, b, c) != (0, 0, 0)]


def adjacent_pins(index: int) -> tuple[int, ...]:
    """Pins an attack board at pin ``index`` may move to, by V1's displacements on the pin square.

    F=3 or R=3 on the same level, L=2 (inversion), or R=+1/-2 (down one MB) or R=-1/+2 (up one
    MB) with L=0; V15: no other change of level.
    """
    a = PINS[index]
    found = []
    for j, b in enumerate(PINS):
        df, dr, dl = b.file - a.file, b.rank - a.rank, b.level - a.level
        if (dl == 0 and ((abs(df) == 3 and dr == 0) or (df == 0 and dr in (3, -3, 1, -2, -1, 2)))) or (
                df == 0 and dr == 0 and abs(dl) == 2):
            found.append(j)
    return tuple(found)


ADJACENT: tuple[tuple[int, ...], ...] = tuple(adjacent_pins(i) for i in range(len(PINS)))


@dataclass(frozen=True, slots=True)
class Geometry:
    """Everything that depends on where the attack boards are, computed once per placement.

    Tables are indexed by position and hold destination positions that are surfaces; pawn
    tables are per colour. The ``*_from`` tables are the reverse relations, for attack tests.
    """

    pins: tuple[int, ...]
    surface: bytes
    squares: tuple[int, ...]  # the positions with a surface, in index order
    board_at: dict[int, int]  # position -> pin index of the attack board it lies on
    knight: tuple[tuple[int, ...], ...]
    king: tuple[tuple[int, ...], ...]
    pawn_push: tuple[tuple[tuple[Step, ...], ...], ...]
    pawn_double: tuple[tuple[tuple[tuple[int, Step], ...], ...], ...]  # (the square passed, the step)
    pawn_capture: tuple[tuple[tuple[Step, ...], ...], ...]
    rook_pawn: tuple[tuple[int, ...], ...]  # -1 where the exception gives nothing
    knight_from: tuple[tuple[int, ...], ...]
    king_from: tuple[tuple[int, ...], ...]
    pawn_from: tuple[tuple[tuple[int, ...], ...], ...]
    # The rays cut down to the surfaces, without empty rays: pieces stand only on surfaces, so a slider
    # passes the other positions without looking (they are most of the box). Cells for attack tests;
    # steps (target, move) for generation, per piece kind: ROOK, BISHOP and QUEEN.
    orthogonal: tuple[tuple[tuple[int, ...], ...], ...]
    diagonal: tuple[tuple[tuple[int, ...], ...], ...]
    slides: dict[int, tuple[tuple[tuple[Step, ...], ...], ...]]
    knight_steps: tuple[tuple[Step, ...], ...]
    king_steps: tuple[tuple[Step, ...], ...]


def _reverse(table: list[tuple[int, ...]], squares: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    back: dict[int, list[int]] = {}
    for origin in squares:
        for target in table[origin]:
            back.setdefault(target, []).append(origin)
    result: list[tuple[int, ...]] = [()] * BOX
    for target, origins in back.items():
        result[target] = tuple(origins)
    return tuple(result)


# Static candidate specs, so that building a geometry is a few look-ups per candidate. A spec
# (near, far, probe) encodes spec 2.4's ``vstep``: a one-level vertical step lands on ``near``
# unless that is an attack-board level without a surface there, then on ``far``, the main-board
# level beyond (-1: off the box); only an absent attack-board level is skipped, never a main
# board. ``probe`` is the origin column's cell at the near level, for the knight's vertical-first
# route (V7). Moves with no vertical unit step are literal: near == far == probe.
_Spec = tuple[int, int, int]


def _spec(file: int, rank: int, level: int, dx: int, dy: int, dl: int) -> _Spec | None:
    x, y = file + dx, rank + dy
    if not (0 <= x < NFILES and 0 <= y < NRANKS):
        return None
    if abs(dl) != 1 or level % 2 == 1:
        # No vertical unit step, or one from an attack-board level onto a main-board level: literal.
        return (pos(x, y, level + dl),) * 3 if 1 <= level + dl <= NLEVELS else None
    if not 1 <= level + dl <= NLEVELS:
        return None
    far = pos(x, y, level + 2 * dl) if 1 <= level + 2 * dl <= NLEVELS else -1
    return pos(x, y, level + dl), far, pos(file, rank, level + dl)


def _specs(vectors: list[tuple[int, int, int]]) -> tuple[tuple[_Spec, ...], ...]:
    table = []
    for p in range(BOX):
        f, r, lv = file_of(p), rank_of(p), level_of(p)
        found = (_spec(f, r, lv, dx, dy, dl) for dx, dy, dl in vectors)
        table.append(tuple(s for s in found if s is not None))
    return tuple(table)


_KNIGHT_SPECS = _specs(_KNIGHT)
_KING_SPECS = _specs(_KING)
#: Per colour: the pawn's non-capturing steps (forward, up) and captures (sideways-forward, sideways-up).
_PUSH_SPECS = (_specs([(0, 1, 0), (0, 0, 1)]), _specs([(0, -1, 0), (0, 0, -1)]))
_CAPTURE_SPECS = (_specs([(-1, 1, 0), (1, 1, 0), (-1, 0, 1), (1, 0, 1)]),
                  _specs([(-1, -1, 0), (1, -1, 0), (-1, 0, -1), (1, 0, -1)]))


def _double(color: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    ahead = 1 if color == WHITE else -1
    table = []
    for p in range(BOX):
        f, r, lv = file_of(p), rank_of(p), level_of(p)
        table.append(((pos(f, r + ahead, lv), pos(f, r + 2 * ahead, lv)),) if 0 <= r + 2 * ahead < NRANKS else ())
    return tuple(table)


_DOUBLE = (_double(WHITE), _double(BLACK))


def _rook_pawn(color: int) -> tuple[int, ...]:
    # V16: one file inward, one rank forward, one level toward the main board the attack board hangs
    # on. Each attack-board cell belongs to exactly one pin, so the target is fixed per cell.
    ahead = 1 if color == WHITE else -1
    table = [-1] * BOX
    for pin in PINS:
        for cell in pin.cells:
            f, r, lv = file_of(cell), rank_of(cell), level_of(cell)
            if 0 <= r + ahead < NRANKS:
                table[cell] = pos(f + (1 if f <= 2 else -1), r + ahead, lv + (1 if pin.attached > lv else -1))
    return tuple(table)


_ROOK_PAWN = (_rook_pawn(WHITE), _rook_pawn(BLACK))


@lru_cache(maxsize=65536)
def _steps(origin: int, targets: tuple[int, ...]) -> tuple[Step, ...]:
    """The steps to ``targets``, one shared tuple per origin and targets (placements share most of them)."""
    return tuple(step(origin, q) for q in targets)


class _Slides(NamedTuple):
    """A position's slider rays cut down to the surfaces: cells, and the steps of each slider."""

    orthogonal: tuple[tuple[int, ...], ...]
    diagonal: tuple[tuple[int, ...], ...]
    rook: tuple[tuple[Step, ...], ...]
    bishop: tuple[tuple[Step, ...], ...]
    queen: tuple[tuple[Step, ...], ...]


#: Per position, the pins (a bit each) whose attack board would have a cell on its slider rays: only
#: those decide its cut rays, which every placement alike there then shares.
_PIN_OF_CELL = {cell: index for index, pin in enumerate(PINS) for cell in pin.cells}
_RAY_PINS = tuple(sum({1 << _PIN_OF_CELL[q] for ray in (*ORTHOGONAL_RAYS[p], *DIAGONAL_RAYS[p]) for q in ray
                       if q in _PIN_OF_CELL}) for p in range(BOX))


@lru_cache(maxsize=65536)
def _slides(p: int, placed: int) -> _Slides:
    """The cut rays of ``p`` with attack boards on the pins of the bit set ``placed``."""
    surface = _MAIN.union(*(pin.cells for index, pin in enumerate(PINS) if placed >> index & 1))

    def cut(rays: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
        kept = (tuple(q for q in ray if q in surface) for ray in rays)
        return tuple(ray for ray in kept if ray)

    orthogonal, diagonal = cut(ORTHOGONAL_RAYS[p]), cut(DIAGONAL_RAYS[p])
    rook = tuple(_steps(p, ray) for ray in orthogonal)
    bishop = tuple(_steps(p, ray) for ray in diagonal)
    return _Slides(orthogonal, diagonal, rook, bishop, rook + bishop)


@lru_cache(maxsize=8192)
def geometry_for(pins: tuple[int, ...], knight_two_routes: bool = True) -> Geometry:
    """The geometry with attack boards on ``pins`` (sorted pin indices)."""
    surface = bytearray(BOX)
    for p in _MAIN:
        surface[p] = 1
    board_at: dict[int, int] = {}
    for index in pins:
        for cell in PINS[index].cells:
            surface[cell] = 1
            board_at[cell] = index
    squares = tuple(p for p in range(BOX) if surface[p])

    def steps(specs: tuple[_Spec, ...]) -> tuple[int, ...]:
        found = []
        for near, far, _ in specs:
            land = near if surface[near] else far
            if land >= 0 and surface[land]:
                found.append(land)
        return tuple(found)

    def knight_moves(specs: tuple[_Spec, ...]) -> tuple[int, ...]:
        found = set()
        for near, far, probe in specs:
            land = near if surface[near] else far  # horizontal first, vertical at the destination column
            if land >= 0 and surface[land]:
                found.add(land)
            if knight_two_routes:
                land = near if surface[probe] else far  # vertical first, at the origin column
                if land >= 0 and surface[land]:
                    found.add(land)
        return tuple(sorted(found))

    empty: tuple[int, ...] = ()
    knight: list[tuple[int, ...]] = [empty] * BOX
    king: list[tuple[int, ...]] = [empty] * BOX
    push = ([empty] * BOX, [empty] * BOX)
    double: tuple[list[tuple[tuple[int, int], ...]], ...] = ([()] * BOX, [()] * BOX)
    capture = ([empty] * BOX, [empty] * BOX)
    rook_pawn = ([-1] * BOX, [-1] * BOX)
    for p in squares:
        knight[p] = knight_moves(_KNIGHT_SPECS[p])
        king[p] = steps(_KING_SPECS[p])  # V8: the destination column decides
        for color in (WHITE, BLACK):
            push[color][p] = steps(_PUSH_SPECS[color][p])
            capture[color][p] = steps(_CAPTURE_SPECS[color][p])
            double[color][p] = tuple((mid, d) for mid, d in _DOUBLE[color][p] if surface[d])
            if p in board_at:
                target = _ROOK_PAWN[color][p]
                rook_pawn[color][p] = target if target >= 0 and surface[target] else -1
    def steps_of(table: list[tuple[int, ...]]) -> tuple[tuple[Step, ...], ...]:
        found: list[tuple[Step, ...]] = [()] * BOX
        for p in squares:
            found[p] = _steps(p, table[p])
        return tuple(found)

    def doubles(color: int) -> tuple[tuple[tuple[int, Step], ...], ...]:
        found: list[tuple[tuple[int, Step], ...]] = [()] * BOX
        for p in squares:
            found[p] = tuple((mid, step(p, d)) for mid, d in double[color][p])
        return tuple(found)

    orthogonal: list[tuple[tuple[int, ...], ...]] = [()] * BOX
    diagonal: list[tuple[tuple[int, ...], ...]] = [()] * BOX
    slides: dict[int, list[tuple[tuple[Step, ...], ...]]] = {ROOK: [()] * BOX, BISHOP: [()] * BOX, QUEEN: [()] * BOX}
    placed = sum(1 << index for index in pins)
    for p in squares:
        cut = _slides(p, placed & _RAY_PINS[p])
        orthogonal[p], diagonal[p] = cut.orthogonal, cut.diagonal
        slides[ROOK][p], slides[BISHOP][p], slides[QUEEN][p] = cut.rook, cut.bishop, cut.queen
    return Geometry(
        pins=pins,
        surface=bytes(surface),
        squares=squares,
        board_at=board_at,
        knight=tuple(knight),
        king=tuple(king),
        pawn_push=(steps_of(push[0]), steps_of(push[1])),
        pawn_double=(doubles(WHITE), doubles(BLACK)),
        pawn_capture=(steps_of(capture[0]), steps_of(capture[1])),
        rook_pawn=(tuple(rook_pawn[0]), tuple(rook_pawn[1])),
        knight_from=_reverse(knight, squares),
        king_from=_reverse(king, squares),
        pawn_from=(_reverse(capture[0], squares), _reverse(capture[1], squares)),
        orthogonal=tuple(orthogonal),
        diagonal=tuple(diagonal),
        slides={kind: tuple(table) for kind, table in slides.items()},
        knight_steps=steps_of(knight),
        king_steps=steps_of(king),
    )
