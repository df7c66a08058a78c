"""The database engine and the one way to open a transaction.

SQLite under the driver's defaults starts transactions lazily (deferred),
so two writers both read a game and one of them loses its move. Every
transaction here starts with ``BEGIN IMMEDIATE`` on SQLite, which takes the
write lock up front; on PostgreSQL the game row is locked with
``SELECT ... FOR UPDATE`` and queue rows are claimed with ``SKIP LOCKED``.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import logging
import os
import re
import secrets
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, create_engine

from pbem.store import json_text, models, schema
from pbem.store.durable import sync_folder
from pbem.store.prepared import Prepared, hold_connection

__all__ = ["Database", "GameClaims", "Leadership"]

log = logging.getLogger(__name__)

#: The JSON columns written and read by orjson (pbem.store.json_text), on either database.
_JSON: dict[str, Any] = {"json_serializer": json_text.dumps, "json_deserializer": json_text.loads}
_READ_ONLY = "pbem_read_only"
_POLL = "pbem_poll"  # a connection that runs one read-only SELECT
_MIGRATION_LOCK = 0x7062656D  # "pbem": the advisory lock key of schema migrations
_LEADER_LOCK = 0x7062656E  # the advisory lock key held by the instance that runs the scheduler
_CLAIM_SPACE = {"game": 0x70626367, "analysis": 0x70626361}  # first keys of per-game / per-request claims
#: Rows failed in one round of a queue before the round ends (each failure redoes its batch).
_FAILURES_PER_ROUND = 8
#: How long a queue's batch keeps the writers' lock before it lets a waiting writer in (SQLite; see
#: Database.work_through). Let in after every mail, the listener's group commits came between the worker's
#: mails a hundred times a second, and each hand-over between the two processes cost the worker, the one
#: stage every move waits in, a wake-up on a busy machine (a seventh of its time went waiting for the lock).
#: A stored mail's 250 waits at most this much longer; the listener's commits take more mails each. 50 ms is about a
#: whole batch (16 mails) on the 2-core machine: against 20 ms, alternate runs of pbem's maximum made more moves/s for
#: less CPU a move (fewer, larger group commits; docs/hot-path.md, fifteenth session); 100 ms did no better.
YIELD_AFTER_SECONDS = 0.05
#: The interpreter's switch interval while a thread of this process holds SQLite's writers' lock (Python's default,
#: 5 ms, otherwise). A statement lets the interpreter lock go while SQLite works, and in the server, whose other
#: threads run Python meanwhile, the holder then waited up to the interval to have it back, at each statement, with
#: the mail worker waiting for the writers' lock. Over the e2e bench's maximum the worker waited 7.9% of the time
#: against 6.6% (docs/hot-path.md, sixteenth session).
HOLDING_SWITCH_SECONDS = 0.0005
# The two-key advisory lock functions take int4s; psycopg would send Python ints as bigint.
_TRY_CLAIM = text("SELECT pg_try_advisory_lock(CAST(:space AS integer), CAST(:number AS integer))")
_UNCLAIM = text("SELECT pg_advisory_unlock(CAST(:space AS integer), CAST(:number AS integer))")


_MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations" / "versions"
_REVISION_LINE = re.compile(r"^(down_revision|revision)\s*=\s*['\"]?([^'\"\s]*)['\"]?\s*$", re.MULTILINE)


@functools.cache
def migration_head() -> str | None:
    """The newest migration in pbem/migrations/versions: the one no other migration follows; None when that is
    not one migration (a merge's tuple of parents, say), for Alembic to work out.

    Read from the files' ``revision`` and ``down_revision`` lines, without Alembic (see Database.migrate);
    tests/store/test_migrations.py checks it against Alembic's own answer.
    """
    revisions: set[str] = set()
    followed: set[str] = set()
    for path in _MIGRATIONS.glob("*.py"):
        lines = dict(_REVISION_LINE.findall(path.read_text(encoding="utf-8")))
        if "revision" in lines:
            revisions.add(lines["revision"])
            followed.add(lines.get("down_revision", "None"))
    heads = revisions - followed
    return heads.pop() if len(heads) == 1 else None


def _prepare_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, record: Any) -> None:
        # Hand transaction control to us: pysqlite would otherwise emit a deferred BEGIN itself.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        # The commit writes the log but does not sync it: Database.transaction syncs it after letting the
        # writers' lock go, so that a 250 still promises the mail survives a power cut, but the next writer
        # does not wait for the disk as well (see Database.sync_to_disk).
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        # A savepoint (the sweep opens one per game) copies the pages it changes to a sub-journal, a
        # temporary file by default: in memory, a move cost 0.3 ms less on average (bench/move_cost.py, four
        # alternate runs: 0.0 to 0.9 ms). What else goes to temporary storage (a sort without an index) is small.
        cursor.execute("PRAGMA temp_store=MEMORY")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Any) -> None:
        # Readers (see Database.read) need no write lock: WAL lets them run beside the writer.
        options = connection.get_execution_options()
        if options.get(_POLL, False):
            return  # one SELECT (Database.waiting) is its own transaction: a BEGIN would only cost a round
        # On the driver itself: through exec_driver_sql the BEGIN cost 20 µs of SQLAlchemy a transaction.
        connection.connection.driver_connection.execute("BEGIN" if options.get(_READ_ONLY, False)
                                                        else "BEGIN IMMEDIATE")


def _read_again(session: Session, row: Any) -> Any:
    """``row`` as ``session`` reads it: an ORM object of a rolled-back session has forgotten its values (a
    Core row keeps them)."""
    state = inspect(row, raiseerr=False)
    return session.merge(row) if state is not None and getattr(state, "mapper", None) is not None else row


#: SQLSTATEs of a transaction the database rolled back for the sake of others, to be tried again: a deadlock, a
#: serialization failure.
_TRANSIENT_STATES = frozenset({"40P01", "40001"})


def _transient(error: BaseException) -> bool:
    """Whether ``error`` is the database's rollback of the whole transaction (a deadlock between instances), not a
    failure of the row being handled."""
    driver = getattr(error, "orig", None) or error
    return getattr(driver, "sqlstate", None) in _TRANSIENT_STATES


def _same_row(table: Any, row: Any) -> list[Any]:
    """Conditions on ``table``'s primary key that select ``row`` (a Core row, or an ORM object, perhaps expired by
    a rollback: its identity is read without a refresh)."""
    state = inspect(row, raiseerr=False)
    if state is not None and getattr(state, "mapper", None) is not None and state.identity is not None:
        return [column == value for column, value in zip(state.mapper.primary_key, state.identity, strict=True)]
    return [column == getattr(row, column.key) for column in table.primary_key.columns]


class _RowFailed(Exception):
    """A queue's row whose handling raised ``error``, after ``handled`` rows of its transaction."""

    def __init__(self, row: Any, error: Exception, handled: int) -> None:
        super().__init__(row, error, handled)
        self.row, self.error, self.handled = row, error, handled


