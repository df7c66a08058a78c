"""The mail worker in a process of its own: mail is applied on one core while the server listens and delivers."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from pbem.children import become_child, child_context, preload
from pbem.computer_player import computer_work_waiting
from pbem.config import Config
from pbem.heap import freeze_startup_heap
from pbem.log_setup import configure_logging, configured
from pbem.metrics import OTHER_PROCESSES, figures
from pbem.startup import build_services, load_variants
from pbem.store.db import Database
from pbem.sweep import Sweeper
from pbem.worker import Worker

__all__ = ["POLL_SECONDS", "WORKER_BATCH", "MailWorkerProcess", "serve_mail", "uses_worker_process"]

log = logging.getLogger(__name__)

#: How often the worker looks at the inbox when nobody woke it (mail stored by another instance, retries).
POLL_SECONDS = 2.0
#: Mails the worker applies per commit: amortises the commit under load, costs nothing when idle.
WORKER_BATCH = 16
#: How long a stopping server waits for the worker to finish the batch it is in.
STOP_SECONDS = 30.0
#: A worker process that died is started again after this pause (a crash loop would otherwise spin).
RESTART_SECONDS = 1.0
#: Shortest time between two reports of the worker's counts after a batch: the whole registry, collected and
#: pickled, was a thirtieth of the worker process's CPU under load. Every round's last report carries them.
BATCH_FIGURES_SECONDS = 1.0

class _Stop:
    """Set by SIGTERM, the server's way of stopping its worker: the batch under way finishes first."""

    asked = False

    @classmethod
    def ask(cls, _signal: int, _frame: object) -> None:
        cls.asked = True


def _wait_for_nudge(nudges: Connection) -> None:
    """Wait until the server nudges (or POLL_SECONDS pass), then take every nudge that waits."""
    if nudges.poll(POLL_SECONDS):
        while nudges.poll(0):
            nudges.recv_bytes()  # EOFError when the server is gone


def serve_mail(config: Config, server: int, nudges: Connection, reports: Connection,
               logging_as: tuple[str, str] | None, servers_ends: tuple[Connection, ...] = ()) -> None:
    """The worker process's life: wait for a nudge (or POLL_SECONDS), apply the waiting mail and the deadline
    notices batch by batch, and report after each batch (so delivery starts at once) and each round."""
    become_child(server, "pbem-worker", servers_ends)
    signal.signal(signal.SIGTERM, _Stop.ask)
    if logging_as is not None:
        configure_logging(*logging_as)
    db = Database(config.database.url)
    services = build_services(config, db)
    worker, sweeper = Worker(db, services), Sweeper(db, services)
    load_variants()
    freeze_startup_heap()
    reported = 0.0  # when the counts last went with a batch's report
    try:
        while not _Stop.asked:
            _wait_for_nudge(nudges)  # a mail stored after this is seen below, or nudges the next round
            worked = False
            try:
                while not _Stop.asked and worker.process_next(WORKER_BATCH):
                    worked = True
                    due = time.monotonic() - reported >= BATCH_FIGURES_SECONDS
                    reports.send(("batch", None, figures() if due else None, False))
                    reported = time.monotonic() if due else reported
                # Moves moved deadlines: the server re-arms its alarm (the sweep stays in its process), and
                # looks for the computer's work if there is any.
                if worked:
                    reports.send(("moved", sweeper.next_event(), figures(), computer_work_waiting(db)))
                else:
                    reports.send(("idle", None, figures(), False))
            except (EOFError, OSError):
                raise
            except Exception:
                log.exception("worker round failed; retrying")
    except (EOFError, OSError):
        pass  # the server is gone
    finally:
        db.dispose()


