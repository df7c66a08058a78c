"""What one seat may know of a Hyperspace Chess state: the opponent's return squares are taken out."""

from __future__ import annotations

from dataclasses import replace

from pbem.engine.base import Seat
from pbem.variants.hyperspace.model import HyperspaceState, PoolEntry
from pbem.variants.hyperspace.rules import _position_key

__all__ = ["seat_view_state"]


def _public(entry: PoolEntry) -> PoolEntry:
    """The entry as the opponent knows it: piece, square left, delay and turn, but no square and no nonce.

    The secret object itself is dropped, never opened, so a secret that refuses to be read is never read.
    """
    return replace(entry, square=None, nonce="")


def seat_view_state(state: HyperspaceState, seat: Seat) -> HyperspaceState:
    """``state`` as ``seat`` may know it: the other seat's pool entries carry no return square.

    In that view an opponent's piece in hyperspace is material of unknown whereabouts: it is
    absent from the board, and if its return falls inside a search it does not appear (its
    square is unknown), as a forfeit would. The repetition history is hashed over secret squares,
    so while the opponent has pieces in hyperspace it is cut back to the current position (those
    hashes could otherwise be tested against guessed squares).
    """
    if not any(entry.seat is not seat for entry in state.pool):
        return state
    pool = tuple(entry if entry.seat is seat else _public(entry) for entry in state.pool)
    return HyperspaceState(state.fen, pool, (_position_key(state.fen, pool),))