class _SqliteWriters:
    """One SQLite writer at a time, handed over the moment the last one commits.

    SQLite's busy handler sleeps 1 to 100 ms between tries, so a writer waiting on a long transaction
    (the mail worker's batch) nearly never catches the instant it ends: the worker takes the lock again
    at once and the listener, storing a mail, waits until the inbox is empty, the two processes taking
    turns instead of working side by side. Here a writer first takes a thread lock (this process's
    writers) and then an flock on a file beside the database (the other processes': the mail worker,
    `pbem admin`), both of which wake a waiter as soon as they are let go; SQLite's own lock is then free.

    A holder can also tell whether anyone waits (:meth:`others_waiting`): this process's waiters are
    counted, another process's waiter holds a shared flock on a second file while it waits. The mail
    worker asks between the mails of a batch and commits early, so that a listener storing a mail or
    the deliverer marking one sent waits for one mail's work, not a whole batch's.
    """

    def __init__(self, file: Path | None) -> None:
        """``file``: the database's (None in memory: this process's thread lock alone)."""
        self._threads = threading.Lock()
        self._count = threading.Lock()
        self._waiting_threads = 0
        self._path = Path(f"{file}.writer-lock") if file is not None else None
        self._files: tuple[int, int, int] | None = None  # the lock, the waiting sign, the probe of the sign
        self._pid = 0
        self._switch_interval = 0.0  # the interpreter's, restored when the holder lets go

    def _descriptors(self) -> tuple[int, int, int] | None:
        if self._path is None:
            return None
        if self._files is None or self._pid != os.getpid():  # a forked process opens its own: flock is per file
            flags, wait = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, Path(f"{self._path}.wait")
            # Two descriptors of the sign: flock converts a lock taken again through the same one.
            self._files = (os.open(self._path, flags, 0o600), os.open(wait, flags, 0o600), os.open(wait, flags, 0o600))
            self._pid = os.getpid()
        return self._files

    def __enter__(self) -> None:
        with self._count:
            self._waiting_threads += 1
        try:
            self._threads.acquire()
        finally:
            with self._count:
                self._waiting_threads -= 1
        try:
            if (files := self._descriptors()) is not None:
                lock, sign, _probe = files
                if not _try_flock(lock, fcntl.LOCK_EX):
                    fcntl.flock(sign, fcntl.LOCK_SH)  # seen by the holder while we wait
                    try:
                        fcntl.flock(lock, fcntl.LOCK_EX)
                    finally:
                        fcntl.flock(sign, fcntl.LOCK_UN)
        except BaseException:
            self._threads.release()
            raise
        self._switch_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(self._switch_interval, HOLDING_SWITCH_SECONDS))

    def __exit__(self, *_exc: object) -> None:
        sys.setswitchinterval(self._switch_interval)
        try:
            if self._files is not None and self._pid == os.getpid():
                fcntl.flock(self._files[0], fcntl.LOCK_UN)
        finally:
            self._threads.release()

    def others_waiting(self) -> bool:
        """Whether another writer, of this process or another, waits for the lock the caller holds."""
        if self._waiting_threads:
            return True
        if self._files is None or self._pid != os.getpid():
            return False
        probe = self._files[2]
        if _try_flock(probe, fcntl.LOCK_EX):
            fcntl.flock(probe, fcntl.LOCK_UN)
            return False
        return True


