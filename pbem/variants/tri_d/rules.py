"""Tri-d rules: move generation, legality, playing a move, attack-board ownership, draws and results."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from pbem.engine.base import Outcome, Seat, automatic_draw
from pbem.variants.tri_d.geometry import ADJACENT, DIAGONAL_RAYS, ORTHOGONAL_RAYS, Geometry, geometry_for, step
from pbem.variants.tri_d.model import (
    BISHOP,
    BLACK,
    BLACK_BIT,
    BOARD,
    BOX,
    CASTLE_K,
    CASTLE_Q,
    EP,
    KING,
    KNIGHT,
    NORMAL,
    PAWN,
    PIN_CELLS,
    PIN_INDEX,
    PINS,
    QUEEN,
    ROOK,
    ROOK_PAWN,
    UNMOVED,
    WHITE,
    Move,
    Rules,
    TriDState,
    level_of,
    pos,
    rank_of,
)

__all__ = [
    "CASTLING_SQUARES",
    "attacked",
    "geometry",
    "in_check",
    "initial_state",
    "is_promotion_square",
    "king_square",
    "legal_moves",
    "normalise",
    "outcome",
    "play",
    "position_key",
    "repetitions",
]

PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)


def _promotion_table(color: int) -> bytes:
    # MB rank 8 / AB rank 9 for White; V14: an AB square on rank 8 is not a promotion square.
    last_mb, last_ab = (8, 9) if color == WHITE else (1, 0)
    return bytes(1 if rank_of(p) == last_ab or (rank_of(p) == last_mb and level_of(p) % 2 == 0) else 0
                 for p in range(BOX))


PROMOTION_SQUARES = (_promotion_table(WHITE), _promotion_table(BLACK))


def is_promotion_square(p: int, color: int) -> bool:
    return bool(PROMOTION_SQUARES[color][p])


#: King start, king's castled square, rook start, rook's castled square, per colour and side (spec 2.4).
CASTLING_SQUARES = {
    (WHITE, CASTLE_K): (pos(4, 0, 1), pos(5, 0, 1), pos(5, 0, 1), pos(4, 0, 1)),
    (WHITE, CASTLE_Q): (pos(4, 0, 1), pos(1, 0, 1), pos(0, 0, 1), pos(4, 0, 1)),
    (BLACK, CASTLE_K): (pos(4, 9, 7), pos(5, 9, 7), pos(5, 9, 7), pos(4, 9, 7)),
    (BLACK, CASTLE_Q): (pos(4, 9, 7), pos(1, 9, 7), pos(0, 9, 7), pos(4, 9, 7)),
}
#: V6 (c): the positions between king and queen's rook on the rear rank (implied, so always empty).
_QUEENSIDE_BETWEEN = {WHITE: (pos(2, 0, 1), pos(3, 0, 1)), BLACK: (pos(2, 9, 7), pos(3, 9, 7))}


def _king_lines() -> tuple[tuple[bytes, ...], tuple[tuple[tuple[tuple[int, ...], int], ...], ...]]:
    lines, rays = [], []
    for k in range(BOX):
        index = bytearray(BOX)
        found = [(ray, ROOK) for ray in ORTHOGONAL_RAYS[k]] + [(ray, BISHOP) for ray in DIAGONAL_RAYS[k]]
        for number, (ray, _) in enumerate(found, start=1):
            for q in ray:
                index[q] = number
        lines.append(bytes(index))
        rays.append(tuple(found))
    return tuple(lines), tuple(rays)


#: LINES[k][p]: 0, or 1 + the index in KING_RAYS[k] of the slider line through k that p lies on, so
#: moving a piece off p may expose k along that line (and only along it); KING_RAYS[k] holds each
#: line with the slider (ROOK or BISHOP, besides the queen) that attacks along it.
LINES, KING_RAYS = _king_lines()
_NO_LINES = bytes(BOX)


def geometry(state: TriDState) -> Geometry:
    return geometry_for(tuple(pin for pin, _ in state.boards), state.rules.knight_two_routes)


def king_square(board: Sequence[int], color: int) -> int:
    code = KING | (BLACK_BIT if color == BLACK else 0)
    for candidate in (code, code | UNMOVED):
        if candidate in board:  # cheaper than the ValueError of a failed index on this long board
            return board.index(candidate)
    return -1


def attacked(board: Sequence[int], geo: Geometry, target: int, by: int) -> bool:
    """Whether side ``by`` attacks ``target``, with exactly the movement geometry (V13)."""
    bit = BLACK_BIT if by == BLACK else 0
    knight, king, pawn = KNIGHT | bit, KING | bit, PAWN | bit
    for s in geo.knight_from[target]:
        if board[s] & 15 == knight:
            return True
    for s in geo.pawn_from[by][target]:
        if board[s] & 15 == pawn:
            return True
    for s in geo.king_from[target]:
        if board[s] & 15 == king:
            return True
    rook, queen, bishop = ROOK | bit, QUEEN | bit, BISHOP | bit
    for ray in geo.orthogonal[target]:
        for s in ray:
            code = board[s]
            if code:
                code &= 15
                if code in (rook, queen):
                    return True
                break
    for ray in geo.diagonal[target]:
        for s in ray:
            code = board[s]
            if code:
                code &= 15
                if code in (bishop, queen):
                    return True
                break
    return False


def in_check(state: TriDState) -> bool:
    king = king_square(state.board, state.turn)
    return king >= 0 and attacked(state.board, geometry(state), king, 1 - state.turn)


def _promotions(moves: list[Move], move: Move) -> None:
    for piece in PROMOTIONS:
        moves.append(move._replace(promo=piece))


def pseudo_moves(board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, ep: int,
                 fullmove: int, rules: Rules, geo: Geometry) -> list[Move]:
    """Moves that obey the movement rules, before the own-king test."""
    return _generate(board, boards, turn, ep, fullmove, rules, geo, None)


def _generate(board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, ep: int, fullmove: int,
              rules: Rules, geo: Geometry, guard: _KingGuard | None) -> list[Move]:
    """The moves, in one fixed order; with a ``guard``, only those that leave the own king safe.

    The guard looks only at the moves of a piece whose leaving could matter (the king, a piece on a
    line through the king, an en-passant capture, every piece in check), so most moves pass untested.
    """
    moves: list[Move] = []
    add = moves.append
    own_bit = BLACK_BIT if turn == BLACK else 0
    promo_squares = PROMOTION_SQUARES[turn]
    if guard is None:
        lines, king, checked = _NO_LINES, -1, False
    else:
        lines, king, checked = LINES[guard.king], guard.king, guard.checked
    pawn_push, pawn_double, pawn_capture = geo.pawn_push[turn], geo.pawn_double[turn], geo.pawn_capture[turn]
    knight_steps, king_steps, slides = geo.knight_steps, geo.king_steps, geo.slides
    for p in geo.squares:
        code = board[p]
        if not code or code & BLACK_BIT != own_bit:
            continue
        kind = code & 7
        start = len(moves)
        doubtful = checked or p == king or lines[p]
        if kind == PAWN:
            for d, move in pawn_push[p]:
                if not board[d]:
                    if promo_squares[d]:
                        _promotions(moves, move)
                    else:
                        add(move)
            if code & UNMOVED:
                for mid, (d, move) in pawn_double[p]:
                    if not board[mid] and not board[d]:
                        if promo_squares[d]:
                            _promotions(moves, move)
                        else:
                            add(move)
            for d, move in pawn_capture[p]:
                target = board[d]
                if target:
                    if target & BLACK_BIT != own_bit:
                        if promo_squares[d]:
                            _promotions(moves, move)
                        else:
                            add(move)
                elif d == ep:
                    add(Move(EP, p, d))
                    doubtful = True  # the captured pawn's square opens too
            if code & ROOK_PAWN:
                d = geo.rook_pawn[turn][p]
                if d >= 0 and not board[d]:
                    if promo_squares[d]:
                        _promotions(moves, step(p, d)[1])
                    else:
                        add(step(p, d)[1])
        elif kind in (KNIGHT, KING):
            for d, move in (knight_steps[p] if kind == KNIGHT else king_steps[p]):
                target = board[d]
                if not target or target & BLACK_BIT != own_bit:
                    add(move)
        else:
            for ray in slides[kind][p]:
                for d, move in ray:
                    target = board[d]
                    if target:
                        if target & BLACK_BIT != own_bit:
                            add(move)
                        break
                    add(move)
        if doubtful and guard is not None and len(moves) > start:
            moves[start:] = [move for move in moves[start:] if guard.allows(move)]
    if not checked:  # V6 (d): never out of check
        for side in (CASTLE_K, CASTLE_Q):
            if castling_error(board, turn, side, fullmove, rules, geo, check_attacks=False) is None:
                king_from, king_to, _, _ = CASTLING_SQUARES[(turn, side)]
                castle = Move(side, king_from, king_to)
                if guard is None or guard.allows(castle):
                    add(castle)
    taken = {pin for pin, _ in boards}
    for pin, owner in boards:
        if owner != turn:
            continue
        carried = -1
        for i, cell in enumerate(PIN_CELLS[pin]):
            code = board[cell]
            if code:
                if carried >= 0 or code & 15 != PAWN | own_bit:
                    break  # V10: only an empty board or one carrying a single own pawn moves
                carried = i
        else:
            for target in ADJACENT[pin]:
                if target not in taken:
                    shift = Move(BOARD, pin, target)
                    if guard is not None and not guard.allows(shift):
                        continue
                    if carried >= 0 and promo_squares[PIN_CELLS[target][carried]]:
                        _promotions(moves, shift)
                    else:
                        add(shift)
    return moves


def board_cargo_error(board: Sequence[int], pin: int, turn: int) -> str | None:
    """Why the attack board at ``pin`` cannot move for ``turn`` because of what it carries, or None."""
    pieces = [board[c] for c in PINS[pin].cells if board[c]]
    if not pieces:
        return None
    if len(pieces) == 1 and pieces[0] & 7 == PAWN and (pieces[0] & BLACK_BIT) == (BLACK_BIT if turn else 0):
        return None
    return (f"the attack board at {PINS[pin].name} carries {_count(len(pieces))}; an attack board moves only "
            "when it is empty or carries a single pawn of yours")


def _count(n: int) -> str:
    return "1 piece" if n == 1 else f"{n} pieces"


def castling_error(board: Sequence[int], turn: int, side: int, fullmove: int, rules: Rules,
                   geo: Geometry, *, check_attacks: bool = True) -> str | None:
    """Why castling on ``side`` is not allowed (V6, V17), or None; attacks only when asked."""
    name = "kingside" if side == CASTLE_K else "queenside"
    king_from, king_to, rook_from, _ = CASTLING_SQUARES[(turn, side)]
    bit = BLACK_BIT if turn == BLACK else 0
    if board[king_from] != KING | bit | UNMOVED:
        return f"you cannot castle {name}: your king has moved"
    if board[rook_from] != ROOK | bit | UNMOVED:
        return f"you cannot castle {name}: the rook has moved or is gone (a promoted rook never castles)"
    if not rules.castle_on_first_move and fullmove == 1:
        return "castling is not allowed as a first move in this game (option first-move-castling=no)"
    if side == CASTLE_Q:
        if board[king_to]:
            return "you cannot castle queenside: the queen's start square must be empty"
        if any(board[p] for p in _QUEENSIDE_BETWEEN[turn]) or not geo.surface[king_to]:
            return "you cannot castle queenside: the way between king and rook is not clear"
    if check_attacks:
        if attacked(board, geo, king_from, 1 - turn):
            return "you cannot castle out of check"
        after = list(board)
        _castle(after, turn, side)
        if attacked(after, geo, king_to, 1 - turn):
            return f"you cannot castle {name}: the king's destination is attacked"
    return None


def _castle(board: list[int], turn: int, side: int) -> None:
    king_from, king_to, rook_from, rook_to = CASTLING_SQUARES[(turn, side)]
    king, rook = board[king_from] & ~UNMOVED, board[rook_from] & ~UNMOVED
    board[king_from] = board[rook_from] = 0
    board[king_to], board[rook_to] = king, rook


def _victim(ep: int, turn: int) -> int:
    # The pawn that double-stepped stands one rank past the skipped square, seen from its own side:
    # below it when White captures a black pawn, above it when Black captures a white one.
    return ep - 6 if turn == WHITE else ep + 6


def make(board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, move: Move,
         rules: Rules) -> tuple[list[int], tuple[tuple[int, int], ...]]:
    """The board and attack boards after ``move``; ownership is not yet re-evaluated."""
    after = list(board)
    return after, _apply(after, boards, turn, move, rules)[0]


#: What undoes a move played in place: (position, code it held) pairs.
_Undo = list[tuple[int, int]]


def _apply(board: list[int], boards: tuple[tuple[int, int], ...], turn: int, move: Move,
           rules: Rules) -> tuple[tuple[tuple[int, int], ...], _Undo]:
    """Play ``move`` on ``board`` in place: the attack boards after it (ownership not yet re-evaluated)
    and what undoes it (``_undo``); every changed position is saved before any change."""
    kind, src, dst, promo = move
    if kind == BOARD:
        old, new = PIN_CELLS[src], PIN_CELLS[dst]
        saved = [(cell, board[cell]) for cell in (*old, *new)]
        for i, cell in enumerate(old):
            code = board[cell]
            if code:
                board[cell] = 0
                if promo:
                    code = promo | (code & BLACK_BIT)
                elif not rules.carried_double_step:
                    code &= ~UNMOVED
                board[new[i]] = code  # V10: the pawn keeps its cell relative to the pin
        return tuple(sorted((dst if pin == src else pin, owner) for pin, owner in boards)), saved
    if kind in (CASTLE_K, CASTLE_Q):
        saved = [(cell, board[cell]) for cell in CASTLING_SQUARES[(turn, kind)]]
        _castle(board, turn, kind)
        return boards, saved
    code = board[src]
    saved = [(src, code), (dst, board[dst])]
    board[src] = 0
    if kind == EP:
        victim = _victim(dst, turn)
        saved.append((victim, board[victim]))
        board[victim] = 0
    board[dst] = (promo | (code & BLACK_BIT)) if promo else code & ~UNMOVED
    return boards, saved


def _undo(board: list[int], saved: _Undo) -> None:
    for cell, code in saved:
        board[cell] = code


def update_owners(board: Sequence[int],
                  boards: tuple[tuple[int, int], ...]) -> tuple[tuple[int, int], ...]:
    """V12: an attack board whose only occupants are the other side's passes to that side."""
    result = []
    changed = False
    for pin, owner in boards:
        colors = {board[c] & BLACK_BIT for c in PIN_CELLS[pin] if board[c]}
        if len(colors) == 1:
            holder = BLACK if colors.pop() else WHITE
            if holder != owner:
                owner, changed = holder, True
        result.append((pin, owner))
    return tuple(result) if changed else boards


