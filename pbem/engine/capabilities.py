"""Optional engine abilities as explicit protocols, checked with ``isinstance`` (never ``getattr``).

A variant class declares an ability simply by defining the methods; callers test
``isinstance(engine, FastPerft)`` and so on before using it.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any, Protocol, cast, runtime_checkable

from pbem.engine.base import Seat, Transition

__all__ = [
    "ActionCompletion",
    "CaptureInfo",
    "CheckAware",
    "Evaluation",
    "FastPerft",
    "PositionKey",
    "QuickSuccessor",
    "RecordExport",
    "SearchActions",
    "SeatPrivacy",
    "SecretKeeping",
    "seal_action",
    "secrets_of",
]


@runtime_checkable
class FastPerft(Protocol):
    """A leaf count of the legal-move tree faster than applying states (make/unmake, bitboards)."""

    def perft(self, state: Any, depth: int) -> int: ...


@runtime_checkable
class SecretKeeping(Protocol):
    """Actions that carry secrets (Hyperspace return squares): sealed with a nonce, sent separately."""

    def secrets(self, state: Any) -> Mapping[Seat, tuple[str, ...]]: ...
    def seal(self, state: Any, action: Any, nonce: str) -> Any: ...
    def attach_secret(self, state: Any, seat: Seat, text: str, nonce: str) -> Transition[Any]: ...


@runtime_checkable
class RecordExport(Protocol):
    """A game record a chess program reads: PGN movetext from each turn's record and stored position.

    ``comments`` are texts to write as brace comments after the ply they are keyed by (0: before the
    first move), in their order, with :func:`pbem.engine.notation.comment_words`.
    """

    def movetext(self, plies: Sequence[tuple[str, Mapping[str, Any]]],
                 comments: Mapping[int, Sequence[str]] | None = None) -> list[str]: ...


@runtime_checkable
class PositionKey(Protocol):
    """A cheap hashable identity of a position for a search's transposition table.

    Equal keys mean the same board, side to move and rights (castling, en passant, pools, ages);
    move counters and the repetition history are left out.
    """

    def position_key(self, state: Any) -> Hashable: ...


@runtime_checkable
class Evaluation(Protocol):
    """A static score of a position in centipawns, from the side to move's point of view."""

    def evaluate(self, state: Any) -> int: ...


@runtime_checkable
class CaptureInfo(Protocol):
    """What an action wins at once, for move ordering (MVV-LVA) and quiescence.

    ``(value gained, value of the piece that moves)`` for a capture of an enemy piece or a promotion,
    in the variant's centipawns; None for a quiet action.
    """

    def capture_values(self, state: Any, action: Any) -> tuple[int, int] | None: ...


@runtime_checkable
class CheckAware(Protocol):
    """Whether the side to move is in check (a quiescence search then looks at every reply, not only captures)."""

    def in_check(self, state: Any) -> bool: ...


@runtime_checkable
class QuickSuccessor(Protocol):
    """The state after a legal action without notation, notes or checks (a search plays millions)."""

    def successor(self, state: Any, action: Any) -> Any: ...


@runtime_checkable
class SearchActions(Protocol):
    """The actions a search tries in a position that is not over (the caller has checked the outcome).

    Where ``legal_actions`` leaves legal actions out (Hyperspace lists phase-outs with delay 1 only),
    the search still needs one action whenever the game goes on.
    """

    def search_actions(self, state: Any) -> Sequence[Any]: ...


@runtime_checkable
class SeatPrivacy(Protocol):
    """What one seat may know of a state: the state a computer playing that seat is allowed to read.

    A variant with secrets (SecretKeeping) must have it: the search refuses a secret-keeping variant
    without it.
    """

    def seat_state(self, state: Any, seat: Seat) -> Any: ...


@runtime_checkable
class ActionCompletion(Protocol):
    """An action the legal list leaves incomplete made whole for play (a phase-out given its secret square)."""

    def complete_action(self, state: Any, action: Any) -> Any: ...


#: Whether an engine class keeps secrets, by class: an ``isinstance`` against a runtime-checkable protocol
#: looks the protocol's members up at every call, twice a move.
_SECRET_KEEPING: dict[type, bool] = {}


def _keeps_secrets(engine: object) -> bool:
    kind = type(engine)
    found = _SECRET_KEEPING.get(kind)
    if found is None:
        found = _SECRET_KEEPING[kind] = isinstance(engine, SecretKeeping)
    return found


def seal_action(engine: object, state: Any, action: Any, nonce: str) -> Any:
    """``action`` sealed with ``nonce`` where the engine keeps secrets, else unchanged."""
    if _keeps_secrets(engine):
        return cast(SecretKeeping, engine).seal(state, action, nonce)
    return action


def secrets_of(engine: object, state: Any) -> Mapping[Seat, tuple[str, ...]]:
    """Each seat's unrevealed secret strings in ``state`` (none for an engine without secrets)."""
    return cast(SecretKeeping, engine).secrets(state) if _keeps_secrets(engine) else {}
