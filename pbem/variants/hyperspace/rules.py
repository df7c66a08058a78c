"""Hyperspace Chess rules: legality with same-turn returns, phase-outs, returns, draws and results."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import lru_cache

import chess

from pbem.engine.base import Outcome, Seat, automatic_draw
from pbem.engine.secret import Secret
from pbem.variants.hyperspace.fen import fen as write_fen
from pbem.variants.hyperspace.geometry import square_colour
from pbem.variants.hyperspace.model import (
    MAX_DELAY,
    MIN_DELAY,
    Action,
    BoardMove,
    HyperspaceState,
    Keep,
    PhaseOut,
    PoolEntry,
)

__all__ = [
    "Rematerialisation",
    "board_actions",
    "board_moves",
    "board_of",
    "color_of",
    "due_entry",
    "has_any_action",
    "initial_state",
    "legal_moves",
    "outcome",
    "phase_outs",
    "play",
    "position_key",
    "public_actions",
    "read_board",
    "repetitions",
    "safe_removals",
    "seat_of",
    "with_secret",
]


def seat_of(color: chess.Color) -> Seat:
    return Seat.WHITE if color == chess.WHITE else Seat.BLACK


def color_of(seat: Seat) -> chess.Color:
    return chess.WHITE if seat is Seat.WHITE else chess.BLACK


@lru_cache(maxsize=4096)
def _parsed(fen: str) -> chess.Board:
    return chess.Board(fen)


def read_board(state: HyperspaceState) -> chess.Board:
    """The state's board, shared by every reader: read it, never change it (``board_of`` gives a copy).

    A state made by ``play`` carries the board it was made on; a loaded one parses its FEN once.
    """
    derived = state.derived
    if derived.board is None:
        derived.board = _parsed(state.fen)
    return derived.board


def board_of(state: HyperspaceState) -> chess.Board:
    """A board of the state's own, free to change."""
    return read_board(state).copy(stack=False)


def _sorted_pool(pool: list[PoolEntry] | tuple[PoolEntry, ...]) -> tuple[PoolEntry, ...]:
    return tuple(sorted(pool, key=lambda e: (e.seat is not Seat.WHITE, e.returns, e.from_square)))


def due_entry(pool: tuple[PoolEntry, ...], seat: Seat, turn: int) -> PoolEntry | None:
    """The entry of ``seat`` that comes back at the end of its turn ``turn`` (H7: at most one)."""
    for entry in pool:
        if entry.seat is seat and entry.returns == turn:
            return entry
    return None


def _shield(board: chess.Board, pool: tuple[PoolEntry, ...]) -> chess.Square | None:
    """The square the side to move's same-turn return will occupy, if it is known (§9, H4)."""
    if not pool:
        return None
    entry = due_entry(pool, seat_of(board.turn), board.fullmove_number)
    if entry is None or entry.square is None:
        return None
    return chess.parse_square(entry.square.reveal())


def _king_safe(board: chess.Board, color: chess.Color, shield: chess.Square | None, occupied: int) -> bool:
    # A return only ever adds a friendly blocker (H4), so safety after it is safety with one more
    # occupied square; an enemy on the shield square keeps the square occupied and keeps attacking.
    king = board.king(color)
    if king is None:
        return True
    if shield is not None:
        occupied |= chess.BB_SQUARES[shield]
    return not board.attackers_mask(not color, king, occupied)


def board_moves(board: chess.Board, shield: chess.Square | None,
                to_mask: chess.Bitboard = chess.BB_ALL) -> tuple[chess.Move, ...]:
    """The legal board moves (to ``to_mask``) of the side to move on ``board``, judged after the return
    to ``shield`` (§9, H4): the one move generator of the game, its server and its search. ``board`` is
    only read."""
    if shield is None:
        return tuple(board.generate_legal_moves(chess.BB_ALL, to_mask))
    color = board.turn
    moves: list[chess.Move] = []
    for move in board.generate_pseudo_legal_moves(chess.BB_ALL, to_mask):
        if board.is_castling(move):
            # Castling keeps the FIDE conditions, judged before the return: the return cannot
            # shield the squares the king starts on or passes over.
            if board.is_legal(move):
                moves.append(move)
            continue
        if board.is_legal(move):
            moves.append(move)
            continue
        after = board.copy(stack=False)
        after.push(move)
        if _king_safe(after, color, shield, after.occupied):
            moves.append(move)
    return tuple(moves)