def _safe(board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, move: Move, rules: Rules,
          geo: Geometry, king: int, checked: bool) -> bool:
    kind, src = move.kind, move.src
    if kind == NORMAL and not checked and src != king and not LINES[king][src]:
        return True  # nothing leaps differently, and no line through the king opens
    after, new_boards = make(board, boards, turn, move, rules)
    if kind == BOARD:
        geo = geometry_for(tuple(pin for pin, _ in new_boards), rules.knight_two_routes)
    target = move.dst if src == king and kind == NORMAL else (
        CASTLING_SQUARES[(turn, kind)][1] if kind in (CASTLE_K, CASTLE_Q) else king)
    return not attacked(after, geo, target, 1 - turn)


def _exposes(board: Sequence[int], line: tuple[int, ...], slider: int, src: int, dst: int) -> bool:
    """Whether moving src -> dst (-1: off the line) uncovers ``slider`` (a piece code with colour; or that
    colour's queen) along ``line``, outward from the square it would attack."""
    queen = QUEEN | (slider & BLACK_BIT)
    for q in line:
        if q == src:
            continue
        if q == dst:
            return False
        code = board[q]
        if code:
            code &= 15
            return code in (slider, queen)
    return False


class _KingGuard:
    """The own-king test of one position (exact geometry, V13), with what every move shares worked out once."""

    __slots__ = ("board", "boards", "checked", "enemy", "enemy_bit", "geo", "king", "rules", "turn")

    def __init__(self, board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, rules: Rules,
                 geo: Geometry, king: int) -> None:
        self.board, self.boards, self.turn, self.rules, self.geo, self.king = board, boards, turn, rules, geo, king
        self.enemy = 1 - turn
        self.enemy_bit = BLACK_BIT if self.enemy == BLACK else 0
        self.checked = attacked(board, geo, king, self.enemy)

    def allows(self, move: Move) -> bool:
        """Whether ``move`` leaves the own king unattacked."""
        kind, src, dst, _ = move
        board, king = self.board, self.king
        if kind == NORMAL:
            if src == king:
                if attacked(board, self.geo, dst, self.enemy):
                    return False
                # The king's own square must not shield it from a slider behind it, on the line from dst.
                line = LINES[dst][king]
                if not line:
                    return True
                ray, slider = KING_RAYS[dst][line - 1]
                return not _exposes(board, ray, slider | self.enemy_bit, king, -1)
            if not self.checked:
                # Nothing leaps differently, and only the line through the king that src is on can open.
                line = LINES[king][src]
                if not line:
                    return True
                ray, slider = KING_RAYS[king][line - 1]
                return not _exposes(board, ray, slider | self.enemy_bit, src, dst)
        elif kind in (CASTLE_K, CASTLE_Q):
            # Out of check (never castling in check, V6 (d)): the rook ends on the king's start square and
            # shields the king's new square as the king did; the queenside rook leaves a0 or a9 at the
            # box's edge, behind which no line continues. So the board as it is tells.
            return not attacked(board, self.geo, dst, self.enemy)
        return _safe(board, self.boards, self.turn, move, self.rules, self.geo, king, self.checked)


