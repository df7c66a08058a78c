"""An entity's changed columns written with one Core UPDATE instead of the ORM's flush: ``write_changes``."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam, inspect, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, SQLModel

__all__ = ["write_changes"]

#: One UPDATE per table and set of changed columns, built once: a move changes the same few each time.
_STATEMENTS: dict[tuple[Any, frozenset[str]], Any] = {}
#: Each mapper's column attributes, the primary key left out.
_COLUMNS: dict[Any, frozenset[str]] = {}


def _columns(mapper: Any) -> frozenset[str]:
    """The mapped columns' attribute names, the primary key left out (it names the row)."""
    found = _COLUMNS.get(mapper)
    if found is None:
        found = _COLUMNS[mapper] = frozenset(mapper.column_attrs.keys()) - {"id"}
    return found


def write_changes(session: Session, entity: SQLModel) -> bool:
    """Write the columns of ``entity`` (a stored row, primary key ``id``) changed since it was loaded or last
    written, now, in the session's transaction; the session then holds them as stored, so its own flush
    skips them. True when there was something to write.

    The ORM's unit of work costs a move's game row half a millisecond of bookkeeping (sorting, collecting,
    comparing) around one UPDATE; this is the UPDATE alone. Changes made afterwards are flushed as ever.
    """
    state = inspect(entity)
    if state.key is None:
        raise ValueError("only a row already stored can be written this way")
    changes = {key: state.attrs[key].value for key in _columns(state.mapper) - state.unmodified}
    if not changes:
        return False
    table = state.mapper.local_table
    names = frozenset(changes)
    statement = _STATEMENTS.get((table, names))
    if statement is None:
        statement = (update(table).where(table.c.id == bindparam("_row_id"))
                     .values({name: bindparam(name) for name in names}))
        _STATEMENTS[(table, names)] = statement
    session.connection().execute(statement, {"_row_id": state.identity[0], **changes})
    for key, value in changes.items():
        set_committed_value(entity, key, value)
    return True