def legal_moves(state: HyperspaceState) -> tuple[chess.Move, ...]:
    """Legal board moves of the side to move, judged after its same-turn return (§9, H4)."""
    derived = state.derived
    if derived.moves is None:
        board = read_board(state)
        derived.moves = board_moves(board, _shield(board, state.pool))
    return derived.moves


def _removals(board: chess.Board, shield: chess.Square | None) -> tuple[chess.Square, ...]:
    color = board.turn
    candidates = board.occupied_co[color] & (board.knights | board.bishops | board.rooks | board.queens)
    king = board.king(color)
    if king is None:
        return tuple(chess.scan_forward(candidates))
    occupied = board.occupied if shield is None else board.occupied | chess.BB_SQUARES[shield]
    # Taking a piece away only opens lines: with the king attacked nothing may go, and otherwise only a
    # piece that alone stands between the king and an enemy slider may not (python-chess's pins, with the
    # returning piece as one more blocker; the piece on its square may go, the return fills the square).
    if board.attackers_mask(not color, king, occupied):
        return ()
    straight = board.rooks | board.queens
    diagonal = board.bishops | board.queens
    snipers = board.occupied_co[not color] & (
        (chess.BB_RANK_ATTACKS[king][0] & straight) | (chess.BB_FILE_ATTACKS[king][0] & straight)
        | (chess.BB_DIAG_ATTACKS[king][0] & diagonal))
    pinned = 0
    for sniper in chess.scan_forward(snipers):
        between = chess.between(king, sniper) & occupied
        if between and between & (between - 1) == 0:  # exactly one blocker
            pinned |= between
    if shield is not None:
        pinned &= ~chess.BB_SQUARES[shield]
    return tuple(chess.scan_forward(candidates & ~pinned))


def safe_removals(state: HyperspaceState) -> tuple[chess.Square, ...]:
    """Squares of the pieces that may phase out without leaving the own king attacked."""
    derived = state.derived
    if derived.removals is None:
        board = read_board(state)
        derived.removals = _removals(board, _shield(board, state.pool))
    return derived.removals


def _taken(pool: tuple[PoolEntry, ...], seat: Seat, returns: int) -> PoolEntry | None:
    return due_entry(pool, seat, returns)


def has_any_action(state: HyperspaceState) -> bool:
    """True when the side to move has a board move or a phase-out with any free delay."""
    if legal_moves(state):
        return True
    if not safe_removals(state):
        return False
    board = read_board(state)
    seat, turn = seat_of(board.turn), board.fullmove_number
    delays = range(MIN_DELAY, MAX_DELAY + 1)
    return any(_taken(state.pool, seat, turn + delay + 1) is None for delay in delays)


#: Actions are values, so one object per move serves every position (making them anew was a tenth of a
#: perft); there are fewer than 2,000 board moves in chess. Keyed by from, to and promotion: a tuple
#: hashes faster than a chess.Move.
_BOARD_MOVES: dict[tuple[chess.Square, chess.Square, chess.PieceType | None], BoardMove] = {}
_PHASE_OUTS: dict[tuple[chess.PieceType, chess.Square, int], PhaseOut] = {}


def board_actions(state: HyperspaceState) -> list[Action]:
    """The legal board moves as actions."""
    known = _BOARD_MOVES
    actions: list[Action] = []
    for move in legal_moves(state):
        key = (move.from_square, move.to_square, move.promotion)
        action = known.get(key)
        if action is None:
            action = known[key] = BoardMove(move)
        actions.append(action)
    return actions