def legal_raw(board: Sequence[int], boards: tuple[tuple[int, int], ...], turn: int, ep: int, fullmove: int,
              rules: Rules, king: int | None = None, geo: Geometry | None = None) -> list[Move]:
    """The legal moves, in generation order; ``king`` and ``geo`` are the mover's king square and the geometry
    of ``boards`` where the caller knows them."""
    if geo is None:
        geo = geometry_for(tuple(pin for pin, _ in boards), rules.knight_two_routes)
    if king is None:
        king = king_square(board, turn)
    if king < 0:
        return _generate(board, boards, turn, ep, fullmove, rules, geo, None)
    return _generate(board, boards, turn, ep, fullmove, rules, geo, _KingGuard(board, boards, turn, rules, geo, king))


def legal_moves(state: TriDState) -> tuple[Move, ...]:
    """Legal moves of the side to move; cached, as parsing, applying and judging ask again and again."""
    return _legal_cached(state.board, state.boards, state.turn, state.ep, state.fullmove, state.rules)


@lru_cache(maxsize=512)
def _legal_cached(board: tuple[int, ...], boards: tuple[tuple[int, int], ...], turn: int, ep: int, fullmove: int,
                  rules: Rules) -> tuple[Move, ...]:
    return tuple(legal_raw(board, boards, turn, ep, fullmove, rules))


