"""Space Chess rules: move generation with level transfers, legality, playing a move, results and reasons."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from itertools import compress

from pbem.engine.base import Outcome, Seat, automatic_draw
from pbem.variants.space_chess.geometry import (
    BISHOP_RAYS,
    KING_STEPS,
    KNIGHT_JUMPS,
    PAWN_ATTACKERS,
    PAWN_CAPTURES,
    ROOK_RAYS,
    SQUARES,
    markings,
)
from pbem.variants.space_chess.model import (
    BISHOP,
    BLACK,
    KING,
    KNIGHT,
    PAWN,
    QUEEN,
    ROOK,
    WHITE,
    Move,
    Options,
    SpaceState,
    square,
)

__all__ = [
    "Position",
    "attacked",
    "in_check",
    "initial_state",
    "is_capture",
    "king_square",
    "legal_moves",
    "outcome",
    "perft",
    "play",
    "repetitions",
    "seat_of",
]

_PROMOTIONS = (QUEEN, ROOK, BISHOP, KNIGHT)
_BACK_RANK = (ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK)


def seat_of(colour: int) -> Seat:
    return Seat.WHITE if colour == WHITE else Seat.BLACK


def side_name(colour: int) -> str:
    return "White" if colour == WHITE else "Black"


# -- attacks --------------------------------------------------------------------------------------


def attacked(board: list[int] | tuple[int, ...], target: int, by: int) -> bool:
    """Whether a piece of colour ``by`` attacks ``target``; attacks never leave their level (S13)."""
    knight, king, pawn = by * KNIGHT, by * KING, by * PAWN
    for s in KNIGHT_JUMPS[target]:
        if board[s] == knight:
            return True
    for s in PAWN_ATTACKERS[0 if by == WHITE else 1][target]:
        if board[s] == pawn:
            return True
    for s in KING_STEPS[target]:
        if board[s] == king:
            return True
    rook, bishop, queen = by * ROOK, by * BISHOP, by * QUEEN
    for ray in ROOK_RAYS[target]:
        for s in ray:
            p = board[s]
            if p:
                if p in (rook, queen):
                    return True
                break
    for ray in BISHOP_RAYS[target]:
        for s in ray:
            p = board[s]
            if p:
                if p in (bishop, queen):
                    return True
                break
    return False


# -- the working position -------------------------------------------------------------------------


class Position:
    """A mutable copy of a state's board for generation and search (make/unmake)."""

    __slots__ = ("board", "ep", "options", "star", "symbol", "two_all", "unmoved", "us")

    def __init__(self, state: SpaceState) -> None:
        self.board = list(state.board)
        self.us = state.turn
        self.unmoved = state.unmoved
        self.ep = state.ep
        self.options = state.options
        marks = markings(state.options)
        self.star = marks.star
        self.symbol = marks.king_symbol
        self.two_all = state.options.two_level == "all"

    def king(self, colour: int) -> int:
        return self.board.index(colour * KING)

    def promotes(self, landing: int) -> bool:
        """Whether a pawn of the side to move arriving on ``landing`` promotes (S9, judged before any transfer)."""
        rank = (landing & 63) >> 3
        if rank != (7 if self.us == WHITE else 0):
            return False
        if self.options.promotion == "enemy-level":
            return landing >> 6 == (2 if self.us == WHITE else 0)
        return True


def _transfers(pos: Position, landing: int, first: int, kind: int) -> tuple[list[int], int]:
    """Final squares for a piece of type ``kind`` that arrived on ``landing``, and an S5 stay candidate or -1.

    First move (S3, S4, S7, S11): toward the middle level, one level or, from a star, two; the
    king may also stay; other pieces stay only when every transfer square is occupied. Later
    moves: from a star 1 or 2 levels either way, a king also 1 level from a king symbol; optional.
    """
    board = pos.board
    if first:
        step = 64 * pos.us
        options = []
        target = landing + step
        if 0 <= target < 192 and board[target] == 0:
            options.append(target)
        if pos.star[landing] and (pos.two_all or kind == PAWN):
            target += step
            if 0 <= target < 192 and board[target] == 0:
                options.append(target)
        if kind == KING:
            return [landing, *options], -1
        if not options:
            return [landing], -1
        return options, landing
    if pos.star[landing]:
        options = [landing]
        base, level = landing & 63, landing >> 6
        for other in range(3):
            if other != level and board[base + 64 * other] == 0:
                options.append(base + 64 * other)
        return options, -1
    if kind == KING and pos.symbol[landing]:
        options = [landing]
        level = landing >> 6
        if level > 0 and board[landing - 64] == 0:
            options.append(landing - 64)
        if level < 2 and board[landing + 64] == 0:
            options.append(landing + 64)
        return options, -1
    return [landing], -1


