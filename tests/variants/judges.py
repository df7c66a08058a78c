"""Independent reference rules for the tri-d and Voidrider engines, shared by the variant tests.

Written from the rules texts and the rulings (spec sections 2.2-2.4 and 5.2-5.4) with plain sets and dicts;
they share no code with the engines beyond the stored-state format (tri-d) or the state's board string
(Voidrider). They serve as perft/move-list references and as the royal-safety judges of the conformance
tests: the ``*_king_attacked`` functions enumerate every opponent piece's pseudo-legal captures, ignoring
whether the opponent's own king would be exposed (a pinned piece still gives check).
"""

from __future__ import annotations

from collections.abc import Iterator

from pbem.engine.base import Seat
from pbem.variants.tri_d.model import TriDState, dump_state
from pbem.variants.voidrider.model import Move as VoidriderMove
from pbem.variants.voidrider.model import VoidriderState

# == tri-d (Victor Rules Space Chess) ===============================================================

#: Spec 2.2, the reconstructed adjacency table: pin -> (its four squares, its adjacent pins).
SPEC_TABLE: dict[str, tuple[str, str]] = {
    "b1(1)": ("a0 b0 a1 b1", "e1(1) b4(1) b1(3)"),
    "e1(1)": ("e0 f0 e1 f1", "b1(1) e4(1) e1(3)"),
    "b4(1)": ("a4 b4 a5 b5", "e4(1) b1(1) b4(3)"),
    "e4(1)": ("e4 f4 e5 f5", "b4(1) e1(1) e4(3)"),
    "b1(3)": ("a0 b0 a1 b1", "e1(3) b4(3) b1(1) b3(3)"),
    "e1(3)": ("e0 f0 e1 f1", "b1(3) e4(3) e1(1) e3(3)"),
    "b3(3)": ("a2 b2 a3 b3", "e3(3) b6(3) b3(5) b1(3) b4(3)"),
    "e3(3)": ("e2 f2 e3 f3", "b3(3) e6(3) e3(5) e1(3) e4(3)"),
    "b4(3)": ("a4 b4 a5 b5", "e4(3) b1(3) b4(1) b3(3) b6(3)"),
    "e4(3)": ("e4 f4 e5 f5", "b4(3) e1(3) e4(1) e3(3) e6(3)"),
    "b6(3)": ("a6 b6 a7 b7", "e6(3) b3(3) b6(5) b4(3)"),
    "e6(3)": ("e6 f6 e7 f7", "b6(3) e3(3) e6(5) e4(3)"),
    "b3(5)": ("a2 b2 a3 b3", "e3(5) b6(5) b3(3) b5(5)"),
    "e3(5)": ("e2 f2 e3 f3", "b3(5) e6(5) e3(3) e5(5)"),
    "b5(5)": ("a4 b4 a5 b5", "e5(5) b8(5) b5(7) b3(5) b6(5)"),
    "e5(5)": ("e4 f4 e5 f5", "b5(5) e8(5) e5(7) e3(5) e6(5)"),
    "b6(5)": ("a6 b6 a7 b7", "e6(5) b3(5) b6(3) b5(5) b8(5)"),
    "e6(5)": ("e6 f6 e7 f7", "b6(5) e3(5) e6(3) e5(5) e8(5)"),
    "b8(5)": ("a8 b8 a9 b9", "e8(5) b5(5) b8(7) b6(5)"),
    "e8(5)": ("e8 f8 e9 f9", "b8(5) e5(5) e8(7) e6(5)"),
    "b5(7)": ("a4 b4 a5 b5", "e5(7) b8(7) b5(5)"),
    "e5(7)": ("e4 f4 e5 f5", "b5(7) e8(7) e5(5)"),
    "b8(7)": ("a8 b8 a9 b9", "e8(7) b5(7) b8(5)"),
    "e8(7)": ("e8 f8 e9 f9", "b8(7) e5(7) e8(5)"),
}


def square_label(p: int) -> str:
    return f"{'abcdef'[p % 6]}{(p // 6) % 10}({p // 60 + 1})"


def pin_cells(pin: str) -> set[str]:
    return {f"{sq}({pin[-2]})" for sq in SPEC_TABLE[pin][0].split()}