def _new_ep(board: Sequence[int], move: Move, turn: int, geo: Geometry) -> int:
    # A double step leaves an en-passant square when the skipped position is a surface (spec 2.4).
    if move.kind != NORMAL or board[move.src] & 7 != PAWN or move.promo:
        return -1  # a double step onto the last rank promotes: no pawn is left to take en passant
    if abs(move.dst - move.src) != 12 or level_of(move.dst) != level_of(move.src):
        return -1
    mid = (move.src + move.dst) // 2
    return mid if geo.surface[mid] else -1


def perft(state: TriDState, depth: int) -> int:
    """Leaf nodes of the legal-move tree (draws by claim or by count are ignored, as for ``pbem perft``)."""
    kings = (king_square(state.board, WHITE), king_square(state.board, BLACK))
    return _perft(list(state.board), state.boards, state.turn, state.ep, state.fullmove, state.rules, depth, kings,
                  None)


def _perft(board: list[int], boards: tuple[tuple[int, int], ...], turn: int, ep: int, fullmove: int,
           rules: Rules, depth: int, kings: tuple[int, int], geo: Geometry | None) -> int:
    """Perft by make/unmake on one board; ``geo`` is the geometry of ``boards`` where the caller knows it."""
    if depth == 0:
        return 1
    if geo is None:
        geo = geometry_for(tuple(pin for pin, _ in boards), rules.knight_two_routes)
    moves = legal_raw(board, boards, turn, ep, fullmove, rules, kings[turn], geo)
    if depth == 1:
        return len(moves)
    on_boards = geo.board_at
    total = 0
    next_full = fullmove + (1 if turn == BLACK else 0)
    for move in moves:
        kind, src, dst, _ = move
        next_ep = _new_ep(board, move, turn, geo)
        new_boards, saved = _apply(board, boards, turn, move, rules)
        if kind != NORMAL or src in on_boards or dst in on_boards:
            new_boards = update_owners(board, new_boards)  # only then can an attack board's occupants change
        king = kings[turn]
        if kind == NORMAL and src == king:
            king = dst
        elif kind in (CASTLE_K, CASTLE_Q):
            king = CASTLING_SQUARES[(turn, kind)][1]
        total += _perft(board, new_boards, 1 - turn, next_ep, next_full, rules, depth - 1,
                        (king, kings[1]) if turn == WHITE else (kings[0], king), None if kind == BOARD else geo)
        _undo(board, saved)
    return total