@functools.lru_cache(maxsize=64)
def _result_processors(statement: Any, dialect: Any) -> tuple[Callable[[Any], Any] | None, ...]:
    """How SQLAlchemy converts each column of a poll's row (SQLite's text dates to ``datetime``), found once."""
    return tuple(column.type.dialect_impl(dialect).result_processor(dialect, None)
                 for column in statement.selected_columns)


@functools.lru_cache(maxsize=64)
def _literal_sql(statement: Any, dialect: Any) -> str:
    """A poll's statement as the dialect's SQL with its values written in, compiled once (the polls' statements
    are module constants: a few, kept for life)."""
    return str(statement.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


class _SqlitePolls:
    """The queues' polls (:meth:`Database.waiting`) on a plain sqlite3 connection per thread, read-only: a
    SQLAlchemy connection's checkout and execution cost fifty microseconds around a SELECT of three, and
    the worker polls twice a round. Each poll reads the latest commit: the statement runs to its end, so
    no read transaction is left open between polls."""

    def __init__(self, file: Path, dialect: Any) -> None:
        self._file = file
        self._dialect = dialect
        self._local = threading.local()

    def finds(self, statement: Any) -> bool:
        return self.first(statement) is not None

    def first(self, statement: Any) -> tuple[Any, ...] | None:
        """The statement's first row as the driver gives it (the statement still runs to its end)."""
        rows = self._connection().execute(_literal_sql(statement, self._dialect)).fetchall()
        return tuple(rows[0]) if rows else None

    def _connection(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():  # a forked process opens its own
            local.connection = sqlite3.connect(self._file, timeout=30, isolation_level=None)
            local.connection.execute("PRAGMA query_only = ON")
            local.pid = os.getpid()
        connection: sqlite3.Connection = local.connection
        return connection


class _PostgresPolls:
    """The queues' polls (:meth:`Database.waiting`) on PostgreSQL: autocommit, read-only connections kept outside
    the pool, as many as polls ever ran at once (one, mostly: the server runs its worker's rounds on whichever
    thread of its executor is free), each statement compiled once with its values written in. A pooled
    connection cost its checkout, the pool's liveness ping (a round trip) and a transaction's BEGIN and
    ROLLBACK around a SELECT of one row: about a tenth of the worker's CPU on PostgreSQL, polling twice a
    round. A connection that broke (the server restarted, an idle timeout) is dropped and the poll tried once
    more on a new one."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._lock = threading.Lock()
        self._idle: list[Any] = []  # this process's connections that no poll is using
        self._open: list[Any] = []  # all of this process's, closed by close()
        self._pid = os.getpid()

    def finds(self, statement: Any) -> bool:
        return self.first(statement) is not None

    def first(self, statement: Any) -> tuple[Any, ...] | None:
        """The statement's first row as the driver gives it."""
        sql = _literal_sql(statement, self._engine.dialect)
        driver = self._engine.dialect.loaded_dbapi
        for attempt in (1, 2):
            connection = self._take()
            try:
                with connection.cursor() as cursor:
                    cursor.execute(sql)
                    row = cursor.fetchone()
                    found = None if row is None else tuple(row)
            except (driver.OperationalError, driver.InterfaceError):
                self._drop(connection)
                if attempt == 2:
                    raise
                continue
            except BaseException:
                self._drop(connection)  # in a state nobody knows: not for the next poll
                raise
            with self._lock:
                self._idle.append(connection)
            return found
        raise AssertionError("unreachable")

    def _take(self) -> Any:
        with self._lock:
            if self._pid != os.getpid():  # a forked process: its parent's connections are not its own to use or close
                self._idle, self._open, self._pid = [], [], os.getpid()
            if self._idle:
                return self._idle.pop()
        dialect = self._engine.dialect
        arguments, keywords = dialect.create_connect_args(self._engine.url)
        connection: Any = dialect.connect(*arguments, **keywords)  # the driver's own, outside the pool
        connection.autocommit = True  # each poll its own statement: no transaction left open
        with connection.cursor() as cursor:  # and never a write, whatever it is given
            cursor.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
        with self._lock:
            self._open.append(connection)
        return connection

    def _drop(self, connection: Any) -> None:
        with self._lock:
            if connection in self._open:
                self._open.remove(connection)
        with contextlib.suppress(Exception):
            connection.close()

    def close(self) -> None:
        """Close every connection of this process's (a later poll opens a new one)."""
        with self._lock:
            closing = self._open if self._pid == os.getpid() else []
            self._idle, self._open = [], []
        for connection in closing:
            with contextlib.suppress(Exception):
                connection.close()


def sqlite_file(database: str | None) -> Path | None:
    """The file of a SQLite URL's database part; None for a database in memory."""
    if not database or database == ":memory:" or "mode=memory" in database:
        return None
    return Path(database.removeprefix("file:").split("?")[0])


def _try_flock(descriptor: int, operation: int) -> bool:
    try:
        fcntl.flock(descriptor, operation | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


class Database:
    """Owns the engine; ``transaction()`` is the only way code writes."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        if self.is_sqlite:
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            self.engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30}, **_JSON)
            _prepare_sqlite(self.engine)
        else:
            self.engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10, **_JSON)
        self.url = url
        #: What a broken unique index raises: SQLAlchemy's error, or the driver's own from a Prepared statement.
        self.integrity_errors: tuple[type[Exception], ...] = (IntegrityError,
                                                               self.engine.dialect.loaded_dbapi.IntegrityError)
        self._reader = self.engine.execution_options(**{_READ_ONLY: True})
        self._poller = self.engine.execution_options(**{_READ_ONLY: True, _POLL: True})
        #: The queues (by their ``waiting`` statement) whose last round left rows (see work_through).
        self._rows_left: set[int] = set()
        self._wal_inode = 0  # the write-ahead log file whose name sync_to_disk last made durable
        # SQLite has one writer at a time (see _SqliteWriters); PostgreSQL locks rows itself.
        #: The SQLite database's file (None: PostgreSQL, or SQLite in memory); files beside it share its name.
        self.sqlite_file = sqlite_file(parsed.database) if self.is_sqlite else None
        self._writers = _SqliteWriters(self.sqlite_file) if self.is_sqlite else None
        self._polls: _SqlitePolls | _PostgresPolls | None = (
            _SqlitePolls(self.sqlite_file, self.engine.dialect) if self.sqlite_file is not None
            else None if self.is_sqlite else _PostgresPolls(self.engine))
        self._write_lock: contextlib.AbstractContextManager[Any] = self._writers or contextlib.nullcontext()
        #: Called with the SQL of each poll on the polls' own connections, which the engine's listeners do not see
        #: (bench/plans.py explains them from here).
        self.poll_observers: list[Callable[[str], None]] = []

    @staticmethod
    def is_unique_violation(error: Exception) -> bool:
        """Whether one of ``integrity_errors`` is a unique index's (PostgreSQL's SQLSTATE 23505, SQLite's "UNIQUE
        constraint failed"), not another constraint's; SQLAlchemy's error wraps the driver's."""
        driver = getattr(error, "orig", None) or error
        return getattr(driver, "sqlstate", None) == "23505" or "UNIQUE constraint failed" in str(driver)

    def create_all(self) -> None:
        """Bring the schema up to date: the Alembic migrations, which keep existing games."""
        self.migrate()

    def migrate(self) -> None:
        """Run the Alembic migrations, unless the database is already at the newest one.

        Alembic and what it imports (Mako among them), once loaded, stay in a running server's memory to the end
        (about 10 MB of its PSS): a database at the head, as at every start but the first after an upgrade, is
        seen by one query.
        """
        head = migration_head()
        if head is None or self._schema_revision() != head:
            self._upgrade()
        # Tables of models that have no migration yet (a safety net; tests check there are none).
        schema.metadata.create_all(self.engine)

    def _upgrade(self) -> None:
        """Alembic's upgrade to the head, on this connection and under the writers' lock."""
        from alembic import command
        from alembic.config import Config as AlembicConfig

        config = AlembicConfig()
        config.set_main_option("script_location", str(Path(__file__).resolve().parent.parent / "migrations"))
        with self._write_lock, self.engine.begin() as connection:
            if not self.is_sqlite:  # two instances starting at once: one migrates, the other waits
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            config.attributes["connection"] = connection
            tables = set(inspect(connection).get_table_names())
            if "game" in tables and "alembic_version" not in tables:
                # A database made by create_all before migrations existed: say which schema it has.
                columns = {column["name"] for column in inspect(connection).get_columns("game")}
                command.stamp(config, "0002" if "clock" in columns else "0001")  # later ones are re-checked
                if "leased_by" in {c["name"] for c in inspect(connection).get_columns("outboxitem")}:
                    command.stamp(config, "0004" if "event" in tables else "0003")
            command.upgrade(config, "head")

    def _schema_revision(self) -> str | None:
        """The migration the database was last brought to; None for a database without Alembic's table."""
        with self.engine.connect() as connection:
            if "alembic_version" not in inspect(connection).get_table_names():
                return None
            revisions = connection.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        return revisions[0] if len(revisions) == 1 else None  # several heads are Alembic's to sort out

    def dispose(self) -> None:
        if isinstance(self._polls, _PostgresPolls):
            self._polls.close()
        self.engine.dispose()

    @contextmanager
    def transaction(self, durable: bool = True) -> Iterator[Session]:
        """One unit of work: committed on success, rolled back on any exception; on disk when it returns.

        On SQLite the log is synced after the writers' lock is let go (:meth:`sync_to_disk`): the next
        writer does not wait for the disk too, and readers may see the commit a moment before it is
        durable, which is harmless, since nothing leaves the server on the strength of a commit before a
        sync (the listener's 250 comes after this returns, the deliverer syncs before it sends).

        ``durable=False``: no sync (SQLite) and ``synchronous_commit`` off (PostgreSQL): for work whose
        effects leave the server by mail alone (the worker's). After a power cut such a commit may be gone,
        but then so is every mail it queued, and the stored mail that caused it is applied again. A commit
        is never durable without those before it (one log, written in order), so any later sync covers it.
        """
        with self._write_lock, Session(self.engine, expire_on_commit=False) as session, session.begin():
            connection = hold_connection(session)  # this session's one transaction: its statements' connection
            if not self.is_sqlite:
                if not durable:
                    connection.exec_driver_sql("SET LOCAL synchronous_commit TO OFF")
                yield session
                return
            driver: Any = connection.connection.driver_connection  # sqlite3.Connection
            changes = driver.total_changes
            yield session
            session.flush()  # what the commit would write, written now to be counted
            wrote = driver.total_changes != changes  # a transaction that only read has nothing to sync
        if durable and wrote:
            self.sync_to_disk()

    @contextmanager
    def writing(self) -> Iterator[Connection]:
        """:meth:`transaction` for Core statements alone (pbem.store.many_rows), on a connection without the ORM's
        session: the session's begin, flush, commit and close were some 300,000 instructions, two fifths of the
        listener's commit of one mail (bench/server_instructions.py). Durable the same way: synced after the
        writers' lock is let go, when the transaction wrote."""
        with self._write_lock, self.engine.begin() as connection:
            if not self.is_sqlite:
                yield connection
                return
            driver: Any = connection.connection.driver_connection  # sqlite3.Connection
            changes = driver.total_changes
            yield connection
            wrote = driver.total_changes != changes  # a transaction that only read has nothing to sync
        if wrote:
            self.sync_to_disk()

    def write(self, statement: Any) -> None:
        """One Core statement in a transaction of its own: the cheap path for hot single-row updates."""
        with self._write_lock, self.engine.begin() as connection:
            connection.execute(statement)
        self.sync_to_disk()

    def sync_to_disk(self) -> None:
        """Make every commit so far durable. SQLite: fsync its write-ahead log (a checkpoint syncs what it
        copies into the database file itself), and its folder the first time a new log file is seen (a
        file's name is not on disk until its folder is synced). PostgreSQL: a synchronous commit has
        flushed the log to itself and to every commit before it, of every instance (the deliverer's claim
        is one). SQLite in memory: nothing to do.
        """
        if self.sqlite_file is None:
            return
        try:
            descriptor = os.open(f"{self.sqlite_file}-wal", os.O_RDONLY | os.O_CLOEXEC)
        except FileNotFoundError:
            return  # no log: the last connection closed it after a checkpoint, which synced the file
        try:
            # The log's data and its length, as SQLite syncs it itself: not its times, which a log written over in
            # place after a checkpoint would otherwise send through the file system's journal on every sync.
            os.fdatasync(descriptor)
            inode = os.fstat(descriptor).st_ino
        finally:
            os.close(descriptor)
        if inode != self._wal_inode:
            sync_folder(self.sqlite_file.parent)
            self._wal_inode = inode

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only look (polls, reports): takes no write lock; never write through it."""
        with Session(self._reader, expire_on_commit=False) as session, session.begin():
            yield session
            session.rollback()

    def secret_key(self, configured: str) -> bytes:
        """The configured key, or one generated on first start and kept in the database."""
        if configured:
            return configured.encode()
        with self.transaction() as session:
            row = session.get(models.Setting, "secret_key")
            if row is None:
                row = models.Setting(key="secret_key", value=secrets.token_hex(32))
                session.add(row)
            return row.value.encode()

    def locked(self, statement: Any, of: Any = None) -> Any:
        """``statement`` with a row lock where the backend has one (SQLite locks the whole file); ``of``: the
        table whose rows to lock, when the statement joins others only to read them."""
        return statement if self.is_sqlite else statement.with_for_update(of=of)

    def claimable(self, statement: Any) -> Any:
        """``statement`` taking rows no other instance holds (PostgreSQL ``SKIP LOCKED``)."""
        return statement if self.is_sqlite else statement.with_for_update(skip_locked=True)

    def waiting(self, statement: Any) -> bool:
        """Whether the Core select ``statement`` finds a row: a poll on a bare connection of this thread's (SQLite
        in a file, PostgreSQL), without the write lock or an ORM session (a session's set-up costs more than the
        indexed look itself)."""
        if self._polls is not None:
            self._observe(statement)
            return self._polls.finds(statement)
        with self._poller.connect() as connection:
            return connection.execute(statement).first() is not None

    def _observe(self, statement: Any) -> None:
        for observe in self.poll_observers:
            observe(_literal_sql(statement, self.engine.dialect))

    def polled_row(self, statement: Any) -> tuple[Any, ...] | None:
        """The first row of the Core select ``statement`` (None: no row), read as :meth:`waiting` reads, each value
        converted as SQLAlchemy's own execution converts it. For a statement run after every round of mail (the
        next sweep event): in a read session it cost 170 µs, on the polls' connection a few."""
        if self._polls is None:
            with self._poller.connect() as connection:
                found = connection.execute(statement).first()
                return None if found is None else tuple(found)
        self._observe(statement)
        row = self._polls.first(statement)
        if row is None:
            return None
        processors = _result_processors(statement, self.engine.dialect)
        return tuple(value if process is None else process(value)
                     for process, value in zip(processors, row, strict=True))

    def work_through(self, waiting: Any, batch: Any, handle: Callable[[Session, Any], None],
                     fail: Callable[[Session, Any, Exception], None]) -> bool:
        """A queue's discipline: ``waiting`` (a cheap select of one id) says whether anything waits, so an
        empty queue costs no write lock; then one transaction claims the rows of ``batch`` (oldest first,
        limited: a select, or a ``Prepared`` one that takes its rows as :meth:`claimable` would) and hands
        each to ``handle``, committing early when another writer waits and the batch has held the writers' lock
        for :data:`YIELD_AFTER_SECONDS` (the rows not handled stay as they were, for the next round). False when
        nothing waited.

        A row whose ``handle`` raises takes its whole transaction with it: ``fail`` then records it, in a
        transaction of its own, so that ``batch`` no longer selects it, and the batch is claimed again, its
        other rows handled anew. No row needs a savepoint of its own: one cost the worker a twelfth of a
        move (the ORM's nested transaction, its flush and its SAVEPOINT, a round trip on PostgreSQL), and a
        failure is rare.
        """
        # A round cut short for a waiting writer knows the next has work: under load that is nearly every
        # round, and the poll was a thirtieth of the worker's time.
        if id(waiting) not in self._rows_left and not self.waiting(waiting):
            return False
        self._rows_left.discard(id(waiting))
        for _ in range(_FAILURES_PER_ROUND):
            try:
                return self._handle_batch(waiting, batch, handle)
            except _RowFailed as failed:
                with self.transaction(durable=False) as session:
                    # The batch was rolled back: the row waits again, unlocked, and another instance (PostgreSQL)
                    # may have taken and handled it since. Only a row that still waits is marked, locked first.
                    table = waiting.get_final_froms()[0]
                    still = self.locked(waiting.where(*_same_row(table, failed.row)), of=table)
                    if session.execute(still).first() is None:
                        log.warning("a failed row of %s was handled by another instance meanwhile", table.name)
                    else:
                        fail(session, _read_again(session, failed.row), failed.error)
                if failed.handled:
                    log.warning("the %d rows handled before the failed one in its transaction are handled again",
                                failed.handled)
            except Exception as error:
                if not _transient(error):
                    raise
                log.warning("a batch of the queue was rolled back by the database (%s); claiming it again",
                            type(getattr(error, "orig", None) or error).__name__)
        self._rows_left.add(id(waiting))  # rows may be left: the next round takes them without a poll
        return True

    def _handle_batch(self, waiting: Any, batch: Any, handle: Callable[[Session, Any], None]) -> bool:
        # Not durable at commit: the queues' work leaves the server only as mail, which the deliverer sends
        # after a sync (see transaction); the commit's fsync was a tenth of the worker's time, under the lock.
        with self.transaction(durable=False) as session:
            held_since = time.monotonic()
            rows = batch.rows(session) if isinstance(batch, Prepared) else list(
                session.exec(self.claimable(batch)).all())
            for handled, row in enumerate(rows, 1):
                try:
                    handle(session, row)
                    session.flush()  # the row's own writes fail here, not in the next row's or at the commit
                except Exception as error:
                    if _transient(error):
                        raise  # the transaction's, not the row's: the batch is claimed again
                    raise _RowFailed(row, error, handled - 1) from error
                if (handled < len(rows) and time.monotonic() - held_since >= YIELD_AFTER_SECONDS
                        and self.writers_waiting()):
                    self._rows_left.add(id(waiting))
                    break  # commit now and let them in; the rows left wait for the next round
        return bool(rows)

    def writers_waiting(self) -> bool:
        """Whether another writer waits for the transaction the caller holds (SQLite's one writer at a time;
        PostgreSQL's writers lock rows, not the database: never)."""
        return self._writers is not None and self._writers.others_waiting()


class Leadership:
    """Which instance runs the scheduler: on PostgreSQL the holder of a session advisory lock.

    The lock lives on a connection of its own; when its instance dies the
    connection closes, the lock goes with it, and the next instance to ask
    takes over. SQLite has one instance per file, which always leads.
    """

    def __init__(self, db: Database) -> None:
        self.db = db
        self._connection: Any = None

    def hold(self) -> bool:
        """True while this instance leads (taking the lead if it is free)."""
        if self.db.is_sqlite:
            return True
        if self._connection is not None:
            try:
                self._connection.execute(text("SELECT 1"))
                return True
            except Exception:  # the connection broke: the lock is gone with it
                self._drop()
        connection = self.db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            leading = bool(connection.execute(text("SELECT pg_try_advisory_lock(:key)"),
                                              {"key": _LEADER_LOCK}).scalar())
        except Exception:
            connection.close()
            raise
        if not leading:
            connection.close()
            return False
        self._connection = connection
        return True

    def release(self) -> None:
        if self._connection is not None:
            with contextlib.suppress(Exception):
                self._connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _LEADER_LOCK})
            self._drop()

    def _drop(self) -> None:
        with contextlib.suppress(Exception):
            self._connection.invalidate()  # never back to the pool with a session lock on it
            self._connection.close()
        self._connection = None


