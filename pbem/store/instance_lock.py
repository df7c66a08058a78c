"""One `pbem serve` per SQLite database: an flock on a file beside it, held for the server's life."""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path

__all__ = ["InstanceBusyError", "SqliteInstanceLock"]


class InstanceBusyError(RuntimeError):
    """Another `pbem serve` uses this SQLite database."""


class SqliteInstanceLock:
    """``<database>.serve-lock``, locked while this server runs.

    On SQLite a server claims mail without leases, releases every lease at its start and folds its sent journal
    as the only writer of it: all of that assumes it is the database's one instance. A second server on the same
    file (another configuration, another port) would send mails twice. The kernel lets the lock go when the
    process ends, however it ends (the children pbem serve forks share it, and die with the server).
    """

    def __init__(self, database_file: Path) -> None:
        self.database = database_file
        self.path = Path(f"{database_file}.serve-lock")
        self._file: int | None = None

    def hold(self) -> None:
        """Take the lock, or raise InstanceBusyError naming the process that holds it."""
        if self._file is not None:
            return
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(descriptor)
            raise InstanceBusyError(f"another pbem serve (process {holder}) is using the database "
                                    f"{self.database}: one server per SQLite database (several "
                                    "instances need PostgreSQL)") from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode("ascii"), 0)  # for the message above, in the next one
        self._file = descriptor

    def release(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(self._file, 0)
            os.close(self._file)
            self._file = None