def position_key(state: TriDState) -> str:
    """Repetition identity: pieces with their flags, attack boards and owners, side to move, en passant."""
    data = bytes(state.board) + bytes(x for pair in state.boards for x in pair)
    data += bytes((state.turn,)) + (state.ep + 1).to_bytes(2, "big")
    return hashlib.blake2b(data, digest_size=10).hexdigest()


def normalise(state: TriDState) -> TriDState:
    """Keep the en-passant square only if a legal capture there exists, so equal positions compare equal."""
    if state.ep >= 0 and not any(m.kind == EP for m in legal_moves(state)):
        return replace(state, ep=-1)
    return state


def initial_state(rules: Rules) -> TriDState:
    """Spec 2.3: White's attack boards at b1(1) and e1(1), Black's the mirror at b8(7) and e8(7)."""
    board = [0] * BOX
    back = {0: ROOK, 1: QUEEN, 4: KING, 5: ROOK}
    for color, rank_of_back, rank_of_pawns, level_ab, level_mb, mb_back, mb_pawns in (
            (WHITE, 0, 1, 1, 2, 1, 2), (BLACK, 9, 8, 7, 6, 8, 7)):
        bit = BLACK_BIT if color == BLACK else 0
        for file, kind in back.items():
            board[pos(file, rank_of_back, level_ab)] = kind | bit | (0 if kind == QUEEN else UNMOVED)
        for file in (0, 1, 4, 5):
            board[pos(file, rank_of_pawns, level_ab)] = PAWN | bit | UNMOVED | (ROOK_PAWN if file in (0, 5) else 0)
        for file, kind in zip(range(1, 5), (KNIGHT, BISHOP, BISHOP, KNIGHT), strict=True):
            board[pos(file, mb_back, level_mb)] = kind | bit
            board[pos(file, mb_pawns, level_mb)] = PAWN | bit | UNMOVED
    boards = tuple(sorted((PIN_INDEX[name], owner) for name, owner in (
        ("b1(1)", WHITE), ("e1(1)", WHITE), ("b8(7)", BLACK), ("e8(7)", BLACK))))
    state = TriDState(board=tuple(board), boards=boards, rules=rules)
    return replace(state, history=(position_key(state),))