def surfaces_of(boards: dict[str, str] | list[str]) -> set[str]:
    found = {f"{f}{r}({lv})" for lv, low in ((2, 1), (4, 3), (6, 5)) for r in range(low, low + 4) for f in "bcde"}
    for pin in boards:
        found |= pin_cells(pin)
    return found


def _attached_level(pin: str) -> int:
    # Spec table, "attached to": pin ranks 1/4 hang on W, 3/6 on N, 5/8 on B.
    return {"1": 2, "4": 2, "3": 4, "6": 4, "5": 6, "8": 6}[pin[1]]


def _name(f: int, r: int, lv: int) -> str | None:
    return f"{'abcdef'[f]}{r}({lv})" if 0 <= f < 6 and 0 <= r < 10 and 1 <= lv <= 7 else None


def _xyz(name: str) -> tuple[int, int, int]:
    return "abcdef".index(name[0]), int(name[1]), int(name[3])


class TriDReference:
    """One position as the spec describes it: pieces by name, surfaces, vstep, and movement."""

    def __init__(self, state: TriDState) -> None:
        data = dump_state(state)
        self.pieces: dict[str, str] = dict(data["pieces"])
        self.boards: dict[str, str] = {b["pin"]: b["owner"] for b in data["boards"]}
        self.turn = data["turn"]
        self.ep = data["ep"]
        self.first_move = data["fullmove"] == 1
        # V7: the knight's one-level component by either route, unless the game chose the destination only.
        self.two_routes = bool(data["rules"]["knight_two_routes"])
        self.surfaces = surfaces_of(self.boards)

    def white(self, piece: str) -> bool:
        return piece[0].isupper()

    def mine(self, square: str, side: str) -> bool:
        piece = self.pieces.get(square)
        return piece is not None and self.white(piece) == (side == "white")

    def vstep(self, f: int, r: int, lv: int, up: int) -> int | None:
        target = lv + up
        if not 1 <= target <= 7:
            return None
        if target % 2 == 1 and _name(f, r, target) not in self.surfaces:
            target += up
        return target if 1 <= target <= 7 else None

    def land(self, f: int, r: int, lv: int | None) -> str | None:
        name = None if lv is None else _name(f, r, lv)
        return name if name in self.surfaces else None

    def targets(self, square: str, side: str, captures_only: bool = False) -> list[tuple[str, str]]:
        """(destination, kind) pairs by movement alone; kind is '', 'ep' or 'rp'."""
        piece = self.pieces[square].upper()[0]
        f, r, lv = _xyz(square)
        out: list[tuple[str, str]] = []
        if piece in "RBQ":
            dirs = []
            if piece in "RQ":
                dirs += [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
            if piece in "BQ":
                for a in (1, -1):
                    for b in (1, -1):
                        dirs += [(a, b, 0), (0, a, b), (a, 0, b)]
            for df, dr, dl in dirs:
                x, y, z = f + df, r + dr, lv + dl
                while _name(x, y, z) is not None:
                    name = _name(x, y, z)
                    assert name is not None
                    if name in self.pieces:
                        if not self.mine(name, side):
                            out.append((name, ""))
                        break
                    if name in self.surfaces:
                        out.append((name, ""))
                    x, y, z = x + df, y + dr, z + dl
        elif piece == "N":
            for a, b in ((1, 2), (2, 1)):
                for s in (1, -1):
                    for t in (1, -1):
                        for vec in ((a * s, b * t, 0), (a * s, 0, b * t), (0, a * s, b * t)):
                            df, dr, dl = vec
                            if abs(dl) == 1:
                                # Route (b): leap, then the vertical step at the destination column;
                                # route (a): the vertical step at the origin column first.
                                routes = {self.land(f + df, r + dr, self.vstep(f + df, r + dr, lv, dl))}
                                if self.two_routes:
                                    routes.add(self.land(f + df, r + dr, self.vstep(f, r, lv, dl)))
                            else:
                                routes = {self.land(f + df, r + dr, lv + dl)}
                            out += [(d, "") for d in routes if d and not self.mine(d, side)]
        elif piece == "K":
            for df in (-1, 0, 1):
                for dr in (-1, 0, 1):
                    for dl in (-1, 0, 1):
                        if (df, dr, dl) == (0, 0, 0):
                            continue
                        x, y = f + df, r + dr
                        if not (0 <= x < 6 and 0 <= y < 10):
                            continue
                        d = self.land(x, y, self.vstep(x, y, lv, dl) if dl else lv)
                        if d and not self.mine(d, side):
                            out.append((d, ""))
        else:
            ahead = 1 if side == "white" else -1
            for df in (-1, 1):
                if not 0 <= f + df < 6:
                    continue
                for d in (self.land(f + df, r + ahead, lv), self.land(f + df, r, self.vstep(f + df, r, lv, ahead))):
                    if d is None:
                        continue
                    if d in self.pieces and not self.mine(d, side):
                        out.append((d, ""))
                    elif captures_only:
                        out.append((d, ""))  # an attack on an empty square still counts for attacks
                    elif d == self.ep and d not in self.pieces:
                        out.append((d, "ep"))
            if captures_only:
                return out
            for d in (self.land(f, r + ahead, lv), self.land(f, r, self.vstep(f, r, lv, ahead))):
                if d and d not in self.pieces:
                    out.append((d, ""))
            mid, far = _name(f, r + ahead, lv), self.land(f, r + 2 * ahead, lv)
            if "*" in self.pieces[square] and mid and far and mid not in self.pieces and far not in self.pieces:
                out.append((far, ""))
            if "^" in self.pieces[square]:
                for pin in self.boards:
                    if square in pin_cells(pin):
                        toward = 1 if _attached_level(pin) > lv else -1
                        d = self.land(f + (1 if f <= 2 else -1), r + ahead, lv + toward)
                        if d and d not in self.pieces:
                            out.append((d, "rp"))
        return out

    def attacked(self, square: str, by: str) -> bool:
        for origin in list(self.pieces):
            if self.mine(origin, by):
                captures = self.pieces[origin][0].upper() == "P"
                if any(d == square for d, _ in self.targets(origin, by, captures_only=captures)):
                    return True
        return False

    def king(self, side: str) -> str:
        found = [sq for sq, p in self.pieces.items() if p[0] == ("K" if side == "white" else "k")]
        assert len(found) == 1, f"{side} has {len(found)} kings"
        return found[0]

    def copy(self) -> TriDReference:
        other = object.__new__(TriDReference)
        other.__dict__.update(self.__dict__)
        other.pieces = dict(self.pieces)
        other.boards = dict(self.boards)
        other.surfaces = set(self.surfaces)
        return other


def tri_d_king_attacked(state: TriDState, colour: int) -> bool:
    """The royal-safety judge: could any piece of the other side capture the king of ``colour`` (0 White,
    1 Black) in ``state``? The surfaces come from the state's attack-board pins (spec 2.2 table)."""
    ref = TriDReference(state)
    side, other = ("white", "black") if colour == 0 else ("black", "white")
    return ref.attacked(ref.king(side), other)


def _promotes(square: str, side: str) -> bool:
    rank, level = square[1], int(square[3])
    last_mb, last_ab = ("8", "9") if side == "white" else ("1", "0")
    return rank == last_ab or (rank == last_mb and level % 2 == 0)


def reference_moves(state: TriDState) -> list[str]:
    """Every legal move in canonical notation, generated from the spec without the engine's tables."""
    ref = TriDReference(state)
    side, other = ref.turn, ("black" if ref.turn == "white" else "white")
    found: list[str] = []

    def legal(after: TriDReference) -> bool:
        return not after.attacked(after.king(side), other)

    for square in list(ref.pieces):
        if not ref.mine(square, side):
            continue
        letter = ref.pieces[square][0].upper()
        for dest, kind in ref.targets(square, side):
            after = ref.copy()
            moving = after.pieces.pop(square).replace("*", "")
            capture = dest in ref.pieces or kind == "ep"
            if kind == "ep":
                f, r, lv = _xyz(dest)
                victim = _name(f, r + (-1 if side == "white" else 1), lv)
                after.pieces.pop(victim or "")
            after.pieces[dest] = moving
            if not legal(after):
                continue
            text = f"{letter}{square}{'x' if capture else '-'}{dest}"
            if kind == "ep":
                found.append(text + "ep")
            elif letter == "P" and _promotes(dest, side):
                found += [f"{text}={p}" for p in "QRBN"]
            else:
                found.append(text)
    rank, level = ("0", "1") if side == "white" else ("9", "7")
    king_home, k = f"e{rank}({level})", ("K*" if side == "white" else "k*")
    rook = "R*" if side == "white" else "r*"
    if ref.pieces.get(king_home) == k and not ref.attacked(king_home, other) and not (
            ref.first_move and not state.rules.castle_on_first_move):
        for notation, rook_home, king_to in (("O-O", f"f{rank}({level})", f"f{rank}({level})"),
                                             ("O-O-O", f"a{rank}({level})", f"b{rank}({level})")):
            if ref.pieces.get(rook_home) != rook or (notation == "O-O-O" and king_to in ref.pieces):
                continue
            after = ref.copy()
            after.pieces.pop(rook_home)
            after.pieces.pop(king_home)
            after.pieces[king_to], after.pieces[king_home] = k[0], rook[0]
            if legal(after):
                found.append(notation)
    for pin, owner in ref.boards.items():
        if owner != side:
            continue
        aboard = [sq for sq in ref.pieces if sq in pin_cells(pin)]
        if len(aboard) > 1 or (aboard and (ref.pieces[aboard[0]][0] != ("P" if side == "white" else "p"))):
            continue
        for target in SPEC_TABLE[pin][1].split():
            if target in ref.boards:
                continue
            after = ref.copy()
            del after.boards[pin]
            after.boards[target] = owner
            after.surfaces = surfaces_of(after.boards)
            promote = False
            if aboard:
                # V10: pin cell to pin cell, outer file to outer file, outer rank to outer rank.
                f, r, lv = _xyz(aboard[0])
                pf, pr, _plv = _xyz(pin)
                tf, tr, tlv = _xyz(target)
                outer = next(c for c in pin_cells(target) if c[0] != target[0] and c[1] != target[1])
                new_f = tf if f == pf else "abcdef".index(outer[0])
                new_r = tr if r == pr else int(outer[1])
                carried_to = _name(new_f, new_r, tlv)
                assert carried_to is not None and carried_to in pin_cells(target)
                piece = after.pieces.pop(aboard[0])
                if not state.rules.carried_double_step:
                    piece = piece.replace("*", "")
                after.pieces[carried_to] = piece
                promote = _promotes(carried_to, side)
            if legal(after):
                text = f"@{pin}-{target}"
                found += [f"{text}={p}" for p in "QRBN"] if promote else [text]
    return found


# == Voidrider Chess ===============================================================================

_DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
_LEAPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
_Square = tuple[int, int]
_RefMove = tuple[_Square, _Square, bool, str | None]


class VoidriderReference:
    """Voidrider Chess written from the rules text with sets and dicts, sharing no code with the engine."""

    def __init__(self, spaces: set[_Square], pieces: dict[_Square, str], white: bool, castling: str) -> None:
        self.spaces, self.pieces, self.white, self.castling = spaces, pieces, white, castling

    @classmethod
    def of(cls, state: VoidriderState) -> VoidriderReference:
        spaces = {(i % 7, i // 7) for i, c in enumerate(state.board) if c != " "}
        pieces = {(i % 7, i // 7): c for i, c in enumerate(state.board) if c not in " ."}
        return cls(spaces, pieces, state.turn is Seat.WHITE, state.castling)

    @staticmethod
    def inside(square: _Square) -> bool:
        return 0 <= square[0] < 7 and 0 <= square[1] < 9

    def ours(self, square: _Square, white: bool) -> bool:
        return square in self.pieces and self.pieces[square].isupper() == white

    def pseudo(self, white: bool, with_space_moves: bool = True, with_castling: bool = True) -> Iterator[_RefMove]:
        for (f, r), piece in list(self.pieces.items()):
            if piece.isupper() != white:
                continue
            kind = piece.upper()

            def landing(square: _Square) -> bool:
                return square in self.spaces and not self.ours(square, white)

            if kind == "N":
                for df, dr in _LEAPS:
                    if landing((f + df, r + dr)):
                        yield (f, r), (f + df, r + dr), False, None
            elif kind == "K":
                for df, dr in _DIRECTIONS:
                    if landing((f + df, r + dr)):
                        yield (f, r), (f + df, r + dr), False, None
            elif kind in "RB":
                for df, dr in _DIRECTIONS[:4] if kind == "R" else _DIRECTIONS[4:]:
                    square = (f + df, r + dr)
                    while square in self.spaces:
                        if landing(square):
                            yield (f, r), square, False, None
                        if square in self.pieces:
                            break
                        square = (square[0] + df, square[1] + dr)
            elif kind == "V":
                for df, dr in _DIRECTIONS:
                    square = (f + df, r + dr)
                    while self.inside(square) and square not in self.spaces:
                        square = (square[0] + df, square[1] + dr)
                    if landing(square):
                        yield (f, r), square, False, None
            else:
                forward = 1 if white else -1
                last = 8 if white else 0
                promos: tuple[str | None, ...] = tuple("VRBN") if r + forward == last else (None,)
                ahead = (f, r + forward)
                if ahead in self.spaces and ahead not in self.pieces:
                    for promo in promos:
                        yield (f, r), ahead, False, promo
                for df in (-1, 1):
                    target = (f + df, r + forward)
                    if target in self.pieces and not self.ours(target, white):
                        for promo in promos:
                            yield (f, r), target, False, promo
            if not with_space_moves:
                continue
            for df, dr in _DIRECTIONS[:4]:
                if kind == "P" and dr == (-1 if white else 1):
                    continue
                square = (f + df, r + dr)
                while self.inside(square) and square not in self.spaces:
                    sides = [(square[0] + a, square[1] + b) for a, b in _DIRECTIONS[:4]]
                    if any(s in self.spaces and s != (f, r) for s in sides):
                        if kind == "P" and dr and square[1] == (8 if white else 0):
                            for promo in "VRBN":
                                yield (f, r), square, True, promo
                        else:
                            yield (f, r), square, True, None
                    if kind != "V":
                        break
                    square = (square[0] + df, square[1] + dr)
        if with_castling:
            yield from self.castlings(white)

    def castlings(self, white: bool) -> Iterator[_RefMove]:
        rank = 1 if white else 7
        for letter, rook_file, target_file in (("A", 0, 1), ("G", 6, 5)):
            if (letter if white else letter.lower()) not in self.castling:
                continue
            if self.pieces.get((3, rank)) != ("K" if white else "k"):
                continue
            if self.pieces.get((rook_file, rank)) != ("R" if white else "r"):
                continue
            step = 1 if rook_file > 3 else -1
            between = [(f, rank) for f in range(3 + step, rook_file, step)]
            if any(s not in self.spaces or s in self.pieces for s in between):
                continue
            if any(self.attacked((f, rank), not white) for f in (3, 3 + step, target_file)):
                continue
            yield (3, rank), (target_file, rank), False, None

    def attacked(self, square: _Square, by_white: bool) -> bool:
        """Whether a piece of ``by_white`` could capture on ``square`` (a space move or castling never does)."""
        return any(move[1] == square for move in self.pseudo(by_white, with_space_moves=False, with_castling=False))

    def after(self, move: _RefMove) -> VoidriderReference:
        spaces, pieces = set(self.spaces), dict(self.pieces)
        frm, to, space, promo = move
        piece = pieces.pop(frm)
        if promo:
            piece = promo if piece.isupper() else promo.lower()
        pieces[to] = piece
        if space:
            spaces.discard(frm)
            spaces.add(to)
        elif piece in "Kk" and abs(to[0] - frm[0]) == 2:
            rook_from = (0 if to[0] < frm[0] else 6, frm[1])
            pieces[((frm[0] + to[0]) // 2, frm[1])] = pieces.pop(rook_from)
        return VoidriderReference(spaces, pieces, not self.white, self.castling)

    def legal(self) -> set[_RefMove]:
        found = set()
        for move in self.pseudo(self.white):
            child = self.after(move)
            king = next(s for s, p in child.pieces.items() if p == ("K" if self.white else "k"))
            if not child.attacked(king, not self.white):
                found.add(move)
        return found


def as_reference(move: VoidriderMove) -> _RefMove:
    f, t = move.from_cell, move.to_cell
    return (f % 7, f // 7), (t % 7, t // 7), move.space, move.promotion


def voidrider_king_attacked(state: VoidriderState, white: bool) -> bool:
    """The royal-safety judge: could any piece of the other side capture ``white``'s king in ``state``?"""
    ref = VoidriderReference.of(state)
    kings = [square for square, piece in ref.pieces.items() if piece == ("K" if white else "k")]
    assert len(kings) == 1, f"{'White' if white else 'Black'} has {len(kings)} kings"
    return ref.attacked(kings[0], not white)
