"""Voidrider Chess rules: attacks, move generation with space moves, legality, playing a move, results, perft."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from pbem.engine.base import Outcome, Seat, automatic_draw
from pbem.variants.voidrider.geometry import (
    ALL_RAYS,
    BLACK_PAWN_ATTACKERS,
    DIAGONAL_RAYS,
    EAST,
    HEIGHT,
    KING_STEPS,
    KNIGHT_LEAPS,
    NORTH,
    ORTHOGONAL_RAYS,
    ORTHOGONAL_STEPS,
    SIDE_NEIGHBOURS,
    SOUTH,
    WEST,
    WHITE_PAWN_ATTACKERS,
    cell,
    rank_of,
)
from pbem.variants.voidrider.model import (
    EMPTY,
    PROMOTIONS,
    VOID,
    Move,
    VoidriderState,
    position_key,
)

__all__ = [
    "CASTLING",
    "attacked",
    "castling_move",
    "in_check",
    "is_capture",
    "is_castling",
    "king_cell",
    "legal_moves",
    "outcome",
    "perft",
    "play",
    "pseudo_legal_moves",
    "repetitions",
    "supported",
]

#: A move inside the generator: from, to, space move?, promotion letter (upper case) or None.
_Raw = tuple[int, int, bool, str | None]

_WHITE_PIECES = "KRBNPV"
_BLACK_PIECES = "krbnpv"
#: A piece letter's kind (its upper case), looked up faster than str.upper in the move generator.
_KIND = {letter: letter.upper() for letter in _WHITE_PIECES + _BLACK_PIECES}

#: Castling right letter -> (king home, rook home, king target, rook target); O-O is toward the g-file.
CASTLING: dict[str, tuple[int, int, int, int]] = {
    "A": (cell(3, 1), cell(0, 1), cell(1, 1), cell(2, 1)),
    "G": (cell(3, 1), cell(6, 1), cell(5, 1), cell(4, 1)),
    "a": (cell(3, 7), cell(0, 7), cell(1, 7), cell(2, 7)),
    "g": (cell(3, 7), cell(6, 7), cell(5, 7), cell(4, 7)),
}
_RIGHT_BITS = {"A": 1, "G": 2, "a": 4, "g": 8}
#: Castling right letter -> the slice of cells strictly between king and rook, and that slice all empty.
_BETWEEN = {letter: (min(king, rook) + 1, max(king, rook), [EMPTY] * (abs(king - rook) - 1))
            for letter, (king, rook, _, _) in CASTLING.items()}
_ORDER = "AGag"
#: Rights lost when a move starts or ends on a cell: the king's or that rook's home.
_LOSES = [0] * (HEIGHT * 7)
for _letter, (_king, _rook, _, _) in CASTLING.items():
    _LOSES[_king] |= _RIGHT_BITS[_letter]
    _LOSES[_rook] |= _RIGHT_BITS[_letter]


def _mask(castling: str) -> int:
    bits = 0
    for letter in castling:
        bits |= _RIGHT_BITS[letter]
    return bits


def _letters(mask: int) -> str:
    return "".join(letter for letter in _ORDER if mask & _RIGHT_BITS[letter])


# -- attacks ----------------------------------------------------------------------------------------


def attacked(board: str | list[str], target: int, by_white: bool) -> bool:
    """Is ``target`` attacked by the side ``by_white``, with the spaces as they are on ``board``?

    Sliders stop at void (W5); the Voidrider attacks the first space in each of the eight
    directions, adjacent or across void (W11); knights leap.
    """
    if _leaped(board, target, by_white):
        return True
    rook, bishop, rider = "RBV" if by_white else "rbv"
    for rays, slider in ((ORTHOGONAL_RAYS[target], rook), (DIAGONAL_RAYS[target], bishop)):
        for ray in rays:
            if _line_attacks(board, ray, slider, rider):
                return True
    return False


def _leaped(board: str | list[str], target: int, by_white: bool) -> bool:
    """Is ``target`` attacked by a knight, king or pawn of the side ``by_white`` (nothing blocks them)?"""
    if by_white:
        knight, king, pawn = "NKP"
        pawn_cells = WHITE_PAWN_ATTACKERS[target]
    else:
        knight, king, pawn = "nkp"
        pawn_cells = BLACK_PAWN_ATTACKERS[target]
    for c in KNIGHT_LEAPS[target]:
        if board[c] == knight:
            return True
    for c in KING_STEPS[target]:
        if board[c] == king:
            return True
    for c in pawn_cells:  # noqa: SIM110 - a plain loop beats any() here
        if board[c] == pawn:
            return True
    return False


def _line_attacks(board: str | list[str], ray: tuple[int, ...], slider: str, rider: str) -> bool:
    """Whether ``slider`` (a rook or bishop along ``ray``) or ``rider`` attacks the ray's origin along it."""
    void_seen = space_seen = False
    for c in ray:
        p = board[c]
        if p == VOID:
            if space_seen:
                return False  # a slider is blocked by it, and the rider's first space was nearer
            void_seen = True
        elif p == EMPTY:
            if void_seen:
                return False  # the rider's first space is empty; sliders never crossed the void
            space_seen = True
        else:
            return (p == slider and not void_seen) or (p == rider and not space_seen)
    return False