def play(state: TriDState, move: Move) -> TriDState:
    """The state after a legal ``move``: ownership, en passant, clocks and repetition history updated."""
    geo = geometry(state)
    after, boards = make(state.board, state.boards, state.turn, move, state.rules)
    boards = update_owners(after, boards)
    mover = state.board[move.src] & 7 if move.kind != BOARD else 0
    capture = move.kind == EP or (move.kind == NORMAL and bool(state.board[move.dst]))
    irreversible = capture or mover == PAWN or (move.kind == BOARD and bool(move.promo))
    new = TriDState(
        board=tuple(after),
        boards=boards,
        turn=1 - state.turn,
        ep=_new_ep(state.board, move, state.turn, geo),
        halfmove=0 if irreversible else state.halfmove + 1,
        fullmove=state.fullmove + (1 if state.turn == BLACK else 0),
        history=(),
        rules=state.rules,
    )
    new = normalise(new)
    key = position_key(new)
    return replace(new, history=(key,) if irreversible else (*state.history, key))


def repetitions(state: TriDState) -> int:
    """How often the current position occurred since the last irreversible move (it is the last key)."""
    if not state.history:
        return 1
    return state.history.count(state.history[-1])


def _bare_kings(state: TriDState) -> bool:
    return all(code & 7 == KING for code in state.board if code)


def outcome(state: TriDState) -> Outcome | None:
    """Checkmate, stalemate, and the draws that end the game by themselves (spec README)."""
    if not legal_moves(state):
        if in_check(state):
            return Outcome.win(Seat.BLACK if state.turn == WHITE else Seat.WHITE, "checkmate")
        return Outcome.draw("stalemate")
    return _drawn_by_itself(state)


def _drawn_by_itself(state: TriDState) -> Outcome | None:
    if _bare_kings(state):
        return Outcome.draw("insufficient material (only the kings are left)")
    return automatic_draw(state.halfmove, repetitions(state))