#: A landing square and the three moves that end on it: index = final level (one is the stay on the level).
_Landing = tuple[int, tuple[Move, Move, Move]]


def _landing(origin: int, landing: int) -> _Landing:
    base = landing & 63
    return landing, (Move(origin, landing, base), Move(origin, landing, base + 64), Move(origin, landing, base + 128))


def _landings(table: tuple[tuple[int, ...], ...]) -> tuple[tuple[_Landing, ...], ...]:
    return tuple(tuple(_landing(origin, landing) for landing in table[origin]) for origin in SQUARES)


def _pawn_steps(step: int) -> tuple[_Landing | None, ...]:
    """Per square, the landing ``step`` squares ahead on the same level, or None off the level."""
    return tuple(_landing(origin, origin + step) if 0 <= (origin & 63) + step < 64 else None for origin in SQUARES)


# The move objects are built once here, so that generation only picks them (a search generates millions).
_KNIGHT_LANDINGS = _landings(KNIGHT_JUMPS)
_KING_LANDINGS = _landings(KING_STEPS)
_PAWN_LANDINGS = (_landings(PAWN_CAPTURES[0]), _landings(PAWN_CAPTURES[1]))
#: Per colour index: a pawn's single and double step (None where it would leave the level).
_PAWN_SINGLE = (_pawn_steps(8), _pawn_steps(-8))
_PAWN_DOUBLE = (_pawn_steps(16), _pawn_steps(-16))
_RAY_LANDINGS = {kind: tuple(tuple(tuple(_landing(origin, landing) for landing in ray) for ray in rays[origin])
                             for origin in SQUARES)
                 for kind, rays in ((ROOK, ROOK_RAYS), (BISHOP, BISHOP_RAYS),
                                    (QUEEN, tuple(ROOK_RAYS[o] + BISHOP_RAYS[o] for o in SQUARES)))}


