"""Online backups of a SQLite database: a consistent copy of the live file, by SQLite's backup API."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from pathlib import Path

from sqlalchemy.engine import make_url

__all__ = ["BackupError", "backup_sqlite", "sqlite_path"]


class BackupError(ValueError):
    """No backup was made: the reason says why (the target exists, no database, a failed copy)."""


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite database URL; None for another backend (or an in-memory database)."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or parsed.database in (None, "", ":memory:"):
        return None
    return Path(parsed.database)


def backup_sqlite(source: Path, target: Path) -> int:
    """Copy the live database ``source`` to the new file ``target``; returns the copy's size in bytes.

    The copy is one step of ``sqlite3.Connection.backup``: one read transaction, so it holds exactly the
    transactions committed before it began, while the server goes on writing beside it (WAL). ``target`` is
    created exclusively (never overwritten), readable by its owner only (the database holds the secret key),
    and left as one self-contained file (journal mode DELETE), checked with ``PRAGMA quick_check``.
    """
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError as error:
        raise BackupError(f"{target} exists: a backup never overwrites a file") from error
    except OSError as error:
        raise BackupError(f"cannot create {target}: {error.strerror}") from error
    os.close(descriptor)
    try:
        with contextlib.closing(sqlite3.connect(source, timeout=30)) as live, \
                contextlib.closing(sqlite3.connect(target)) as copy:
            live.backup(copy)
            copy.execute("PRAGMA journal_mode=DELETE")
            check = copy.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise BackupError(f"the copy failed its integrity check: {check[0] if check else 'no answer'}")
    except (sqlite3.Error, BackupError) as error:
        target.unlink(missing_ok=True)
        if isinstance(error, BackupError):
            raise
        raise BackupError(f"the copy failed: {error}") from error
    return target.stat().st_size