def phase_outs(state: HyperspaceState, delay: int) -> list[PhaseOut]:
    """The phase-outs with ``delay`` and no secret (the caller checks that the delay is free, H7)."""
    board = read_board(state)
    known = _PHASE_OUTS
    actions: list[PhaseOut] = []
    for square in safe_removals(state):
        piece = board.piece_type_at(square)
        assert piece is not None
        action = known.get((piece, square, delay))
        if action is None:
            action = known[piece, square, delay] = PhaseOut(
                chess.piece_symbol(piece).upper(), chess.SQUARE_NAMES[square], delay)
        actions.append(action)
    return actions


def public_actions(state: HyperspaceState) -> list[Action]:
    """Board moves plus phase-outs with delay 1 and no secret: the public tree (spec 4.6, D = 1),
    game over or not."""
    actions = board_actions(state)
    board = read_board(state)
    if due_entry(state.pool, seat_of(board.turn), board.fullmove_number + 2) is not None:
        return actions  # H7: delay 1 is taken; longer delays are legal but outside the public tree
    actions.extend(phase_outs(state, 1))
    return actions


@dataclass(frozen=True, slots=True)
class Rematerialisation:
    """What happened to the piece that came back at the end of the turn."""

    entry: PoolEntry
    result: str  # "appeared", "lost", "kept-new", "kept-old" or "forfeited"
    occupant: chess.Piece | None = None

    @property
    def record(self) -> str:
        if self.entry.square is None:
            return f"&{self.entry.piece}{self.entry.from_square}!forfeited"
        suffix = "" if self.result == "appeared" else f"!{self.result}"
        return f"&{self.entry.piece}{self.entry.square.reveal()}{suffix}"


def _rematerialise(board: chess.Board, entry: PoolEntry, keep: Keep | None) -> Rematerialisation:
    if entry.square is None:
        # Seed §5: an invalid (here: never recorded) square forfeits the piece.
        return Rematerialisation(entry, "forfeited")
    square = chess.parse_square(entry.square.reveal())
    color = chess.WHITE if entry.seat is Seat.WHITE else chess.BLACK
    piece = chess.Piece.from_symbol(entry.piece if color == chess.WHITE else entry.piece.lower())
    occupant = board.piece_at(square)
    if occupant is None:
        board.set_piece_at(square, piece)
        return Rematerialisation(entry, "appeared")
    if occupant.color != color:
        return Rematerialisation(entry, "lost", occupant)  # H3: nothing is captured, the king included
    if occupant.piece_type == chess.KING or keep != "new":
        return Rematerialisation(entry, "kept-old", occupant)  # H2: the default, and always for the king
    board.set_piece_at(square, piece)
    # The rook that stood there unmoved is gone, so its castling right goes with it.
    board.castling_rights &= ~chess.BB_SQUARES[square]
    return Rematerialisation(entry, "kept-new", occupant)


def _normalise_ep(board: chess.Board, pool: tuple[PoolEntry, ...]) -> None:
    """Keep the en-passant square only if the side to move can really capture there."""
    ep = board.ep_square
    if ep is None:
        return
    victim = board.piece_at(ep - 8 if board.turn == chess.WHITE else ep + 8)
    if (board.piece_at(ep) is not None or victim is None or victim.piece_type != chess.PAWN
            or victim.color == board.turn):
        board.ep_square = None
        return
    moves = board_moves(board, _shield(board, pool), chess.BB_SQUARES[ep])
    if not any(board.is_en_passant(move) for move in moves):
        board.ep_square = None