def _pseudo(pos: Position, check: bool, king: int = -1, pinned: int = 0) -> tuple[list[Move], list[Move]]:
    """Moves that obey everything but king safety, and the S5 stay candidates (first moves kept on the level).

    With the mover's ``king`` given, the moves are judged as they are made (``_safe``) and only the
    legal ones are kept, in the same order; the stay candidates are then collected only in check,
    where S5 may allow them. Without it (-1) nothing is judged and every stay candidate is kept.
    """
    board, us, unmoved, ep = pos.board, pos.us, pos.unmoved, pos.ep
    star, symbol, two_all = pos.star, pos.symbol, pos.two_all
    judge = king >= 0
    want_stays = check or not judge
    king_level = king >> 6
    moves: list[Move] = []
    stays: list[Move] = []
    keep = moves.append
    colour_index = 0 if us == WHITE else 1
    last_rank = 7 if us == WHITE else 0
    for origin in compress(SQUARES, board):  # the occupied squares, found in C
        piece = board[origin] * us
        if piece < 0:
            continue
        first = unmoved >> origin & 1
        level = origin >> 6
        promoting = False
        if piece == PAWN:
            if (origin & 63) >> 3 == last_rank:
                continue  # a pawn left on the last rank of a non-promotion level has no moves (S9 option)
            landings: list[_Landing] = []
            single = _PAWN_SINGLE[colour_index][origin]
            if single is not None and board[single[0]] == 0:
                landings.append(single)
                double = _PAWN_DOUBLE[colour_index][origin]
                if first and double is not None and board[double[0]] == 0:
                    landings.append(double)
            for capture in _PAWN_LANDINGS[colour_index][origin]:
                target = capture[0]
                if board[target] * us < 0 or target == ep:
                    landings.append(capture)
            promoting = (last_rank - ((origin & 63) >> 3)) * us <= 2  # a step or a double step reaches it
        elif piece in (KNIGHT, KING):
            landings = [landing for landing in (_KNIGHT_LANDINGS if piece == KNIGHT else _KING_LANDINGS)[origin]
                        if board[landing[0]] * us <= 0]
        else:
            landings = []
            for ray in _RAY_LANDINGS[piece][origin]:
                for step in ray:
                    p = board[step[0]] * us
                    if p > 0:
                        break
                    landings.append(step)
                    if p < 0:
                        break
        # How much of the S13 test the piece's moves need: none (``_safe`` would pass them untested),
        # only for a capture that transfers away or an en-passant capture (either empties a second
        # square on the king's level), or for every move.
        if not judge or (not check and piece != KING and level != king_level):
            doubt = 0
        elif check or piece == KING or pinned >> origin & 1:
            doubt = 2
        else:
            doubt = 1
        if first:
            # S3, S4, S7, S11: toward the middle level, one level or, from a star, two (-1: off the levels).
            toward = level + us if 0 <= level + us < 3 else -1
            further = level + 2 * us if 0 <= level + 2 * us < 3 and (two_all or piece == PAWN) else -1
        for landing, by_level in landings:
            if promoting and (landing & 63) >> 3 == last_rank and pos.promotes(landing):
                for promotion in _PROMOTIONS:
                    finals, _ = _transfers(pos, landing, 0, promotion)  # S15: the new piece has moved
                    for final in finals:
                        move = Move(origin, landing, final, promotion)
                        if not judge or _safe(pos, move, king, check, pinned):
                            keep(move)
                continue
            start = len(moves)
            base = landing & 63
            if first:
                if piece == KING:
                    keep(by_level[level])  # the king may always stay
                if toward >= 0 and board[base + 64 * toward] == 0:
                    keep(by_level[toward])
                if further >= 0 and star[landing] and board[base + 64 * further] == 0:
                    keep(by_level[further])
                if piece != KING:
                    if len(moves) == start:
                        keep(by_level[level])  # no transfer square is free: it stays
                    elif want_stays:
                        stays.append(by_level[level])
            elif star[landing] or (piece == KING and symbol[landing]):
                # From a star 1 or 2 levels either way; the king also 1 level from a king symbol. Optional.
                keep(by_level[level])
                for other in range(3):
                    if other != level and (star[landing] or abs(other - level) == 1) \
                            and board[base + 64 * other] == 0:
                        keep(by_level[other])
            else:
                keep(by_level[level])
            if doubt and (doubt == 2 or board[landing] or (piece == PAWN and (landing - origin) & 7)):
                moves[start:] = [move for move in moves[start:] if _safe(pos, move, king, check, pinned)]
        if piece == KING and first and not check:
            castlings: list[Move] = []
            _castlings(pos, origin, castlings)
            moves.extend(move for move in castlings if not judge or _safe(pos, move, king, check, pinned))
    return moves, stays


def _castling_squares(origin: int, kingside: bool) -> tuple[int, int, int, tuple[int, ...]]:
    """Rook square, king landing, rook landing and the squares between king and rook."""
    if kingside:
        return origin + 3, origin + 2, origin + 1, (origin + 1, origin + 2)
    return origin - 4, origin - 2, origin - 1, (origin - 1, origin - 2, origin - 3)


def _castlings(pos: Position, origin: int, moves: list[Move]) -> None:
    """S6, S14, S16: orthodox conditions on the home level; both stay, or both go one level toward the middle."""
    board, us = pos.board, pos.us
    if origin != square(0 if us == WHITE else 2, 0 if us == WHITE else 7, 4):
        return
    step = 64 * us
    for kingside in (True, False):
        rook, landing, rook_landing, between = _castling_squares(origin, kingside)
        if board[rook] != us * ROOK or not pos.unmoved >> rook & 1:
            continue
        if any(board[s] for s in between):
            continue
        if attacked(board, rook_landing, -us) or attacked(board, landing, -us):
            continue
        moves.append(Move(origin, landing, landing))
        if board[landing + step] == 0 and board[rook_landing + step] == 0:
            moves.append(Move(origin, landing, landing + step))


# -- make / unmake --------------------------------------------------------------------------------

_Undo = tuple[int, int, int, int, int, int, int]