def _ray_indices() -> tuple[tuple[int, ...], ...]:
    table = []
    for origin in range(HEIGHT * 7):
        index = [-1] * (HEIGHT * 7)
        for direction, ray in enumerate(ALL_RAYS[origin]):
            for c in ray:
                index[c] = direction
        table.append(tuple(index))
    return tuple(table)


#: RAY_INDEX[k][c]: which of ALL_RAYS[k] passes through c (0-3 orthogonal, 4-7 diagonal), or -1.
_RAY_INDEX = _ray_indices()
_NO_LINES = (-1,) * (HEIGHT * 7)


def king_cell(board: str | list[str], white: bool) -> int:
    return board.index("K" if white else "k")


def in_check(state: VoidriderState) -> bool:
    white = state.turn is Seat.WHITE
    return attacked(state.board, king_cell(state.board, white), not white)


def supported(board: str | list[str], target: int, vacated: int) -> bool:
    """The adjacency rule: ``target`` shares a side with a space other than the vacated cell (W2)."""
    for c in SIDE_NEIGHBOURS[target]:  # noqa: SIM110 - a plain loop beats any() in the move generator
        if c != vacated and board[c] != VOID:
            return True
    return False


# -- generation -------------------------------------------------------------------------------------


# Pawn tables per side (True: White): the cell ahead (-1 at the edge), the two forward diagonals in
# file order (where the other side's pawns would attack from), and the cells of the last rank.
_PAWN_AHEAD = {white: tuple(steps[NORTH if white else SOUTH] for steps in ORTHOGONAL_STEPS) for white in (True, False)}
_PAWN_CAPTURES = {True: BLACK_PAWN_ATTACKERS, False: WHITE_PAWN_ATTACKERS}
_LAST_RANK = {white: tuple(rank_of(c) == (HEIGHT - 1 if white else 0) for c in range(HEIGHT * 7))
              for white in (True, False)}
#: A space move's one-cell steps per cell and direction set: (target, the target's other side neighbours,
#: forward?). The target must be void and one of those neighbours a space (W2); see ``supported``.
_SpaceStep = tuple[int, tuple[int, ...], bool]


def _space_steps(directions: tuple[int, ...], forward: int) -> tuple[tuple[_SpaceStep, ...], ...]:
    table = []
    for frm in range(HEIGHT * 7):
        found = []
        for direction in directions:
            to = ORTHOGONAL_STEPS[frm][direction]
            if to >= 0:
                found.append((to, tuple(c for c in SIDE_NEIGHBOURS[to] if c != frm), direction == forward))
        table.append(tuple(found))
    return tuple(table)


_SPACE_STEPS = _space_steps((EAST, WEST, NORTH, SOUTH), -1)
#: The Voidrider's space moves run on across void (W5): per cell, its orthogonal rays as space steps.
_RIDER_SPACE_RAYS = tuple(tuple(tuple((to, tuple(c for c in SIDE_NEIGHBOURS[to] if c != frm)) for to in ray)
                                for ray in ORTHOGONAL_RAYS[frm]) for frm in range(HEIGHT * 7))
#: Pawn space moves: never backward (rules text, "a Pawn may never move its space backwards").
_PAWN_SPACE_STEPS = {True: _space_steps((EAST, WEST, NORTH), NORTH), False: _space_steps((EAST, WEST, SOUTH), SOUTH)}


