"""The deliverer's sent marks for a SQLite database: appended to a file beside it, folded into the outbox in rounds."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

__all__ = ["SentJournal"]


class SentJournal:
    """``<database>.sent``: one line per mail the relay accepted, ``<outbox id> <ISO time>``.

    SQLite has one writer at a time, and the mail worker holds the database for a mail's work
    (milliseconds): marking each mail sent in the database made the deliverer wait that long, twice
    a move, between mails. A line here is written and synced at once, without that lock, so the
    next mail goes out as soon as this one is marked; the deliverer folds the lines into the outbox
    once a round (:meth:`folding`). A crash between the two loses nothing: the mails are still
    leased in the outbox, and the restart folds the lines before it releases the leases.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: int | None = None
        self._pid = 0

    def _descriptor(self) -> int:
        if self._file is None or self._pid != os.getpid():  # a forked process opens its own (flock is per file)
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            self._pid = os.getpid()
        return self._file

    def record(self, outbox_id: int, sent_at: datetime) -> None:
        """Mark one mail sent, durably (synced before returning, as a commit would be)."""
        descriptor = self._descriptor()
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # not between a fold's reading and its emptying
        try:
            os.write(descriptor, f"{outbox_id} {sent_at.isoformat()}\n".encode("ascii"))
            os.fdatasync(descriptor)
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)

    @contextmanager
    def folding(self) -> Iterator[list[tuple[int, datetime]]]:
        """The marks written so far, held against new ones until the block ends; emptied if it succeeds.

        A line cut short by a crash is skipped: its mail is re-sent after its lease, as before it was
        marked (the crash came before the mark was synced).
        """
        descriptor = self._descriptor()
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        try:
            size = os.fstat(descriptor).st_size
            lines = os.pread(descriptor, size, 0).decode("ascii", "replace").splitlines() if size else []
            yield [entry for line in lines if (entry := _parse(line)) is not None]
            if size:
                os.ftruncate(descriptor, 0)
                os.fsync(descriptor)
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)

    def close(self) -> None:
        if self._file is not None and self._pid == os.getpid():
            os.close(self._file)
        self._file = None


def _parse(line: str) -> tuple[int, datetime] | None:
    number, _, when = line.partition(" ")
    try:
        entry = int(number), datetime.fromisoformat(when)
    except ValueError:
        return None
    return entry if entry[1].tzinfo is not None else None  # a time cut short before its offset