def _make(pos: Position, move: Move) -> _Undo:
    """Play ``move`` on the position in place; the returned value undoes it."""
    board, us = pos.board, pos.us
    origin, landing, final, promotion = move
    piece = board[origin]
    kind = piece * us
    taken_square, taken = landing, board[landing]
    if kind == PAWN and taken == 0 and (landing - origin) & 7:
        taken_square = landing - 8 * us  # en passant: the pawn that passed, on this level (S12)
        taken = board[taken_square]
        board[taken_square] = 0
    board[origin] = 0
    board[landing] = 0
    board[final] = promotion * us if promotion else piece
    rook_from = rook_to = -1
    if kind == KING and abs((landing & 7) - (origin & 7)) == 2:
        rook_from, _, rook_to, _ = _castling_squares(origin, (landing & 7) == 6)
        rook_to += final - landing  # the rook transfers with the king (S6)
        board[rook_to] = board[rook_from]
        board[rook_from] = 0
    undo = (piece, taken, taken_square, rook_from, rook_to, pos.unmoved, pos.ep)
    cleared = (1 << origin) | (1 << landing)
    if rook_from >= 0:
        cleared |= 1 << rook_from  # S16: castling is the rook's first move too
    pos.unmoved &= ~cleared
    pos.ep = -1
    if kind == PAWN and abs(landing - origin) == 16:
        skipped = final - 8 * us
        if board[skipped] == 0:
            enemy_pawn = -us * PAWN
            for s in PAWN_ATTACKERS[1 if us == WHITE else 0][skipped]:
                if board[s] == enemy_pawn:
                    pos.ep = skipped
                    break
    pos.us = -us
    return undo


def _unmake(pos: Position, move: Move, undo: _Undo) -> None:
    board = pos.board
    origin, landing, final, _ = move
    piece, taken, taken_square, rook_from, rook_to, unmoved, ep = undo
    if rook_from >= 0:
        board[rook_from] = board[rook_to]
        board[rook_to] = 0
    board[final] = 0
    board[landing] = 0
    board[origin] = piece
    board[taken_square] = taken
    pos.unmoved, pos.ep = unmoved, ep
    pos.us = -pos.us


def _pinned(board: list[int], king: int, us: int) -> int:
    """Bit set of the mover's pieces pinned to its king on the king's level (against an enemy slider)."""
    pinned = 0
    for rays, slider in ((ROOK_RAYS[king], -us * ROOK), (BISHOP_RAYS[king], -us * BISHOP)):
        queen = -us * QUEEN
        for ray in rays:
            own = -1
            for s in ray:
                p = board[s]
                if not p:
                    continue
                if own < 0 and p * us > 0:
                    own = s
                    continue
                if own >= 0 and p in (slider, queen):
                    pinned |= 1 << own
                break
    return pinned


def _safe(pos: Position, move: Move, king: int, check: bool, pinned: int) -> bool:
    """S13: after the move and any transfer, the mover's king is not attacked on its final level."""
    board, us = pos.board, pos.us
    origin = move.origin
    piece = board[origin] * us
    if piece == KING:
        return _tested(pos, move, move.final)
    king_level = king >> 6
    if not check:
        if origin >> 6 != king_level:
            return True  # nothing leaves or is taken on the king's level, and an arrival cannot hurt
        if not pinned >> origin & 1 and not (piece == PAWN and board[move.landing] == 0
                                             and (move.landing - move.origin) & 7) \
                and not (board[move.landing] and move.final != move.landing):
            # Not pinned, no en passant (which also empties a second square), and no capture that
            # transfers away (which empties the captured piece's square too, S13).
            return True
    elif origin >> 6 != king_level and move.final >> 6 != king_level:
        return False  # the check on the king's level is untouched
    return _tested(pos, move, king)


def _tested(pos: Position, move: Move, king: int) -> bool:
    us = pos.us
    undo = _make(pos, move)
    safe = not attacked(pos.board, king, -us)
    _unmake(pos, move, undo)
    return safe


def _generate(pos: Position) -> list[Move]:
    board, us = pos.board, pos.us
    king = board.index(us * KING)
    check = attacked(board, king, -us)
    pinned = 0 if check else _pinned(board, king, us)
    legal, stays = _pseudo(pos, check, king, pinned)
    # S5: a first move may stay on its level (although it could transfer) only out of check, and by
    # default only when nothing else gets the king out of check; option first-move-stay=in-check
    # is the video's reading: whenever it ends the check.
    if check and stays and (not legal or pos.options.first_move_stay == "in-check"):
        legal.extend(m for m in stays if _safe(pos, m, king, check, pinned))
    return legal


