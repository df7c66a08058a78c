"""Board pictures drawn into queued mails in a process of their own, for the deliverer: the server's process only
sends the mail.

A picture is the largest piece of CPU in a move's mails (bench/move_cost.py). Drawn by the worker it
lengthened the one sequence every move waits in; drawn by the deliverer in the server's process it
competed for that process's interpreter lock with the listener and the relay connection, and delivery
became the bound instead (docs/hot-path.md has both measurements). Here a child process draws them and
writes them into the mail (their base64 lines, too, cost the server's process 7% of its time),
one mail at a time, on whatever core is free; the server's thread that asks waits on a pipe meanwhile,
without the lock. If the child dies or stops answering, pictures are drawn in the server's process until
RESTART_SECONDS have passed, and then in a new child: a mail is never held back for its picture.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import threading
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from pbem.children import become_child, child_context, preload
from pbem.mail.later_pictures import finished
from pbem.metrics import MAILS_DRAWN, labelled

__all__ = ["ANSWER_SECONDS", "PictureProcess", "serve_pictures"]

log = logging.getLogger(__name__)

#: The longest wait for one picture (a few milliseconds normally) before the child is taken for stuck.
ANSWER_SECONDS = 30.0
#: The bytes of a request's length field (see _request): a mail is far below 4 GB.
_LENGTH_BYTES = 4
#: After a child died or was stopped, pictures are drawn here for this long before another child starts.
RESTART_SECONDS = 5.0


def serve_pictures(server: int, requests: Connection, servers_end: Connection) -> None:
    """The child's life: for each mail asked for (a request: an outbox row's bytes and its pictures' JSON, see
    _request), answer with the mail, its pictures drawn in, until the server closes ``servers_end`` (its end of
    ``requests``)."""
    become_child(server, "pbem-pictures", (servers_end,))
    with contextlib.suppress(EOFError, OSError, KeyboardInterrupt):  # the server closed the pipe, or is gone
        while True:
            request = requests.recv_bytes()
            length = int.from_bytes(request[:_LENGTH_BYTES], "big")
            raw = request[_LENGTH_BYTES:_LENGTH_BYTES + length]
            requests.send_bytes(finished(raw, request[_LENGTH_BYTES + length:].decode("utf-8")))


def _request(raw: bytes, pictures: str) -> bytes:
    """One message to the child for a mail: its bytes' length, its bytes, its pictures' JSON. Sent as two
    messages, the mail woke the child for its bytes alone, to wait again for the JSON: two writes and a
    hand-over more a game mail."""
    return b"".join((len(raw).to_bytes(_LENGTH_BYTES, "big"), raw, pictures.encode("utf-8")))


class PictureProcess:
    """The server's side: ``finish`` one mail in the child (started on first use), or here if it cannot."""

    def __init__(self) -> None:
        preload(__name__)
        self._lock = threading.Lock()  # one request on the pipe at a time
        self._process: BaseProcess | None = None
        self._pipe: Connection | None = None
        self._failed_at = float("-inf")
        self.drawn_here = 0  # mails whose pictures the server's process drew itself (a child was down)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the child now (pbem serve does, so that the first picture does not wait for it)."""
        with self._lock:
            self._connection()

    def finish(self, raw: bytes, pictures: str) -> bytes:
        """``raw`` with the pictures ``pictures`` names drawn in (pbem.mail.later_pictures.finished)."""
        if not pictures:
            return raw
        with self._lock:
            pipe = self._connection()
            if pipe is not None:
                try:
                    pipe.send_bytes(_request(raw, pictures))
                    if pipe.poll(ANSWER_SECONDS):
                        drawn = pipe.recv_bytes()
                        labelled(MAILS_DRAWN, "picture-process").inc()
                        return drawn
                    log.error("picture process %s gave no picture in %.0f s; stopping it", self.pid, ANSWER_SECONDS)
                except (EOFError, OSError) as error:
                    log.error("picture process %s is gone (%s); drawing here for %.0f s", self.pid, error,
                              RESTART_SECONDS)
                self._stop()
                self._failed_at = time.monotonic()
            self.drawn_here += 1
            MAILS_DRAWN.labels("server").inc()
            return finished(raw, pictures)

    def close(self) -> None:
        with self._lock:
            self._stop()

    def _connection(self) -> Connection | None:
        if self._pipe is not None:
            return self._pipe
        if time.monotonic() - self._failed_at < RESTART_SECONDS:
            return None
        try:
            ours, theirs = multiprocessing.Pipe(duplex=True)
            context = child_context()
            process = context.Process(target=serve_pictures, name="pbem-pictures", daemon=True,
                                      args=(os.getpid(), theirs, ours))
            process.start()
        except (OSError, RuntimeError) as error:  # out of processes or memory: draw here for a while
            log.error("cannot start the picture process (%s); drawing here for %.0f s", error, RESTART_SECONDS)
            self._failed_at = time.monotonic()
            return None
        theirs.close()
        self._process, self._pipe = process, ours
        log.info("picture process %d started (%s)", process.pid, context.get_start_method())
        return ours

    def _stop(self) -> None:
        if self._pipe is not None:
            self._pipe.close()  # the child's recv ends: it exits
            self._pipe = None
        process, self._process = self._process, None
        if process is not None:
            process.join(1.0)
            if process.is_alive():
                process.kill()
                process.join(1.0)
