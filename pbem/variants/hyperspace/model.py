"""Hyperspace Chess values: actions, pool entries, the state, commitments and the storage form."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import chess

from pbem.engine.base import Outcome, Seat
from pbem.engine.secret import Secret

__all__ = [
    "COMMITMENT_TAG",
    "MAX_DELAY",
    "MIN_DELAY",
    "PHASEABLE",
    "PIECE_NAMES",
    "Action",
    "BoardMove",
    "Derived",
    "HyperspaceState",
    "Keep",
    "PhaseOut",
    "PoolEntry",
    "commitment_digest",
    "commitment_string",
    "dump_state",
    "load_state",
]

#: H1: the delay is bounded so notation and branching stay finite.
MIN_DELAY = 1
MAX_DELAY = 99

#: Version tag of the commitment string; changing its layout must change the tag.
COMMITMENT_TAG = "hyperspace-chess/1"
_DUMP_FORMAT = "hyperspace-chess/1"

#: Piece letters that may enter hyperspace (never pawns or kings).
PHASEABLE = "NBRQ"
PIECE_NAMES = {"P": "pawn", "N": "knight", "B": "bishop", "R": "rook", "Q": "queen", "K": "king"}

Keep = Literal["new", "old"]


@dataclass(frozen=True, slots=True)
class BoardMove:
    """An ordinary FIDE move; castling is the king's two-square move, as in python-chess.

    ``keep`` is the directive for a same-turn return onto a friendly piece (H2).
    """

    move: chess.Move
    keep: Keep | None = None


@dataclass(frozen=True, slots=True)
class PhaseOut:
    """The piece ``piece`` on ``from_square`` leaves for ``delay`` full turns.

    ``secret`` holds the return square (e.g. ``Secret("f4")``), or ``None`` when the
    player sends it later with a ``secret`` message; ``nonce`` is set by ``seal``.
    """

    piece: str  # upper-case letter: N, B, R or Q
    from_square: str  # square name, e.g. "c1"
    delay: int
    secret: Secret | None = None
    nonce: str = ""
    keep: Keep | None = None

    @property
    def public(self) -> str:
        return f"{self.piece}{self.from_square}@{self.delay}"


Action = BoardMove | PhaseOut


def commitment_string(seat: Seat, public: str, returns: int, square: str, nonce: str) -> str:
    """The exact text whose SHA-256 is published when a piece phases out."""
    return f"{COMMITMENT_TAG}|{seat.value}|{public}|turn={returns}|square={square}|nonce={nonce}"


def commitment_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """One piece in hyperspace: public declaration plus the (secret) return square."""

    seat: Seat
    piece: str
    from_square: str
    delay: int
    declared: int  # the owner's turn (FIDE fullmove number) of the phase-out
    square: Secret | None = None
    nonce: str = ""

    @property
    def returns(self) -> int:
        """The owner's turn at whose end the piece comes back (seed §4: T + N + 1)."""
        return self.declared + self.delay + 1

    @property
    def public(self) -> str:
        return f"{self.piece}{self.from_square}@{self.delay}"

    @property
    def name(self) -> str:
        return f"{PIECE_NAMES[self.piece]} from {self.from_square}"

    def commitment(self) -> str | None:
        """The commitment string; with no square recorded, a commitment to ``square=none`` (so that the
        public record looks the same whether or not a square was recorded); None before ``seal``."""
        if self.square is None and not self.nonce:
            return None
        square = "none" if self.square is None else self.square.reveal()
        return commitment_string(self.seat, self.public, self.returns, square, self.nonce)

    def digest(self) -> str | None:
        text = self.commitment()
        return None if text is None else commitment_digest(text)


@dataclass(slots=True, eq=False)
class Derived:
    """What the rules work out from a state's fields, kept with the state once worked out (rules.py).

    A search asks one position for its board, moves and key several times (outcome, actions,
    evaluation), and the successor of a move already has its board: parsing it again from the FEN
    cost more than the move itself. Every value is a function of the state's fields, so it is never
    compared nor stored; the board is shared and must not be changed.
    """

    board: chess.Board | None = None
    moves: tuple[chess.Move, ...] | None = None  # legal board moves (rules.legal_moves)
    removals: tuple[chess.Square, ...] | None = None  # squares that may phase out (rules.safe_removals)
    key: str | None = None  # the repetition key of the position (rules.position_key)
    #: Whether ``outcome`` is worked out: a running game's is None. A move's mails asked it eleven times.
    outcome_known: bool = False
    outcome: Outcome | None = None  # the game's result in this position (rules.outcome)


@dataclass(frozen=True, slots=True)
class HyperspaceState:
    """A position: the board as FEN, the pools of both sides and the repetition history.

    ``fen`` keeps the en-passant square only when a capture is really possible, so
    equal positions have equal FENs. ``history`` holds hashed position keys since the
    last pawn move or capture, the current position last (hashed because the keys
    contain secret squares).
    """

    fen: str = chess.STARTING_FEN
    pool: tuple[PoolEntry, ...] = ()
    history: tuple[str, ...] = ()
    #: Filled in by the rules on first use; a new, empty one for every state (``replace`` included).
    derived: Derived = field(default_factory=Derived, init=False, repr=False, compare=False)


def dump_state(state: HyperspaceState) -> dict[str, Any]:
    return {
        "format": _DUMP_FORMAT,
        "fen": state.fen,
        "pool": [
            {
                "seat": entry.seat.value,
                "piece": entry.piece,
                "from": entry.from_square,
                "delay": entry.delay,
                "declared": entry.declared,
                "square": None if entry.square is None else entry.square.reveal(),
                "nonce": entry.nonce,
            }
            for entry in state.pool
        ],
        "history": list(state.history),
    }


def load_state(data: Mapping[str, Any]) -> HyperspaceState:
    if data.get("format") != _DUMP_FORMAT:
        raise ValueError(f"not a hyperspace chess state: format {data.get('format')!r}")
    fen = str(data["fen"])
    board = chess.Board(fen)  # raises ValueError on a malformed FEN
    pool: list[PoolEntry] = []
    for item in data.get("pool", []):
        piece = str(item["piece"])
        from_square = str(item["from"])
        square = item.get("square")
        if piece not in PHASEABLE or from_square not in chess.SQUARE_NAMES:
            raise ValueError(f"bad pool entry: {item!r}")
        if square is not None and square not in chess.SQUARE_NAMES:
            raise ValueError(f"bad return square in pool entry from {from_square}")
        pool.append(PoolEntry(
            seat=Seat(item["seat"]),
            piece=piece,
            from_square=from_square,
            delay=int(item["delay"]),
            declared=int(item["declared"]),
            square=None if square is None else Secret(str(square)),
            nonce=str(item.get("nonce", "")),
        ))
    state = HyperspaceState(fen=fen, pool=tuple(pool), history=tuple(str(h) for h in data.get("history", [])))
    state.derived.board = board  # the rules read it (never change it): parsed once, here
    return state