@lru_cache(maxsize=8192)
def legal_moves(state: SpaceState) -> tuple[Move, ...]:
    """Every legal move of the side to move (game-ending draws are the caller's business)."""
    return tuple(_generate(Position(state)))


def king_square(state: SpaceState, colour: int) -> int:
    return state.board.index(colour * KING)


def in_check(state: SpaceState) -> bool:
    return attacked(state.board, king_square(state, state.turn), -state.turn)


def is_capture(state: SpaceState, move: Move) -> bool:
    board = state.board
    if board[move.landing] * state.turn < 0:
        return True
    return board[move.origin] * state.turn == PAWN and bool((move.landing - move.origin) & 7)


def perft(state: SpaceState, depth: int) -> int:
    """Leaf nodes of the legal-move tree, by make/unmake on one working position."""
    if depth == 0:
        return 1
    pos = Position(state)

    def count(depth: int) -> int:
        moves = _generate(pos)
        if depth == 1:
            return len(moves)
        total = 0
        for move in moves:
            undo = _make(pos, move)
            total += count(depth - 1)
            _unmake(pos, move, undo)
        return total

    return count(depth)


# -- states ---------------------------------------------------------------------------------------


def _key(board: tuple[int, ...] | list[int], turn: int, unmoved: int, ep: int) -> str:
    """A short digest of what makes positions the same for repetition: board, side, first-move rights, e.p."""
    data = bytes(p + 6 for p in board) + bytes([turn + 1]) + unmoved.to_bytes(24, "big") + (ep + 1).to_bytes(1, "big")
    return hashlib.blake2b(data, digest_size=10).hexdigest()


def initial_state(options: Options) -> SpaceState:
    board = [0] * 192
    unmoved = 0
    for file, kind in enumerate(_BACK_RANK):
        for index, piece in ((square(0, 0, file), kind), (square(0, 1, file), PAWN),
                             (square(2, 7, file), -kind), (square(2, 6, file), -PAWN)):
            board[index] = piece
            unmoved |= 1 << index
    return SpaceState(board=tuple(board), turn=WHITE, unmoved=unmoved, ep=-1, options=options,
                      history=(_key(board, WHITE, unmoved, -1),))


def play(state: SpaceState, move: Move) -> SpaceState:
    """The state after a legal ``move`` (the caller checks legality)."""
    pos = Position(state)
    pawn = state.board[move.origin] * state.turn == PAWN
    capture = is_capture(state, move)
    _make(pos, move)
    halfmove = 0 if pawn or capture else state.halfmove + 1
    key = _key(pos.board, pos.us, pos.unmoved, pos.ep)
    # Positions before an irreversible move (pawn move, capture, a first move) can never recur.
    history = (key,) if halfmove == 0 or pos.unmoved != state.unmoved else (*state.history, key)
    return SpaceState(board=tuple(pos.board), turn=pos.us, unmoved=pos.unmoved, ep=pos.ep, halfmove=halfmove,
                      fullmove=state.fullmove + (1 if state.turn == BLACK else 0), options=state.options,
                      history=history)


def repetitions(state: SpaceState) -> int:
    """How often the current position has occurred (same board, side, first-move rights and e.p.)."""
    return state.history.count(state.history[-1]) if state.history else 1


def _insufficient(board: tuple[int, ...]) -> bool:
    """Bare kings, or a king and one knight or bishop against a bare king: no mate is possible.

    Attacks and mates happen on one level (S13) and a king has at least its orthodox moves on its
    level, so a 3D mate would be an orthodox mate of the same material, which does not exist.
    """
    if len(board) - board.count(0) > 3:
        return False
    others = [abs(p) for p in board if p and abs(p) != KING]
    return not others or (len(others) == 1 and others[0] in (KNIGHT, BISHOP))


@lru_cache(maxsize=8192)
def outcome(state: SpaceState) -> Outcome | None:
    """Mate and stalemate (S13), dead material, and the automatic 75-move and fivefold draws."""
    if not legal_moves(state):
        if in_check(state):
            return Outcome.win(seat_of(-state.turn), "checkmate")
        return Outcome.draw("stalemate")
    if _insufficient(state.board):
        return Outcome.draw("insufficient material")
    return automatic_draw(state.halfmove, repetitions(state))