def _position_key(fen: str, pool: tuple[PoolEntry, ...]) -> str:
    """H6: repetition compares board, side, castling, en passant and the whole pool, secrets included."""
    parts = [" ".join(fen.split()[:4])]
    for entry in pool:
        square = "-" if entry.square is None else entry.square.reveal()
        parts.append(f"{entry.seat.value}:{entry.public}:{entry.declared}:{square}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:24]


def position_key(state: HyperspaceState) -> str:
    """The state's repetition key (H6), as ``history`` holds it."""
    derived = state.derived
    if derived.key is None:
        derived.key = _position_key(state.fen, state.pool)
    return derived.key


def initial_state() -> HyperspaceState:
    return HyperspaceState(chess.STARTING_FEN, (), (_position_key(chess.STARTING_FEN, ()),))


def play(state: HyperspaceState, action: Action) -> tuple[HyperspaceState, Rematerialisation | None]:
    """Apply a legal action and the mover's scheduled return; the caller checks legality.

    The new state keeps the board it was made on, so nothing after it parses its FEN again.
    """
    board = board_of(state)
    color = board.turn
    seat, turn = seat_of(color), board.fullmove_number
    pool = state.pool
    if isinstance(action, BoardMove):
        board.push(action.move)
    else:
        square = chess.parse_square(action.from_square)
        board.remove_piece_at(square)
        board.castling_rights &= ~chess.BB_SQUARES[square]  # H5: a phased rook never castles again
        board.ep_square = None
        board.halfmove_clock += 1  # H6: a non-pawn, non-capture move
        if color == chess.BLACK:
            board.fullmove_number += 1
        board.turn = not color
        pool = (*pool, PoolEntry(seat, action.piece, action.from_square, action.delay, turn,
                                 action.secret, action.nonce))
    came_back: Rematerialisation | None = None
    entry = due_entry(pool, seat, turn)
    if entry is not None:
        gone = pool.index(entry)
        pool = pool[:gone] + pool[gone + 1:]
        came_back = _rematerialise(board, entry, action.keep)
    new_pool = _sorted_pool(pool) if len(pool) > 1 else pool
    _normalise_ep(board, new_pool)
    fen = write_fen(board)
    key = _position_key(fen, new_pool)
    history = (key,) if board.halfmove_clock == 0 else (*state.history, key)
    new = HyperspaceState(fen, new_pool, history)
    new.derived.board, new.derived.key = board, key
    return new, came_back


def with_secret(state: HyperspaceState, entry: PoolEntry, square: str, nonce: str) -> HyperspaceState:
    """The state with ``entry`` given its return square; the current position key changes with it."""
    updated = replace(entry, square=Secret(square), nonce=nonce)
    pool = _sorted_pool([updated if e == entry else e for e in state.pool])
    key = _position_key(state.fen, pool)
    return HyperspaceState(state.fen, pool, (*state.history[:-1], key))


def repetitions(state: HyperspaceState) -> int:
    """How often the current position (pool included) has occurred since the last irreversible move."""
    return state.history.count(position_key(state))


def _insufficient(board: chess.Board, pool: tuple[PoolEntry, ...], color: chess.Color) -> bool:
    # python-chess's has_insufficient_material, with pool pieces counted as if on the board (H6).
    own = board.occupied_co[color]
    if own & (board.pawns | board.rooks | board.queens):
        return False
    mine = [e.piece for e in pool if e.seat is seat_of(color)]
    theirs = [e.piece for e in pool if e.seat is not seat_of(color)]
    if any(p in "RQ" for p in mine):
        return False
    if own & board.knights or "N" in mine:
        minor_theirs = bool(board.occupied_co[not color] & ~board.kings & ~board.queens) or any(
            p != "Q" for p in theirs)
        return chess.popcount(own) + len(mine) <= 2 and not minor_theirs
    if own & board.bishops or "B" in mine:
        colours = {square_colour(s) for s in chess.scan_forward(board.bishops)}
        colours |= {square_colour(chess.parse_square(e.from_square)) for e in pool if e.piece == "B"}
        knights = bool(board.knights) or any(e.piece == "N" for e in pool)
        return len(colours) <= 1 and not board.pawns and not knights
    return True


def outcome(state: HyperspaceState) -> Outcome | None:
    derived = state.derived
    if not derived.outcome_known:
        derived.outcome, derived.outcome_known = _outcome(state), True
    return derived.outcome


def _outcome(state: HyperspaceState) -> Outcome | None:
    board = read_board(state)
    if not has_any_action(state):
        # Judged on the position as it stands: a player who cannot move never reaches his return.
        if board.is_check():
            return Outcome.win(seat_of(not board.turn), "checkmate")
        return Outcome.draw("stalemate")  # FAQ Q8: even with returns scheduled for later turns
    if _insufficient(board, state.pool, chess.WHITE) and _insufficient(board, state.pool, chess.BLACK):
        return Outcome.draw("insufficient material")
    return automatic_draw(board.halfmove_clock, repetitions(state))
