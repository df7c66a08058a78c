"""ORM objects made persistent from a prepared SELECT's columns, without the ORM's query: ``RowsOf``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import inspect
from sqlalchemy.orm import Mapper, make_transient_to_detached
from sqlalchemy.sql import ColumnElement
from sqlmodel import Session

__all__ = ["RowsOf"]


@dataclass(frozen=True, slots=True)
class _Part:
    """One mapped class's share of a row: its mapper, its primary key's attribute names, (label, attribute) pairs."""

    mapper: Mapper[Any]
    primary: tuple[str, ...]
    names: tuple[tuple[str, str], ...]


class RowsOf:
    """The columns of several mapped classes in one SELECT, and each row split back into persistent objects.

    ``RowsOf((Game, games), (Account, white), (Account, black))``: ``columns`` lists every column of each table
    (or alias), labelled by its place (``m0_id``, ``m1_id`` ...) so that no two clash; ``objects`` makes one
    row's objects, in the same order. The ORM's query of a game and its two players (compiling the statement's
    cache key, the ORM's execution context, the rows' instance processors) cost the worker more than building
    the three objects here.
    """

    def __init__(self, *sources: tuple[type[Any], Any]) -> None:
        self._parts: list[_Part] = []
        self.columns: list[ColumnElement[Any]] = []
        for number, (model, table) in enumerate(sources):
            mapper = inspect(model)
            names = []
            for prop in mapper.column_attrs:
                (column,) = prop.columns
                label = f"m{number}_{column.key}"
                self.columns.append(table.c[column.key].label(label))
                names.append((label, prop.key))
            primary = tuple(mapper.get_property_by_column(column).key for column in mapper.primary_key)
            self._parts.append(_Part(mapper, primary, tuple(names)))

    def objects(self, session: Session, row: Any) -> list[Any]:
        """The row's objects, persistent in ``session`` (see :func:`_persistent`)."""
        return [_persistent(session, part, {key: getattr(row, label) for label, key in part.names})
                for part in self._parts]


def _persistent(session: Session, part: _Part, values: Mapping[str, Any]) -> Any:
    """The object of a row read in ``session``'s transaction, persistent in the session, as the ORM's own query
    makes it: every column loaded, no change pending, changes tracked from here on; the object the session
    already holds for that primary key if it holds one (the ORM returns that one too, unrefreshed).

    ``values``: every column attribute (by attribute key), each as the column type's result processor gives it.
    """
    key = part.mapper.identity_key_from_primary_key(tuple(values[name] for name in part.primary))
    found = session.identity_map.get(key)
    if found is not None:
        return found
    made = part.mapper.class_manager.new_instance()  # the class's __new__, no __init__: as a loaded row's object
    made.__dict__.update(values)  # the instance state's dict: loaded values, no history
    make_transient_to_detached(made)  # its identity key set, every attribute committed as loaded
    session.add(made)  # detached with a key: attached as persistent, no INSERT
    return made