def _pseudo(b: list[str], white: bool, rights: int) -> list[_Raw]:
    return _generate(b, white, rights, None)


def _generate(b: list[str], white: bool, rights: int, guard: _KingGuard | None) -> list[_Raw]:
    """The moves in one fixed order; with a ``guard``, only those that leave the own king safe.

    The guard judges only the moves of the pieces it watches; the others' moves pass untested.
    """
    own, enemy = (_WHITE_PIECES, _BLACK_PIECES) if white else (_BLACK_PIECES, _WHITE_PIECES)
    open_cells = EMPTY + enemy  # where a piece may land: an empty space or an enemy piece
    moves: list[_Raw] = []
    add = moves.append
    last_rank = _LAST_RANK[white]
    pawn_ahead, pawn_captures, pawn_space_steps = _PAWN_AHEAD[white], _PAWN_CAPTURES[white], _PAWN_SPACE_STEPS[white]
    # Whose moves the guard judges: every piece in check, else the king and the pieces on a watched line.
    if guard is None:
        everything, king, lines, watched = False, -1, _NO_LINES, 0
    else:
        everything, king, lines, watched = guard.checked, guard.king, _RAY_INDEX[guard.king], guard.watched
    for frm, p in enumerate(b):
        if p not in own:
            continue
        line = lines[frm]
        doubtful = everything or frm == king or (line >= 0 and watched >> line & 1)
        start = len(moves) if doubtful else 0
        kind = _KIND[p]
        if kind == "P":
            ahead = pawn_ahead[frm]
            if ahead >= 0:
                promotes = last_rank[ahead]
                if b[ahead] == EMPTY:
                    if promotes:
                        _promotions(add, frm, ahead, False)
                    else:
                        add((frm, ahead, False, None))
                for to in pawn_captures[frm]:
                    if b[to] in enemy:
                        if promotes:
                            _promotions(add, frm, to, False)
                        else:
                            add((frm, to, False, None))
            for to, others, ahead_of_it in pawn_space_steps[frm]:
                if b[to] == VOID:
                    for c in others:
                        if b[c] != VOID:
                            if ahead_of_it and last_rank[to]:
                                _promotions(add, frm, to, True)
                            else:
                                add((frm, to, True, None))
                            break
        else:
            if kind in ("N", "K"):
                for to in KNIGHT_LEAPS[frm] if kind == "N" else KING_STEPS[frm]:
                    if b[to] in open_cells:
                        add((frm, to, False, None))
            elif kind == "V":
                for ray in ALL_RAYS[frm]:
                    for to in ray:
                        q = b[to]
                        if q == VOID:
                            continue  # W5: the Voidrider rides on across void to the first space
                        if q not in own:
                            add((frm, to, False, None))
                        break
            else:
                for ray in (ORTHOGONAL_RAYS if kind == "R" else DIAGONAL_RAYS)[frm]:
                    for to in ray:
                        q = b[to]
                        if q == EMPTY:
                            add((frm, to, False, None))
                            continue
                        if q in enemy:
                            add((frm, to, False, None))
                        break  # void blocks a slider (W5), as does any piece
            # The space move: the piece carries its own space into void (W1-W3).
            if kind == "V":
                for run in _RIDER_SPACE_RAYS[frm]:
                    for to, others in run:
                        if b[to] != VOID:
                            break
                        for c in others:  # ``supported``, inline
                            if b[c] != VOID:
                                add((frm, to, True, None))
                                break
            else:
                for to, others, _ in _SPACE_STEPS[frm]:
                    if b[to] == VOID:
                        for c in others:  # ``supported``, inline: the generator's busiest test
                            if b[c] != VOID:
                                add((frm, to, True, None))
                                break
        if doubtful and guard is not None and len(moves) > start:
            moves[start:] = [move for move in moves[start:] if guard.allows(move)]
    if rights:
        start = len(moves)
        _castlings(b, white, rights, add)
        if guard is not None and len(moves) > start:
            moves[start:] = [move for move in moves[start:] if guard.allows(move)]
    return moves


def _promotions(add: Callable[[_Raw], None], frm: int, to: int, space: bool) -> None:
    for letter in PROMOTIONS:
        add((frm, to, space, letter))


