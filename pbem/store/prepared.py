"""Hot-path Core statements compiled once per database dialect and run on the driver's cursor: ``Prepared``."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, insert
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.sql.base import Executable
from sqlmodel import Session

__all__ = ["Prepared", "hold_connection", "tell_listeners"]

_Processor = Callable[[Any], Any]
#: Where a session's one transaction keeps its connection for these statements (see hold_connection).
_HELD = "pbem.prepared.connection"


def hold_connection(session: Session) -> Connection:
    """Take ``session``'s connection now and keep it, with its driver connection, for the prepared statements of
    the transaction it is in: asking the session each time went through four of its methods (a worker's move
    runs seven such statements). Only for a session that holds one transaction in its life, as
    ``Database.transaction``'s does: a second transaction may be on another connection."""
    connection = session.connection()
    session.info[_HELD] = (connection, connection.connection.dbapi_connection)
    return connection


@dataclass(frozen=True, slots=True)
class _Form:
    """A statement compiled for one dialect."""

    sql: str
    #: The bind names in the statement's order (positional paramstyles), or None (named: a dict is passed).
    order: tuple[str, ...] | None
    defaults: Mapping[str, Any]  # values the statement carries itself (a LIMIT)
    binds: tuple[tuple[str, _Processor], ...]  # the values whose type converts them, and how
    row: Any  # a SELECT's row type (attribute access, as SQLAlchemy's rows), or None
    results: tuple[_Processor | None, ...]  # a SELECT's column conversions


class Prepared:
    """One Core statement (INSERT, UPDATE, DELETE or SELECT) for the hot path. Its parameters are plain
    ``bindparam``s or values; expanding ``IN`` lists are not supported (their SQL changes with the list).

    SQLAlchemy spends about twice what the database does around a small statement of the worker's (an
    outbox row's INSERT: 28 µs through ``Connection.execute``, 11 µs on the cursor, SQLite): it looks the
    compiled form up by the statement's cache key, builds an execution context, processes each value and
    wraps the cursor in a result. A ``Prepared`` statement does that work once per dialect and keeps only
    what varies: the values, put through the column types' own bind processors, and for a SELECT each row
    put through the result processors. It runs in the caller's transaction, on the connection its session
    holds. The engine's ``before_cursor_execute`` listeners still see each statement (bench/plans.py
    explains the hot path's statements from them).
    """

    def __init__(self, statement: Executable) -> None:
        self.statement = statement
        self._forms: dict[str, _Form] = {}

    @classmethod
    def insert(cls, table: Any, columns: Sequence[str]) -> Prepared:
        """An INSERT of one row into ``table`` with a value for each of ``columns`` (the table's own defaults
        are not applied: give every column that has one)."""
        return cls(insert(table).values({name: bindparam(name) for name in columns}))

    def execute(self, session: Session, values: Mapping[str, Any] | None = None) -> Any:
        """Run the statement in ``session``'s transaction with ``values``; the driver's cursor."""
        return self._run(session, values)[0]

    def rows(self, session: Session, values: Mapping[str, Any] | None = None) -> list[Any]:
        """A SELECT's rows, each with its columns as attributes, converted as SQLAlchemy converts them."""
        cursor, form = self._run(session, values)
        fetched = cursor.fetchall()
        cursor.close()
        make = form.row._make
        if not any(form.results):
            return [make(row) for row in fetched]
        results = form.results
        return [make([value if process is None else process(value)
                      for process, value in zip(results, row, strict=True)]) for row in fetched]

    def _run(self, session: Session, values: Mapping[str, Any] | None) -> tuple[Any, _Form]:
        held = session.info.get(_HELD)
        if held is None:
            connection = session.connection()
            driver = connection.connection.dbapi_connection
        else:
            connection, driver = held
        form = self._forms.get(connection.dialect.name) or self._compile(connection.dialect)
        params = {**form.defaults, **values} if values else dict(form.defaults)
        for name, process in form.binds:
            params[name] = process(params[name])
        arguments: Sequence[Any] | Mapping[str, Any] = (
            params if form.order is None else [params[name] for name in form.order])
        cursor = driver.cursor()  # type: ignore[union-attr]
        tell_listeners(connection, cursor, form.sql, arguments)
        cursor.execute(form.sql, arguments)
        return cursor, form

    def _compile(self, dialect: Dialect) -> _Form:
        compiled: Any = self.statement.compile(dialect=dialect)  # type: ignore[attr-defined]
        if any(bind.expanding for bind in compiled.binds.values()):
            raise ValueError("a prepared statement cannot have an expanding IN list")
        defaults = {name: bind.effective_value for name, bind in compiled.binds.items() if not bind.required}
        binds = []
        for name, bind in compiled.binds.items():
            process = bind.type.dialect_impl(dialect).bind_processor(dialect)
            if process is not None:
                binds.append((name, process))
        row: Any = None
        results: tuple[_Processor | None, ...] = ()
        columns = getattr(self.statement, "selected_columns", None)
        if columns is not None and not compiled.isinsert and not compiled.isupdate and not compiled.isdelete:
            row = namedtuple("Row", [column.key for column in columns])  # type: ignore[misc,no-redef]
            results = tuple(column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns)
        form = _Form(sql=compiled.string, order=tuple(compiled.positiontup) if compiled.positional else None,
                     defaults=defaults, binds=tuple(binds), row=row, results=results)
        self._forms[dialect.name] = form  # a race compiles twice, to the same form
        return form


def tell_listeners(connection: Connection, cursor: Any, sql: str, arguments: Any) -> None:
    """Hand the statement to the engine's ``before_cursor_execute`` listeners, as ``Connection.execute`` would
    (none are registered in service: the check is all it costs)."""
    listeners = connection.dispatch.before_cursor_execute
    if listeners:
        for listener in listeners:
            listener(connection, cursor, sql, arguments, None, False)
