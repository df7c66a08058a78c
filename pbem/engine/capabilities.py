"""Optional engine abilities as explicit protocols, checked with ``isinstance`` (never ``getattr``).

A variant class declares an ability simply by defining the methods; callers test
``isinstance(engine, FastPerft)`` and so on before using it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from pbem.engine.base import Seat, Transition

__all__ = ["FastPerft", "RecordExport", "SecretKeeping", "seal_action", "secrets_of"]


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


def seal_action(engine: object, state: Any, action: Any, nonce: str) -> Any:
    """``action`` sealed with ``nonce`` where the engine keeps secrets, else unchanged."""
    return engine.seal(state, action, nonce) if isinstance(engine, SecretKeeping) else action


def secrets_of(engine: object, state: Any) -> Mapping[Seat, tuple[str, ...]]:
    """Each seat's unrevealed secret strings in ``state`` (none for an engine without secrets)."""
    return engine.secrets(state) if isinstance(engine, SecretKeeping) else {}
