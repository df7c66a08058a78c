"""`pbem serve`: SMTP and web listeners, scheduler and delivery in one asyncio process; the mail worker beside it."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import time
from collections.abc import Coroutine
from datetime import datetime
from typing import Any, TypeVar

from pbem.computer_player import ComputerPlayer, computer_work_waiting
from pbem.config import Config
from pbem.heap import freeze_startup_heap
from pbem.mail.delivery import Deliverer
from pbem.mail.later_pictures import finished
from pbem.mail.smtpd import InboundHandler, make_smtp_factory
from pbem.picture_process import PictureProcess
from pbem.scheduler import Alarm
from pbem.startup import build_services, load_variants
from pbem.store.db import Database, Leadership
from pbem.store.instance_lock import InstanceBusyError, SqliteInstanceLock
from pbem.sweep import Sweeper
from pbem.web.site import WebServer
from pbem.worker import Worker, read_ahead
from pbem.worker_process import POLL_SECONDS, WORKER_BATCH, MailWorkerProcess, uses_worker_process

__all__ = ["Server", "StartError"]

_T = TypeVar("_T")

log = logging.getLogger(__name__)

#: The scheduler's safety-net sweep (and how soon a standby instance takes over a dead leader);
#: the real wake-ups are armed at each game's next event.
SWEEP_POLL_SECONDS = 10.0
#: A loop that has not gone round for this long is reported stuck by /healthz (a round waits POLL_SECONDS
#: at most when idle; a long batch of work may take a while).
LOOP_STALL_SECONDS = 120.0
#: How long a call of the delivery loop claims mail as it comes due before it goes round (see
#: Deliverer.deliver_due): its heartbeat for /healthz, and a mail retried after a failure, which a call's later
#: claims leave for the next call, go out by then.
DELIVERY_SECONDS = 5.0


class StartError(RuntimeError):
    """pbem serve cannot start (its database used by another server, a port taken): said in one line."""


class Server:
    """Owns every long-running part; ``start`` binds, ``stop`` drains and closes."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.db = Database(config.database.url)
        self.db.create_all()
        #: One server per SQLite database (see SqliteInstanceLock); held from start to stop.
        self._instance = SqliteInstanceLock(self.db.sqlite_file) if self.db.sqlite_file is not None else None
        self.services = build_services(config, self.db)
        self.addresses = self.services.addresses
        # The mail worker in a process of its own (config [server] worker_process), else in a thread here.
        self.worker_process: MailWorkerProcess | None = (
            MailWorkerProcess(config, self._worker_reported) if uses_worker_process(config) else None)
        self.worker: Worker | None = Worker(self.db, self.services) if self.worker_process is None else None
        #: The mails' board pictures, drawn at delivery in a process of their own ([server] picture_process).
        self.pictures: PictureProcess | None = PictureProcess() if config.server.picture_process else None
        self.deliverer = Deliverer(self.db, config.outbound.smtp_host, config.outbound.smtp_port,
                                   config.outbound.maildir,
                                   finish=self.pictures.finish if self.pictures else finished)
        self.sweeper = Sweeper(self.db, self.services)
        self.computer = ComputerPlayer(self.db, self.services, on_mail=self._wake_delivery)
        self.leadership = Leadership(self.db)
        self.alarm = Alarm(self._sweep, SWEEP_POLL_SECONDS)
        # The pages when [web] enabled; /healthz and /metrics on the same port either way.
        self.web: WebServer | None = WebServer(self.db, self.services, config.web.host, config.web.port,
                                               loops=self.loop_problems, pages=config.web.enabled)
        #: When each loop last went round (time.monotonic()), for /healthz.
        self._beats: dict[str, float] = {}
        self._inbox_event = asyncio.Event()
        self._outbox_event = asyncio.Event()
        self._computer_event = asyncio.Event()
        self._stopping = asyncio.Event()
        self._server: asyncio.base_events.Server | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.port: int = 0

    def _wake_worker(self) -> None:
        if self.worker_process is not None:
            self.worker_process.nudge()
        else:
            self._inbox_event.set()

    def _worker_reported(self, kind: str, next_event: datetime | None, computer_waiting: bool) -> None:
        """A report of the worker process: a batch applied (mail to deliver), a round that moved deadlines."""
        self._beats["worker"] = time.monotonic()
        if kind == "batch":
            self._mail_queued()
        elif kind == "moved":  # moves moved deadlines: re-arm the alarm; the computer may owe a move
            if computer_waiting:
                self._computer_event.set()
            self.alarm.wake_at(next_event)

    def _mail_queued(self) -> None:
        """Mail was queued: the delivery loop claims it, or the call under way does as soon as it has room."""
        self._outbox_event.set()
        self.deliverer.wake()

    def _wake_delivery(self) -> None:
        self._mail_queued()
        self._computer_event.set()  # a finished turn frees a worker for the next one

    async def start(self) -> None:
        if self._instance is not None:
            try:
                self._instance.hold()  # before anything is claimed, released or sent
            except InstanceBusyError as error:
                raise StartError(str(error)) from None
        # Before anything is served, and in this thread: the first mail does not wait for the variants, and the
        # children forked next share them, with the rest of the frozen heap, while this process has no other
        # thread (pbem.children.child_context).
        load_variants()
        freeze_startup_heap()
        if self.worker_process is not None:
            self.worker_process.start()
        if self.pictures is not None:
            self.pictures.start()
        loop = asyncio.get_running_loop()
        handler = InboundHandler(self.db, self.addresses, on_stored=self._wake_worker, read=read_ahead)
        factory = make_smtp_factory(handler, self.config.smtp.max_message_bytes,
                                    hostname=self.config.domain)
        self._server = await _listening("the SMTP listener", "[smtp] port", self.config.smtp.host,
                                        self.config.smtp.port,
                                        loop.create_server(factory, host=self.config.smtp.host,
                                                           port=self.config.smtp.port))
        sock: socket.socket = self._server.sockets[0]
        self.port = sock.getsockname()[1]
        if self.web is not None:
            await _listening("the web listener", "[web] port", self.web.host, self.web.port, self.web.start())
        released = await asyncio.to_thread(self.deliverer.release_leases)
        if released:
            log.warning("re-sending %d mails a previous run had claimed but not confirmed", released)
        work = self.worker_process.supervise() if self.worker_process is not None else self._work_loop()
        self._tasks = [asyncio.create_task(work, name="pbem-worker"),
                       asyncio.create_task(self._deliver_loop(), name="pbem-delivery"),
                       asyncio.create_task(self._computer_loop(), name="pbem-computer")]
        self.alarm.start()
        self.alarm.wake_at(self.services.now())  # deadlines that passed while we were down, once
        freeze_startup_heap()
        log.info("pbem listening on %s:%d for %s", self.config.smtp.host, self.port,
                 self.addresses.public)

    async def _wait(self, event: asyncio.Event, timeout: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), timeout)
        event.clear()

    def loop_problems(self) -> list[str]:
        """The worker and delivery loops that are not going round (stopped, or stuck past LOOP_STALL_SECONDS)."""
        problems = []
        now = time.monotonic()
        for task in self._tasks:
            name = task.get_name().removeprefix("pbem-")
            if task.done():
                problems.append(f"the {name} loop has stopped")
            elif now - self._beats.get(name, now) > LOOP_STALL_SECONDS:
                problems.append(f"the {name} loop has not gone round for {now - self._beats[name]:.0f} s")
        if not self._tasks:
            problems.append("the worker and delivery loops are not running")
        return problems

    async def _work_loop(self) -> None:
        """The worker in this process (``worker_process = false``): a thread applies the mail."""
        assert self.worker is not None
        while not self._stopping.is_set():
            self._beats["worker"] = time.monotonic()
            try:
                worked = False
                while await asyncio.to_thread(self.worker.process_next, WORKER_BATCH):
                    worked = True
                    self._mail_queued()
                if worked:  # moves moved deadlines: re-arm the alarm; the computer may owe a move
                    waiting, next_event = await asyncio.to_thread(self._after_round)
                    if waiting:
                        self._computer_event.set()
                    self.alarm.wake_at(next_event)
            except Exception:
                log.exception("worker round failed; retrying")
            await self._wait(self._inbox_event, POLL_SECONDS)

    def _after_round(self) -> tuple[bool, datetime | None]:
        """Whether the computer has work waiting, and the next sweep event (one hand-over to a thread for both)."""
        return computer_work_waiting(self.db), self.sweeper.next_event()

    async def _sweep(self) -> None:
        """Reminders, late notices, losses on time, vacation ends; then arm the next wake-up."""
        if self._stopping.is_set():
            return
        try:
            if not await asyncio.to_thread(self.leadership.hold):
                return  # another instance runs the scheduler; we take over if it dies
            if await asyncio.to_thread(self.sweeper.sweep):
                self._mail_queued()
                self._wake_worker()  # the worker writes the mails of the notices the sweep left
            self.alarm.wake_at(await asyncio.to_thread(self.sweeper.next_event))
        except Exception:
            log.exception("sweep failed; the next one retries")

    async def _deliver_loop(self) -> None:
        while not self._stopping.is_set():
            self._beats["delivery"] = time.monotonic()
            wait = POLL_SECONDS
            try:
                while await asyncio.to_thread(self.deliverer.deliver_due, DELIVERY_SECONDS):
                    pass
                due = await asyncio.to_thread(self.deliverer.next_due_in)
                if due is not None:
                    wait = min(wait, max(due, 0.05))
            except Exception:
                log.exception("delivery failed; retrying")
            await self._wait(self._outbox_event, wait)

    async def _computer_loop(self) -> None:
        """Start the computer's turns as they fall due (its searches run in worker processes)."""
        while not self._stopping.is_set():
            self._beats["computer"] = time.monotonic()
            try:
                await self.computer.start_due()
            except Exception:
                log.exception("computer round failed; retrying")
            await self._wait(self._computer_event, POLL_SECONDS)

    async def stop(self) -> None:
        """Stop accepting, let the current rounds finish, close everything. Nothing stored is lost."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        if self.web is not None:
            await self.web.stop()
        self._stopping.set()
        self.deliverer.finish_soon()  # a delivery call may otherwise go on claiming for DELIVERY_SECONDS
        self.alarm.shutdown()
        self._inbox_event.set()
        self._outbox_event.set()
        self._computer_event.set()
        if self.worker_process is not None:
            await self.worker_process.stop()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await self.computer.stop()  # a search under way is dropped: its game is still due at the next start
        await asyncio.to_thread(self.deliverer.close)  # QUIT may wait on a relay served by this very loop
        if self.pictures is not None:
            await asyncio.to_thread(self.pictures.close)
        await asyncio.to_thread(self.leadership.release)
        self.db.dispose()
        if self._instance is not None:
            self._instance.release()

    async def run_forever(self) -> None:
        await self.start()
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        asked: list[str] = []

        def stop_asked(sig: signal.Signals) -> None:
            asked.append(sig.name)
            done.set()

        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop_asked, sig)
        what = "web pages" if self.config.web.enabled else "/healthz and /metrics"
        web = f", {what} on http://{self.web.host}:{self.web.port}/" if self.web is not None else ""
        print(f"pbem serving {self.addresses.public} on {self.config.smtp.host}:{self.port}{web} "
              f"(database {self.db.url}); Ctrl-C stops", flush=True)
        await done.wait()
        started = time.monotonic()
        log.info("%s: stopping; no new mail is taken, the work under way finishes", asked[0] if asked else "stop")
        await self.stop()
        log.info("stopped in %.1f s", time.monotonic() - started)


async def _listening(what: str, setting: str, host: str, port: int, binding: Coroutine[Any, Any, _T]) -> _T:
    """What ``binding`` (a listener's start) returns, or StartError saying which address could not be taken."""
    try:
        return await binding
    except OSError as error:
        # asyncio's own text repeats the address; the system's words for the error number do not.
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise StartError(f"{what} cannot listen on {host}:{port}: {reason} (another server on that port? "
                         f"{setting} in the configuration)") from None