class MailWorkerProcess:
    """The server's side of its worker process: start it, nudge it, hear its reports, start another if it
    dies, stop it. Reports are read on the server's event loop and passed to ``on_report``: ``batch`` after
    each batch (mail to deliver), ``moved`` with the next deadline event after a round that worked (and
    whether the computer has work waiting), ``idle`` after one that found nothing (at least every
    POLL_SECONDS: the worker's heartbeat)."""

    def __init__(self, config: Config, on_report: Callable[[str, datetime | None, bool], None]) -> None:
        self.config = config
        self._on_report = on_report
        preload(__name__)  # for a worker started again from the fork server (see child_context)
        # Nudges go through a pipe, not a multiprocessing.Event: a worker killed while holding the Event's
        # lock would leave the server blocked in set() for good.
        self._nudges: Connection | None = None
        self._process: BaseProcess | None = None
        self._reports: Connection | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = asyncio.Event()
        #: When the worker last reported (time.monotonic()), for /healthz.
        self.last_report = time.monotonic()
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self) -> None:
        """Start the worker process (call on the server's event loop)."""
        self._loop = asyncio.get_running_loop()
        context = child_context()
        receiving, sending = context.Pipe(duplex=False)
        nudged, nudging = context.Pipe(duplex=False)
        process = context.Process(
            target=serve_mail, name="pbem-mail-worker", daemon=True,
            args=(self.config, os.getpid(), nudged, sending, configured(), (receiving, nudging)))
        process.start()
        # Published only once started: /healthz and the tests read pid from other threads, and a process
        # not yet started has none.
        self._process = process
        sending.close()  # ours are the reading end of reports (it closes when the worker dies) ...
        nudged.close()  # ... and the writing end of nudges, which never blocks (see nudge())
        os.set_blocking(nudging.fileno(), False)
        self._reports, self._nudges = receiving, nudging
        self._loop.add_reader(receiving.fileno(), self._read_reports)
        self.starts += 1
        self.last_report = time.monotonic()
        self.nudge()  # mail may have waited while no worker ran
        log.info("mail worker process %d started (%s)", process.pid, context.get_start_method())

    def nudge(self) -> None:
        """Tell the worker mail is waiting (cheap; called for every stored mail). A nudge is one atomic pipe
        write; when the pipe is full the worker has nudges enough, and a dead worker is supervise()'s."""
        if self._nudges is not None:
            with contextlib.suppress(BlockingIOError, OSError):
                self._nudges.send_bytes(b"!")

    def _read_reports(self) -> None:
        reports = self._reports
        assert reports is not None
        try:
            while reports.poll():
                kind, next_event, counts, computer_waiting = reports.recv()
                self.last_report = time.monotonic()
                if counts is not None:  # a batch's report may leave them to the round's last one
                    OTHER_PROCESSES.update("mail-worker", counts)
                self._on_report(kind, next_event, computer_waiting)
        except (EOFError, OSError):  # the worker died: supervise() starts another
            self._close_reports()

    def _close_reports(self) -> None:
        if self._reports is not None:
            if self._loop is not None:
                self._loop.remove_reader(self._reports.fileno())
            self._reports.close()
            self._reports = None

    def _close_nudges(self) -> None:
        if self._nudges is not None:
            self._nudges.close()
            self._nudges = None

    async def supervise(self) -> None:
        """Until stop(): start a new worker whenever the current one has died (killed, out of memory)."""
        while not self._stopping.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), POLL_SECONDS)
            process = self._process
            if self._stopping.is_set() or process is None or process.is_alive():
                continue
            self._close_reports()
            self._close_nudges()
            OTHER_PROCESSES.ended("mail-worker")
            log.error("mail worker process %d exited with code %s; starting another (the mail it was applying "
                      "is applied again: its transaction did not commit)", process.pid, process.exitcode)
            await asyncio.sleep(RESTART_SECONDS)
            if not self._stopping.is_set():
                self.start()

    async def stop(self) -> None:
        """Let the worker finish its batch and exit; kill it if it does not within STOP_SECONDS."""
        self._stopping.set()
        process = self._process
        if process is not None:
            with contextlib.suppress(OSError):
                process.terminate()  # SIGTERM: the worker finishes its batch and exits
            self.nudge()
            await asyncio.to_thread(process.join, STOP_SECONDS)
            if process.is_alive():
                log.warning("mail worker process %d did not stop within %.0f s; killing it", process.pid,
                            STOP_SECONDS)
                process.kill()
                await asyncio.to_thread(process.join, 5.0)
        if self._reports is not None:  # the last reports (figures of the last batch) before closing
            with contextlib.suppress(EOFError, OSError):
                self._read_reports()
        self._close_reports()
        self._close_nudges()
        OTHER_PROCESSES.ended("mail-worker")


def uses_worker_process(config: Config) -> bool:
    """Whether ``config`` runs the mail worker in a process of its own (not for a database only one process
    can see: SQLite in memory)."""
    url = config.database.url
    in_memory = url.startswith("sqlite") and (url.rstrip("/") in ("sqlite:", "sqlite:/") or ":memory:" in url
                                               or "mode=memory" in url)
    return bool(config.server.worker_process) and not in_memory
