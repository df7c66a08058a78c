"""The deliverer's sent marks for a SQLite database: appended to a file beside it, folded into the outbox now and
then."""

from __future__ import annotations

import errno
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

__all__ = ["GATHER_SECONDS", "SentJournal"]

#: How long the syncer lets lines gather before it syncs them when nobody waits for them yet. A connection waits
#: for its mark only before its next final dot, after that mail's envelope and content (some milliseconds at a
#: busy relay); meanwhile the other connections write theirs, and one sync takes them all. Syncing each line at
#: once made one fdatasync a mail at the e2e bench's maximum (1.11 lines a sync).
GATHER_SECONDS = 0.002


class SentJournal:
    """``<database>.sent``: one line per mail the relay accepted, ``<outbox id> <ISO time>``.

    SQLite has one writer at a time, and the mail worker holds the database for a mail's work
    (milliseconds): marking each mail sent in the database made the deliverer wait that long, twice
    a move, between mails. A line here is written without that lock, so the next mail goes out as
    soon as this one is marked; the deliverer folds the lines into the outbox now and then
    (:meth:`folding`), while it goes on marking. A crash between the two loses nothing: the mails are
    still leased in the outbox, and the restart folds the lines before it releases the leases.

    A line is the kernel's once :meth:`write` returns, which no crash of this process takes back; a
    thread of the journal's own then syncs it to the disk, against a power cut, while the deliverer
    goes on with its next mail's envelope and content (:meth:`wait_synced` waits for it before that
    mail's final dot). One sync covers every line written before it began (a group commit): the syncer
    starts one as soon as somebody waits for a line, else once the oldest line has waited GATHER_SECONDS.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: int | None = None
        self._pid = 0
        self._closed = False
        # Lines are numbered from 1 in the order this process wrote them. The syncer has taken every line up
        # to _attempted; those up to _synced are on the disk unless they are in a range whose sync failed
        # (first, last, what it raised), which stays failed: after a write-back error a later sync that
        # succeeds says nothing of the pages already lost. Writers, waiters and the syncer share one lock, with a
        # condition for each side: the syncer waits for lines (or a waiter) on _work, the waiters for syncs on
        # _done. One condition for both woke every waiting connection at each line written, to sleep again: a
        # twentieth of the server's interpreter time at the e2e bench's maximum went to those notifications.
        self._written = self._attempted = self._synced = 0
        self._wanted = 0  # the last line somebody waits for (see wait_synced)
        self._pending_since: float | None = None  # when the oldest line the syncer has not taken was written
        self._failed: list[tuple[int, int, OSError]] = []
        self._lock = threading.Lock()
        self._work = threading.Condition(self._lock)
        self._done = threading.Condition(self._lock)
        self._syncer: threading.Thread | None = None
        # Where the lines no fold has taken begin: a fold reads from here, and empties the file only when no line
        # came after those it took (lines written during a fold stay for the next one).
        self._folded_to = 0
        self._folding = threading.Lock()  # one fold at a time

    def _descriptor(self) -> int:
        if self._closed:
            raise OSError(f"{self.path}: the journal is closed")
        if self._file is None or self._pid != os.getpid():  # a forked process opens its own (flock is per file)
            self._file = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            self._pid = os.getpid()
            self._folded_to = 0  # a new process folds everything there is
        return self._file

    def write(self, outbox_id: int, sent_at: datetime) -> int:
        """Mark one mail sent, safe from a crash of this process at once and from a power cut once synced; the
        line's number, for :meth:`wait_synced`."""
        with self._lock:  # not while the journal closes (a few microseconds: the syncer's sync is outside)
            descriptor = self._descriptor()
            fcntl.flock(descriptor, fcntl.LOCK_EX)  # not between another process's fold reading and emptying
            try:
                line = f"{outbox_id} {sent_at.isoformat()}\n".encode("ascii")
                if (written := os.write(descriptor, line)) != len(line):
                    # Out of room (a full disk, a file size limit): part of the line, and no error. Taken back,
                    # or the next line would be appended to the piece and neither read by a fold.
                    os.ftruncate(descriptor, os.fstat(descriptor).st_size - written)
                    raise OSError(errno.ENOSPC, f"{self.path}: no room for a whole line ({written} of {len(line)} "
                                                "bytes written)")
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
            self._written += 1
            if self._syncer is None or not self._syncer.is_alive():  # the first line (or a forked process's)
                self._syncer = threading.Thread(target=self._sync_forever, name="pbem-sent-sync", daemon=True)
                self._syncer.start()
            if self._pending_since is None:  # the syncer had nothing to do: its gathering starts now
                self._pending_since = time.monotonic()
                self._work.notify()
            return self._written

    @property
    def synced(self) -> int:
        """The last line known to be on the disk, with every line before it that no failed sync covered."""
        with self._lock:
            return self._synced

    def wait_synced(self, line: int) -> None:
        """Return once line ``line`` (a number :meth:`write` gave) is on the disk; raise what its sync raised."""
        with self._lock:
            while True:
                for first, last, error in self._failed:
                    if first <= line <= last:
                        raise error
                if self._synced >= line:
                    return
                if line > self._wanted:  # the syncer need not gather any longer
                    self._wanted = line
                    self._work.notify()
                self._done.wait()

    def _sync_forever(self) -> None:
        """The syncer: whenever lines wait, one fdatasync for all of them, once somebody waits for one or the oldest
        has waited GATHER_SECONDS; ends when the journal closes, with nothing left to sync."""
        while True:
            with self._lock:
                while (left := self._left_to_gather()) != 0.0:
                    if left is None and self._closed:
                        self._syncer = None
                        return
                    self._work.wait(left)
                first, last, descriptor = self._attempted + 1, self._written, self._file
                self._attempted = last
                self._pending_since = None
            assert descriptor is not None  # open since those lines were written; close waits for this thread
            try:
                os.fdatasync(descriptor)
            except OSError as error:  # the disk failed: these lines' waiters are told, later lines are tried anew
                with self._lock:
                    self._failed.append((first, last, error))
                    self._done.notify_all()
                continue
            with self._lock:
                self._synced = last
                self._done.notify_all()

    def _left_to_gather(self) -> float | None:
        """How long the syncer may still let the lines written gather (under the lock): None when no line
        waits, 0 when it takes them now."""
        if self._attempted >= self._written:
            return None
        if self._closed or self._wanted > self._attempted or self._pending_since is None:
            return 0.0
        return max(0.0, self._pending_since + GATHER_SECONDS - time.monotonic())

    @contextmanager
    def folding(self) -> Iterator[list[tuple[int, datetime]]]:
        """The marks written since the last fold; taken once the block ends without an error.

        The file is locked only to read the marks and to empty it, not while the block writes them into the
        outbox: marks go on being written meanwhile. The file is emptied when no mark came after those read;
        else the next fold reads from where this one stopped. A crash before that reads them all again at the
        next start: folding a mark twice changes nothing (see pbem.mail.delivery's _FOLD).

        A line cut short by a crash is skipped: its mail is re-sent after its lease, as before it was
        marked (the crash came before the mark was synced).
        """
        with self._folding:
            with self._locked() as descriptor:
                start, end = self._folded_to, os.fstat(descriptor).st_size
            # Every line up to ``end`` is whole: the size was read between two writes.
            lines = os.pread(descriptor, end - start, start).decode("ascii", "replace").splitlines()
            yield [entry for line in lines if (entry := _parse(line)) is not None]
            if end == start:
                return
            with self._locked() as descriptor:
                emptied = os.fstat(descriptor).st_size == end  # nothing written since
                if emptied:
                    os.ftruncate(descriptor, 0)
                self._folded_to = 0 if emptied else end
            if emptied:
                os.fsync(descriptor)  # outside the lock: the connections' marks do not wait for the disk

    @contextmanager
    def _locked(self) -> Iterator[int]:
        """The journal's descriptor, with no line being written meanwhile: by this process's threads (its lock;
        they share the descriptor, and flock does not exclude threads of one process, it locks the open file)
        nor by another process (flock)."""
        with self._lock:
            descriptor = self._descriptor()
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            try:
                yield descriptor
            finally:
                fcntl.flock(descriptor, fcntl.LOCK_UN)

    def close(self) -> None:
        """No more lines: the syncer syncs those written and ends, then the file is closed."""
        with self._lock:
            self._closed = True
            syncer = self._syncer
            self._work.notify()
        if syncer is not None and syncer is not threading.current_thread():
            syncer.join()
        with self._lock:
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
