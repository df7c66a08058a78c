"""A changed game row written by one Core UPDATE, ahead of the ORM's flush: ``write_changed_games``.

A move changes a handful of the game row's columns. The ORM's unit of work found and wrote them in about
100 µs (each attribute's history, a sort of the objects, a statement per column set and its cache key);
an UPDATE of the same columns, built once per column set, takes a fifth of that. The flush that follows
still sees the game, its new values now marked as loaded, and writes nothing for it; it registers the game
with the transaction as flushed, so that a savepoint rolled back later expires it, exactly as before.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import bindparam, inspect, update
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.orm.exc import StaleDataError

from pbem.store.models import Game

__all__ = ["write_changed_games"]

_TABLE: Any = Game.__table__  # type: ignore[attr-defined]
_KEY = "pbem_row_id"
#: What the fast path may write: plain columns with no default applied on update (none of the game's has one).
_WRITABLE = frozenset(column.key for column in _TABLE.columns
                      if not column.primary_key and column.onupdate is None and column.server_onupdate is None)


@functools.lru_cache(maxsize=64)
def _update(columns: tuple[str, ...]) -> Any:
    """The UPDATE of ``columns`` of one game, built once per set (a move changes the same few each time)."""
    return (update(_TABLE).where(_TABLE.c.id == bindparam(_KEY))
            .values({_TABLE.c[column]: bindparam(column) for column in columns}))


def write_changed_games(session: Session, _flush_context: object, _instances: object) -> None:
    """Before a flush: each changed game of ``session`` written now, its changes then marked as loaded. A game
    the ORM must handle itself (an attribute expired, a changed key, a column beyond the plain ones) is left
    to it. Registered for every Session in pbem.store.db."""
    for instance in session.dirty:
        if type(instance) is Game:
            _write(session, instance)


def _write(session: Session, game: Game) -> None:
    state = inspect(game)
    if state.key is None or state.expired_attributes or not state.committed_state:
        return
    columns = tuple(sorted(state.committed_state))
    if not _WRITABLE.issuperset(columns):
        return
    values = {column: state.dict[column] for column in columns}
    result: Any = session.connection().execute(_update(columns), {_KEY: state.key[1][0], **values})
    if result.rowcount != 1:  # as the ORM's own flush: the row is gone, or another writer changed its key
        raise StaleDataError(f"UPDATE of game {state.key[1][0]} matched {result.rowcount} rows, not 1")
    for column, value in values.items():
        set_committed_value(game, column, value)
