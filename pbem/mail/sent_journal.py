"""The deliverer's sent marks for a SQLite database: appended to a file beside it, folded into the outbox in rounds."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

__all__ = ["SentJournal"]


class SentJournal:
    """``<database>.sent``: one line per mail the relay accepted, ``<outbox id> <ISO time>``.

    SQLite has one writer at a time, and the mail worker holds the database for a mail's work
    (milliseconds): marking each mail sent in the database made the deliverer wait that long, twice
    a move, between mails. A line here is written without that lock, so the next mail goes out as
    soon as this one is marked; the deliverer folds the lines into the outbox once a round
    (:meth:`folding`). A crash between the two loses nothing: the mails are still leased in the
    outbox, and the restart folds the lines before it releases the leases.

    A line is the kernel's once :meth:`write` returns, which no crash of this process takes back; a
    thread of the journal's own then syncs it to the disk, against a power cut, while the deliverer
    goes on with its next mail's envelope and content (:meth:`wait_synced` waits for it before that
    mail's final dot). One sync covers every line written before it began (a group commit).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: int | None = None
        self._pid = 0
        # Lines written by this process and how many of them are synced, or were in a sync that failed (with
        # what it raised); the syncer waits on the condition for lines, the deliverer for their sync.
        self._written = self._synced = self._failed_through = 0
        self._sync_error: OSError | None = None
        self._condition = threading.Condition()
        self._syncer: threading.Thread | None = None

    def _descriptor(self) -> int:
        if self._file is None or self._pid != os.getpid():  # a forked process opens its own (flock is per file)
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            self._pid = os.getpid()
        return self._file

    def write(self, outbox_id: int, sent_at: datetime) -> int:
        """Mark one mail sent, safe from a crash of this process at once and from a power cut once synced; the
        line's number, for :meth:`wait_synced`."""
        descriptor = self._descriptor()
        fcntl.flock(descriptor, fcntl.LOCK_EX)  # not between a fold's reading and its emptying
        try:
            os.write(descriptor, f"{outbox_id} {sent_at.isoformat()}\n".encode("ascii"))
        finally:
            fcntl.flock(descriptor, fcntl.LOCK_UN)
        with self._condition:
            self._written += 1
            if self._syncer is None or not self._syncer.is_alive():
                self._syncer = threading.Thread(target=self._sync_forever, name="pbem-sent-sync", daemon=True)
                self._syncer.start()
            self._condition.notify_all()
            return self._written

    @property
    def synced(self) -> int:
        """How many of the lines this process wrote are on the disk (they are numbered from 1)."""
        with self._condition:
            return self._synced

    def wait_synced(self, line: int) -> None:
        """Return once line ``line`` (a number :meth:`write` gave) is on the disk; raise what its sync raised."""
        with self._condition:
            while self._synced < line:
                if self._sync_error is not None and self._failed_through >= line:
                    raise self._sync_error
                self._condition.wait()

    def _sync_forever(self) -> None:
        """The syncer: whenever lines wait, one fdatasync for all of them. After a failed sync the lines it covered
        stay failed (their waiters are told); the next line written is tried afresh."""
        while True:
            with self._condition:
                while max(self._synced, self._failed_through) >= self._written:
                    if self._file is None:
                        return  # closed, and nothing left to sync
                    self._condition.wait()
                through, descriptor = self._written, self._file
            try:
                if descriptor is None:  # a line written while the journal was being closed
                    raise OSError(f"{self.path} was closed before its last lines were synced")
                os.fdatasync(descriptor)
            except OSError as error:  # the disk failed
                with self._condition:
                    self._failed_through, self._sync_error = through, error
                    self._condition.notify_all()
                continue
            with self._condition:
                self._synced = through
                self._condition.notify_all()

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
        """Close the file once every line written is synced; the syncer ends with it."""
        with self._condition:
            syncer, written = self._syncer, self._written
        if syncer is not None and syncer.is_alive() and self._pid == os.getpid():
            with contextlib.suppress(OSError):
                self.wait_synced(written)
        with self._condition:
            if self._file is not None and self._pid == os.getpid():
                os.close(self._file)
            self._file = None
            self._condition.notify_all()
        if syncer is not None and syncer is not threading.current_thread():
            syncer.join()


def _parse(line: str) -> tuple[int, datetime] | None:
    number, _, when = line.partition(" ")
    try:
        entry = int(number), datetime.fromisoformat(when)
    except ValueError:
        return None
    return entry if entry[1].tzinfo is not None else None  # a time cut short before its offset