class GameClaims:
    """Which instance works on a piece of computer work ("game:12", "analysis:3"): on PostgreSQL the holder
    of a two-key session advisory lock on a connection of its own, released when the work is done or the
    instance dies. SQLite has one instance per file, which holds every claim."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._held: dict[str, Any] = {}
        self._guard = threading.Lock()

    @staticmethod
    def _keys(key: str) -> dict[str, int]:
        kind, number = key.split(":")
        return {"space": _CLAIM_SPACE[kind], "number": int(number)}

    def claim(self, key: str) -> bool:
        """True if this instance may work on ``key`` now (nobody else holds it)."""
        if self.db.is_sqlite:
            return True
        connection = self.db.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            taken = bool(connection.execute(_TRY_CLAIM, self._keys(key)).scalar())
        except Exception:
            connection.close()
            raise
        if not taken:
            connection.close()
            return False
        with self._guard:
            self._held[key] = connection
        return True

    def release(self, key: str) -> None:
        with self._guard:
            connection = self._held.pop(key, None)
        if connection is None:
            return
        with contextlib.suppress(Exception):
            connection.execute(_UNCLAIM, self._keys(key))
        with contextlib.suppress(Exception):
            connection.invalidate()  # never back to the pool with a session lock on it
            connection.close()

    def release_all(self) -> None:
        for key in list(self._held):
            self.release(key)