def _castlings(b: list[str], white: bool, rights: int, add: Callable[[_Raw], None]) -> None:
    king, rook = ("K", "R") if white else ("k", "r")
    for letter in ("AG" if white else "ag"):
        if not rights & _RIGHT_BITS[letter]:
            continue
        home, rook_home, target, passed = CASTLING[letter]
        if b[home] != king or b[rook_home] != rook:
            continue
        # Every cell between king and rook must be a space, and empty (section 5.3, W7).
        low, high, empty = _BETWEEN[letter]
        if b[low:high] != empty:
            continue
        if any(attacked(b, c, not white) for c in (home, passed, target)):
            continue
        add((home, target, False, None))


def _make(b: list[str], move: _Raw) -> str:
    """Play ``move`` on the mutable board; returns what stood on the target (for _unmake)."""
    frm, to, space, promo = move
    p = b[frm]
    captured = b[to]
    if promo is not None:
        b[to] = promo if p == "P" else promo.lower()
    else:
        b[to] = p
    if space:
        b[frm] = VOID
        return captured
    b[frm] = EMPTY
    if (p == "K" or p == "k") and abs(to - frm) == 2:
        rook_from, rook_to = (to - 1, to + 1) if to < frm else (to + 1, to - 1)
        b[rook_to] = b[rook_from]
        b[rook_from] = EMPTY
    return captured


def _unmake(b: list[str], move: _Raw, p: str, captured: str) -> None:
    frm, to, space, _ = move
    b[frm] = p
    b[to] = captured
    if not space and (p == "K" or p == "k") and abs(to - frm) == 2:
        rook_from, rook_to = (to - 1, to + 1) if to < frm else (to + 1, to - 1)
        b[rook_from] = b[rook_to]
        b[rook_to] = EMPTY


class _KingGuard:
    """The own-king test of one position (W8: judged on the resulting position, whose spaces may differ)."""

    __slots__ = ("board", "checked", "king", "king_char", "rider", "sliders", "watched", "white")

    def __init__(self, b: list[str], white: bool) -> None:
        self.board, self.white = b, white
        self.king_char = "K" if white else "k"
        self.king = king = b.index(self.king_char)
        rook, bishop, self.rider = ("r", "b", "v") if white else ("R", "B", "V")
        self.sliders = (rook,) * 4 + (bishop,) * 4  # per line through the king: 0-3 orthogonal, 4-7 diagonal
        # Out of check, a move of another piece can only expose the king along the line through the cell
        # it leaves: emptied, that cell no longer blocks a slider; made void (a space move), it lets a
        # Voidrider ride through. Knights, pawns and kings attack regardless, and the arrival cell only
        # blocks (or removes an attacker). So only the lines with an enemy on them that could attack
        # along them are watched (a bit per line).
        self.watched = 0
        for line, ray in enumerate(ALL_RAYS[king]):
            slider = self.sliders[line]
            for c in ray:
                q = b[c]
                if q == slider or q == self.rider:
                    self.watched |= 1 << line
                    break
        # In check: attacked(b, king, not white), asking only the lines that have an attacker on them.
        self.checked = _leaped(b, king, not white) or any(
            _line_attacks(b, ray, self.sliders[line], self.rider)
            for line, ray in enumerate(ALL_RAYS[king]) if self.watched >> line & 1)

    def allows(self, move: _Raw) -> bool:
        """Whether ``move`` leaves the own king unattacked."""
        b, king = self.board, self.king
        frm = move[0]
        p = b[frm]
        captured = _make(b, move)
        if frm != king and not self.checked:
            line = _RAY_INDEX[king][frm]
            safe = line < 0 or not _line_attacks(b, ALL_RAYS[king][line], self.sliders[line], self.rider)
        else:
            safe = not attacked(b, move[1] if p == self.king_char else king, not self.white)
        _unmake(b, move, p, captured)
        return safe


def _legal(b: list[str], white: bool, rights: int) -> list[_Raw]:
    return _generate(b, white, rights, _KingGuard(b, white))


@lru_cache(maxsize=8192)
def _legal_cached(board: str, white: bool, castling: str) -> tuple[Move, ...]:
    return tuple(Move(*raw) for raw in _legal(list(board), white, _mask(castling)))


def legal_moves(state: VoidriderState) -> tuple[Move, ...]:
    """Every legal move of the side to move (draws and results aside)."""
    return _legal_cached(state.board, state.turn is Seat.WHITE, state.castling)


