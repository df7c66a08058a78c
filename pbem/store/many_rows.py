"""Many rows' values in one SQL statement, made before the writers' lock is taken: ``ManyRows``.

The server process writes batches (the deliverer's sent marks, the listener's arrivals) while its other
threads run Python. A statement a row (``executemany``) lets the interpreter lock go at each row's step into
the database and must win it back, each time behind threads that keep it up to the switch interval: at the
e2e bench's maximum a fold of some 230 marks held SQLite's writers' lock for 14 to 38 ms, the mail worker
waiting (timed alone beside three busy threads, 0.9 to 7.4 s). One statement for all the rows is one call
into the database, and its SQL and values, put through the columns' types, are made first.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column
from sqlalchemy.engine import Connection, Dialect
from sqlmodel import Session

from pbem.store.prepared import tell_listeners

__all__ = ["ManyRows", "converted", "converters"]

_Converter = Callable[[Any], Any] | None


def converters(dialect: Dialect, columns: Iterable[Column[Any]]) -> tuple[_Converter, ...]:
    """Each column's bind processor in ``dialect`` (None where a value goes to the driver as it is)."""
    return tuple(column.type.dialect_impl(dialect).bind_processor(dialect) for column in columns)


def converted(convert: Sequence[_Converter], row: Sequence[Any]) -> tuple[Any, ...]:
    """``row``'s values as the driver takes them, each through its column's converter."""
    return tuple(value if process is None else process(value) for process, value in zip(convert, row, strict=True))


@dataclass(frozen=True, slots=True)
class ManyRows:
    """One statement and its values, in the driver's parameter style, ready to run in a transaction."""

    sql: str
    arguments: tuple[Any, ...]

    @classmethod
    def make(cls, dialect: Dialect, template: str, rows: Sequence[Sequence[Any]],
             convert: Sequence[_Converter] | None = None, after: Sequence[Any] = ()) -> ManyRows:
        """``template`` with ``{rows}`` replaced by a placeholder group per row of ``rows`` (each converted column
        by column by ``convert``; None: converted already) and each ``{mark}`` after it by one placeholder, whose
        values are ``after`` in order."""
        if not rows:
            raise ValueError("no rows")
        if "{mark}" in template[:template.index("{rows}")]:
            raise ValueError("a {mark} before {rows}: its value would come after the rows'")
        mark = "?" if dialect.paramstyle == "qmark" else "%s"  # SQLite's, or psycopg's positional style
        group = "(" + ", ".join([mark] * len(rows[0])) + ")"
        arguments: list[Any] = []
        for row in rows:
            arguments += row if convert is None else converted(convert, row)
        if len(arguments) != len(rows) * len(rows[0]):
            raise ValueError("rows of different lengths")
        arguments += after
        return cls(template.format(rows=", ".join([group] * len(rows)), mark=mark), tuple(arguments))

    def run(self, session: Session | Connection) -> None:
        """Run it in ``session``'s transaction (a session's, or a connection's: Database.writing)."""
        self._execute(session).close()

    def rows(self, session: Session | Connection) -> list[tuple[Any, ...]]:
        """Run a SELECT in ``session``'s transaction; its rows as the driver gives them."""
        cursor = self._execute(session)
        try:
            return [tuple(row) for row in cursor.fetchall()]
        finally:
            cursor.close()

    def _execute(self, session: Session | Connection) -> Any:
        connection = session if isinstance(session, Connection) else session.connection()
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            tell_listeners(connection, cursor, self.sql, self.arguments)
            cursor.execute(self.sql, self.arguments)
        except BaseException:
            cursor.close()
            raise
        return cursor