def pseudo_legal_moves(state: VoidriderState) -> tuple[Move, ...]:
    """Moves that follow the pieces' rules but may leave the own king attacked (for error messages)."""
    white = state.turn is Seat.WHITE
    return tuple(Move(*raw) for raw in _pseudo(list(state.board), white, _mask(state.castling)))


def is_castling(state: VoidriderState, move: Move) -> bool:
    p = state.board[move.from_cell]
    return not move.space and p in "Kk" and abs(move.to_cell - move.from_cell) == 2


def castling_move(state: VoidriderState, kingside: bool) -> Move:
    """The king's move of O-O (toward the g-file rook) or O-O-O, legal or not."""
    letter = ("G" if kingside else "A") if state.turn is Seat.WHITE else ("g" if kingside else "a")
    home, _, target, _ = CASTLING[letter]
    return Move(home, target)


def is_capture(state: VoidriderState, move: Move) -> bool:
    return not move.space and state.board[move.to_cell] not in (VOID, EMPTY)


# -- playing ----------------------------------------------------------------------------------------


def play(state: VoidriderState, move: Move) -> VoidriderState:
    """The position after ``move``; the caller has checked that it is legal."""
    b = list(state.board)
    p = b[move.from_cell]
    raw: _Raw = (move.from_cell, move.to_cell, move.space, move.promotion)
    captured = _make(b, raw)
    board = "".join(b)
    castling = _letters(_mask(state.castling) & ~_LOSES[move.from_cell] & ~_LOSES[move.to_cell])
    capture = not move.space and captured != EMPTY
    pawn = p in "Pp"
    white = state.turn is Seat.WHITE
    turn = state.turn.other
    key = position_key(board, turn, castling)
    # W9: every pawn action resets the clock; a sideways pawn space move can be undone, so it
    # does not cut the repetition history, while captures, pawn advances and lost rights do.
    sideways = move.space and rank_of(move.from_cell) == rank_of(move.to_cell)
    irreversible = capture or (pawn and not sideways) or castling != state.castling
    return VoidriderState(
        board=board,
        turn=turn,
        castling=castling,
        halfmove=0 if capture or pawn else state.halfmove + 1,
        fullmove=state.fullmove + (0 if white else 1),
        history=(key,) if irreversible else (*state.history, key),
    )


# -- results ----------------------------------------------------------------------------------------


def repetitions(state: VoidriderState) -> int:
    """How often the current position (W10: pieces and spaces) occurred since the last irreversible move."""
    return state.history.count(position_key(state.board, state.turn, state.castling))


def bare_kings(board: str) -> bool:
    return all(p in (VOID, EMPTY, "K", "k") for p in board)


@lru_cache(maxsize=4096)
def outcome(state: VoidriderState) -> Outcome | None:
    """Mate, stalemate and the draws that need no claim (bare kings, 75 moves, fivefold)."""
    if not legal_moves(state):
        if in_check(state):
            return Outcome.win(state.turn.other, "checkmate")
        return Outcome.draw("stalemate")
    if bare_kings(state.board):
        return Outcome.draw("insufficient material (kings only)")
    return automatic_draw(state.halfmove, repetitions(state))


def perft(state: VoidriderState, depth: int) -> int:
    """Leaf nodes of the legal-move tree, by make/unmake on one board.

    Counts the same tree as the generic apply-based perft, except that fivefold
    repetition inside the tree is not detected (the position history is not tracked).
    """
    if depth == 0:
        return 1
    if outcome(state) is not None:
        return 0
    material = sum(1 for p in state.board if p not in (VOID, EMPTY, "K", "k"))
    return _perft(list(state.board), state.turn is Seat.WHITE, _mask(state.castling), depth, state.halfmove,
                  material)


def _perft(b: list[str], white: bool, rights: int, depth: int, halfmove: int, material: int) -> int:
    moves = _legal(b, white, rights)
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        frm, to, space, _ = move
        p = b[frm]
        captured = _make(b, move)
        capture = not space and captured != EMPTY
        left = material - 1 if capture else material
        clock = 0 if capture or p == "P" or p == "p" else halfmove + 1
        # A child where the game is over (bare kings, 75-move rule) has no moves: it adds nothing.
        if left and clock < 150:
            total += _perft(b, not white, rights & ~_LOSES[frm] & ~_LOSES[to], depth - 1, clock, left)
        _unmake(b, move, p, captured)
    return total
