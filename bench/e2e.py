"""End-to-end throughput: a bare aiosmtpd server, a do-nothing relay and `pbem serve` (SQLite) under one SMTP load.

The relay (the "floor" server) takes a mail and sends it on twice, the mail traffic of one move with
no work in between; its CPU use and the bench's per move give the most moves/s any server can reach
on this machine with this load. The floor is measured before pbem's maximum and again after it (at its
best load), and pbem is compared with the mean of the two: the VM's speed drifts within minutes.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import multiprocessing
import os
import platform
import queue
import quopri
import random
import re
import shutil
import signal
import smtplib
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.header import decode_header, make_header
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.utils import format_datetime, make_msgid
from functools import cached_property
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, NamedTuple

from aiosmtpd.smtp import SMTP, Envelope, Session

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))  # this checkout's pbem (the sink's protocol class), not an installed one
DOMAIN = "pbem.localhost"
PUBLIC = f"pbem@{DOMAIN}"
PLAYER_DOMAIN = "players.example"
VARIANT = "hyperspace"
MAX_MESSAGE_BYTES = 1048576
#: pbem's moves/s against the do-nothing relay's (the floor server's) in the same run (issue 19).
TARGET_SHARE_OF_FLOOR = 0.35
TARGET_P99_MS = 250.0
#: The least gain in moves/s for which the maximum is sought at a load twice as heavy.
RISE = 0.05
#: Relay connections of the floor server: enough that its forwarding never waits on a single connection.
RELAY_SENDERS = 4
#: The name pbem's picture process goes by in /proc (pbem.picture_process), for its share of pbem's CPU.
PICTURE_PROCESS = "pbem-pictures"

_HEADER_PARSER = BytesHeaderParser(policy=compat32)

#: Set when a task failed or the run was interrupted: every wait and loop gives up promptly.
ABORT = threading.Event()


class BenchError(RuntimeError):
    """The benchmark could not go on; the message says which game, move or process."""


# -- the relay sink: every mail pbem sends ends here, stamped on arrival ---------------------------


@dataclass
class Mail:
    """One mail the sink accepted for one recipient; parsed only when somebody looks."""

    raw: bytes
    arrived: float  # time.monotonic() when the sink had the whole message

    # Parsed cheaply (headers with compat32, the text part found and decoded by hand, plain_text): the bench
    # shares the machine with the servers, and email.policy.default cost 2 ms of it per game mail.
    @cached_property
    def _split(self) -> tuple[Message, bytes]:
        return head_and_body(self.raw)

    @cached_property
    def headers(self) -> Message:
        return self._split[0]

    @cached_property
    def body(self) -> str:
        return _text_of(*self._split)

    def header(self, name: str) -> str:
        value = self.headers.get(name, "")
        text = " ".join(str(value).split())
        return str(make_header(decode_header(text))) if "=?" in text else text


def plain_text(raw: bytes) -> str:
    """The first text/plain part of a mail, decoded, as ``get_body(("plain",)).get_content()`` reads it (lines
    ending in a bare newline; "" when there is none), found by walking the MIME boundaries instead of
    parsing every part: a game mail's picture and HTML part are nine tenths of its bytes, and the bench's
    reading them took CPU from the servers it measures on the same cores (tests/test_bench.py compares
    the two readings)."""
    return _text_of(*head_and_body(raw))


def _text_of(headers: Message, payload: bytes) -> str:
    """:func:`plain_text` of a mail already split into its header fields and the rest."""
    if headers.get_content_maintype() == "multipart":
        boundary = headers.get_boundary()
        if not boundary:
            return ""
        parts = _mime_parts(payload, boundary.encode("ascii", "replace"))
        for part in parts:
            if text := plain_text(part):
                return text
        return ""
    if headers.get_content_type() != "text/plain" or headers.get_content_disposition() == "attachment":
        return ""
    encoding = str(headers.get("Content-Transfer-Encoding", "")).strip().lower()
    if encoding == "quoted-printable":
        payload = quopri.decodestring(payload)
    elif encoding == "base64":
        payload = base64.b64decode(payload)
    charset = headers.get_content_charset() or "utf-8"
    return payload.decode(charset, "replace").replace("\r\n", "\n")


def head_and_body(raw: bytes) -> tuple[Message, bytes]:
    """A mail's header fields, parsed from its head alone, and the bytes after the blank line: given a whole game
    mail, the header parser splits its 500 lines of picture into a payload nobody reads (a fifth of the bench's
    own CPU at pbem's maximum)."""
    split = _HEAD_END.search(raw)
    head, payload = (raw[:split.start()], raw[split.end():]) if split else (raw, b"")
    return read_head(head), payload


def read_head(head: bytes) -> Message:
    """The header fields of a head (its lines, without the blank line after them), as the email package's
    compat32 header parser reads them. A head of plain CRLF lines, each a field or a folded continuation, is
    split here; any other goes to that parser. Its feed parser took a quarter of the bench's CPU at pbem's
    maximum, five heads a move, on the cores pbem runs on."""
    text = head.decode("ascii", "surrogateescape")
    lines = text.split("\r\n")
    other_breaks = text.replace("\r\n", "")  # a bare CR or LF: the parser's readline splits there too
    if "\r" in other_breaks or "\n" in other_breaks or not _FIELD.match(lines[0]):
        return _HEADER_PARSER.parsebytes(head + b"\r\n\r\n")
    fields: list[tuple[str, str]] = []  # as compat32.header_source_parse makes them, folds kept
    for line in lines:
        if line[:1] in (" ", "\t"):
            name, value = fields[-1]
            fields[-1] = (name, f"{value}\r\n{line}")
        elif _FIELD.match(line):
            name, _, value = line.partition(":")
            fields.append((name, value.lstrip(" \t")))
        else:
            return _HEADER_PARSER.parsebytes(head + b"\r\n\r\n")
    message = Message()
    for name, value in fields:
        message.set_raw(name, value.rstrip("\r\n"))
    return message


def _mime_parts(payload: bytes, boundary: bytes) -> list[bytes]:
    """A multipart body's parts (RFC 2046 5.1.1): what lies between its delimiter lines, each without the line
    break that belongs to the delimiter after it; found with bytes.find (a regular expression tried at
    every byte of a picture's base64 lines was most of the cost)."""
    marker = b"--" + boundary
    parts: list[bytes] = []
    start: int | None = None  # where the part after the last delimiter line begins
    position = 0
    while (at := payload.find(marker, position)) != -1:
        position = at + len(marker)
        if at and payload[at - 1] != 0x0A:
            continue  # not at the start of a line
        line_end = payload.find(b"\n", position)
        line_end = len(payload) if line_end == -1 else line_end
        tail = payload[position:line_end].rstrip(b"\r")
        closing = tail.startswith(b"--")
        if tail[2 if closing else 0:].strip(b" \t"):
            continue  # a longer word that begins with the boundary
        if start is not None:
            cut = at - 1 if at else 0
            parts.append(payload[start:cut - 1 if cut and payload[cut - 1] == 0x0D else cut])
        if closing:
            break  # the epilogue follows
        start = line_end + 1
    return parts


_HEAD_END = re.compile(rb"\r?\n\r?\n")
#: A field's first line as the feed parser takes it: a name of printable characters, then a colon (an mbox's
#: "From " line, which it reads apart, has a space before any colon).
_FIELD = re.compile(r"[\041-\071\073-\176]+:")


class Mailbox:
    """Mails per recipient, with a condition per recipient so a waiter wakes only for its own mail."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._mails: dict[str, list[Mail]] = defaultdict(list)
        self._conditions: dict[str, threading.Condition] = {}
        self.total = 0

    def _condition(self, address: str) -> threading.Condition:
        condition = self._conditions.get(address)
        if condition is None:
            condition = self._conditions[address] = threading.Condition(self._lock)
        return condition

    def deliver(self, address: str, raw: bytes, arrived: float) -> None:
        address = address.lower()
        with self._lock:
            self._mails[address].append(Mail(raw, arrived))
            self.total += 1
            self._condition(address).notify_all()

    def wait(self, address: str, start: int, timeout: float, health: Callable[[], None]) -> list[Mail]:
        """The mails of ``address`` from index ``start`` on, once there is at least one; [] on timeout."""
        address = address.lower()
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                mails = self._mails[address]
                if len(mails) > start:
                    return mails[start:]
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return []
                self._condition(address).wait(min(remaining, 0.5))
            health()
            if ABORT.is_set():
                return []


class SinkHandler:
    """The sink process's aiosmtpd handler: stamps each mail and queues it for the bench; no parsing here,
    so the relay's 250 comes at once.

    The mail goes to the bench from a thread of its own (:func:`pass_on`), never from the handler: a
    mail of pbem's (a picture, some 40 KB) fills the pipe, and a send from here then waited for the
    bench's reader thread, which waits for the bench's interpreter lock behind its client threads. The
    sink's answers stalled with it (1.7 ms a mail on a quiet bench, 17.6 ms with four busy threads in
    it), so the bench measured its own pipe, not pbem. The floor server's small mails never filled it.
    """

    def __init__(self, outgoing: queue.SimpleQueue[tuple[list[str], bytes, float]]) -> None:
        self.outgoing = outgoing

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        arrived = time.monotonic()  # CLOCK_MONOTONIC: the same clock in every process of the machine
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        self.outgoing.put((list(envelope.rcpt_tos), raw, arrived))
        return "250 2.0.0 OK"


def pass_on(outgoing: queue.SimpleQueue[tuple[list[str], bytes, float]], to_bench: Connection) -> None:
    """The sink's thread that hands each accepted mail to the bench, in the order they were accepted."""
    with contextlib.suppress(EOFError, OSError):  # the bench is gone
        while True:
            to_bench.send(outgoing.get())


class NullHandler:
    """The bare server's handler: accept every mail and forget it."""

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        return "250 OK"


def smtp_factory(handler: object, hostname: str, blocks: bool = False) -> Callable[[], SMTP]:
    """The same SMTP settings pbem's listener uses, so the bare server does the same protocol work; ``blocks``:
    with pbem's listener's protocol class, which reads DATA in blocks and a plain path itself (the sink's)."""
    if blocks:
        from pbem.mail.smtpd import PbemSMTP

        return lambda: PbemSMTP(handler, data_size_limit=MAX_MESSAGE_BYTES, hostname=hostname, enable_SMTPUTF8=True)
    return lambda: SMTP(handler, data_size_limit=MAX_MESSAGE_BYTES, hostname=hostname, enable_SMTPUTF8=True)


class Sink:
    """The relay sink on 127.0.0.1, in a process of its own, as a real relay is: its SMTP answers must not
    wait for the bench's client threads (in the bench's process they waited on its interpreter lock, which
    slowed the one connection pbem delivers over far more than the floor server's four). Each mail comes
    back to the bench over a pipe, into its mailbox.

    It reads a mail's DATA in blocks and offers PIPELINING, as Postfix's smtpd (the relay pbem is run behind) and
    pbem's own listener do (``lines=False``, the default), or line by line without PIPELINING as aiosmtpd's own
    protocol class does (``lines=True``, the bench's ``--line-sink``). Read a line at a time, a game mail's
    picture, some 500 lines of base64, cost the sink about 1 ms of Python a move, more than pbem's picture process
    spends drawing it: a cost of this stand-in relay, which Postfix would not have, charged to the server whose
    mails are bigger. Both ways the sink hands the bench the same bytes (tests/test_bench.py).
    """

    def __init__(self, lines: bool = False) -> None:
        self.mailbox = Mailbox()
        context = multiprocessing.get_context("fork")  # made before the bench starts any thread
        self._mails, sending = context.Pipe(duplex=False)
        ready, announcing = context.Pipe(duplex=False)
        self._process = context.Process(target=serve_sink, args=(sending, announcing, lines), name="sink",
                                        daemon=True)
        self._process.start()
        sending.close()
        announcing.close()
        if not ready.poll(30):
            raise BenchError("the relay sink did not start within 30 s")
        self.port: int = ready.recv()
        ready.close()
        self._reader = threading.Thread(target=self._read, name="sink-reader", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        """The sink process's id (its CPU is the bench's too: see cpu_use)."""
        return self._process.pid or 0

    def _read(self) -> None:
        with contextlib.suppress(EOFError, OSError):
            while True:
                recipients, raw, arrived = self._mails.recv()
                for recipient in recipients:
                    self.mailbox.deliver(recipient, raw, arrived)

    def close(self) -> None:
        self._process.terminate()
        self._process.join(timeout=5)
        self._reader.join(timeout=5)
        self._mails.close()


def serve_sink(to_bench: Connection, announce: Connection, lines: bool = False) -> None:
    """The sink process: an aiosmtpd server on a free port (announced once listening) until terminated; its DATA
    read in blocks (pbem's listener's protocol class, pbem.mail.smtpd.PbemSMTP) or, ``lines``, line by line."""
    # Forked from the bench, whose SIGTERM handler raises KeyboardInterrupt: terminated, the sink would print
    # that traceback into the bench's report. It has nothing to clean up; the default action ends it quietly.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    outgoing: queue.SimpleQueue[tuple[list[str], bytes, float]] = queue.SimpleQueue()
    threading.Thread(target=pass_on, args=(outgoing, to_bench), name="pass-on", daemon=True).start()

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(smtp_factory(SinkHandler(outgoing), "sink.localhost", blocks=not lines),
                                          host="127.0.0.1", port=0)
        announce.send(server.sockets[0].getsockname()[1])
        announce.close()
        await asyncio.Event().wait()

    asyncio.run(main())


def serve_until_stopped(handler: object, port: int) -> None:
    """Run an aiosmtpd server with ``handler`` on 127.0.0.1:``port`` in this process until SIGTERM."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(smtp_factory(handler, DOMAIN), host="127.0.0.1", port=port)
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        await stop.wait()
        server.close()

    asyncio.run(main())


def serve_bare(port: int) -> None:
    """The bare null-handler server (the bench's `--serve-bare`)."""
    serve_until_stopped(NullHandler(), port)


class RelayHandler:
    """The floor server's handler: accept, then hand the mail to the senders that forward it twice."""

    def __init__(self, outgoing: queue.SimpleQueue[tuple[str, bytes]]) -> None:
        self.outgoing = outgoing

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        self.outgoing.put((str(envelope.mail_from), raw if isinstance(raw, bytes) else raw.encode()))
        return "250 OK"


def forward_forever(outgoing: queue.SimpleQueue[tuple[str, bytes]], sink_port: int, pad: bytes = b"") -> None:
    """One sender thread of the floor server: each mail goes back to its sender twice, as two transactions.

    That is the mail traffic of a move (the mover's reply and the opponent's notice) with no work
    in between: no parsing, no storage, no rules, no composing. ``pad``: lines added to the second copy,
    which then weighs what pbem's notice with its picture does (``--floor-pad-bytes``).
    """
    relay = smtplib.SMTP("127.0.0.1", sink_port, timeout=30)
    while True:
        sender, raw = outgoing.get()
        relay.sendmail(PUBLIC, [sender], raw)
        relay.sendmail(PUBLIC, [sender], raw + pad if pad else raw)


def padding(size: int) -> bytes:
    """About ``size`` bytes of base64 lines (76 characters and CRLF, as a picture's are), after a blank line."""
    from pbem.mail.compose import base64_line_bytes  # the lines pbem writes a picture in

    if size <= 0:
        return b""
    return b"\r\n" + base64_line_bytes(random.Random(size).randbytes(max(1, size * 3 // 4)))


def serve_relay(port: int, sink_port: int, pad_bytes: int = 0) -> None:
    """The floor server: one mail in, two out, nothing else (the bench's `--serve-relay`)."""
    outgoing: queue.SimpleQueue[tuple[str, bytes]] = queue.SimpleQueue()
    pad = padding(pad_bytes)
    for number in range(RELAY_SENDERS):
        threading.Thread(target=forward_forever, args=(outgoing, sink_port, pad), name=f"sender-{number}",
                         daemon=True).start()
    serve_until_stopped(RelayHandler(outgoing), port)


# -- server subprocesses ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ServerProcess:
    """A server subprocess with its output in files; ``check`` raises with its stderr tail if it died."""

    def __init__(self, name: str, argv: list[str], port: int, workdir: Path, env: dict[str, str]) -> None:
        self.name = name
        self.port = port
        self.stdout_path = workdir / f"{name}.stdout"
        self.stderr_path = workdir / f"{name}.stderr"
        with self.stdout_path.open("wb") as out, self.stderr_path.open("wb") as err:
            # A session of its own: Ctrl-C reaches only the bench, which then stops the server itself.
            self.proc = subprocess.Popen(argv, cwd=workdir, env=env, stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

    def stderr_tail(self, lines: int = 30) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return "(no stderr)"
        return "\n".join(text.splitlines()[-lines:])

    def check(self) -> None:
        code = self.proc.poll()
        if code is not None:
            raise BenchError(f"{self.name} exited with status {code}; its stderr ends with:\n{self.stderr_tail()}")

    def wait_listening(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            self.check()
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            if time.monotonic() > deadline:
                raise BenchError(f"{self.name} does not listen on 127.0.0.1:{self.port} after {timeout:.0f} s; "
                                 f"stderr:\n{self.stderr_tail()}")
            time.sleep(0.05)

    def stop(self, timeout: float = 15.0) -> None:
        if self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)

    def log_size(self) -> int:
        with contextlib.suppress(OSError):
            return self.stderr_path.stat().st_size
        return 0

    def worker_times(self, since: int) -> list[float]:
        """The milliseconds the worker spent on each mail it logged after byte ``since`` of the log (its
        "processed in" lines: from the mail's parse to its last reply queued, the commit not included)."""
        with contextlib.suppress(OSError), self.stderr_path.open("rb") as log:
            log.seek(since)
            return [float(found.group(1)) for line in log.read().decode(errors="replace").splitlines()
                    if (found := _PROCESSED.search(line))]
        return []

    def error_lines(self) -> list[str]:
        with contextlib.suppress(OSError):
            text = self.stderr_path.read_text(errors="replace")
            return [line for line in text.splitlines() if " ERROR " in line or line.startswith("Traceback")]
        return []


_PROCESSED = re.compile(r" processed in ([0-9.]+) ms")
_LOGGED = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) INFO pbem\.\S+: "
                     r"(?:received (<[^>\s]*>) from|inbox \d+ (<[^>\s]*>) processed in ([0-9.]+) ms)")
#: time.time() - time.monotonic(): the log's clock against the bench's.
WALL_OFFSET = time.time() - time.monotonic()


def latency_stages(log_path: Path, since: int, games: list[Game]) -> dict[str, float]:
    """Where a move's time went, median milliseconds per stage, from the bench's own clock and pbem's
    log (its "received" line, stamped once the mail is committed, and the worker's "processed in" line,
    stamped when its replies are queued, before the commit): the SMTP submission, the wait in the inbox,
    the worker's work, and the way out (the worker's commit, the deliverer's round, the relay)."""
    received: dict[str, float] = {}
    processed: dict[str, tuple[float, float]] = {}
    with contextlib.suppress(OSError), log_path.open("rb") as log:
        log.seek(since)
        for line in log.read().decode(errors="replace").splitlines():
            if not (found := _LOGGED.match(line)):
                continue
            stamp = datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp() - WALL_OFFSET
            if found.group(2):
                received[found.group(2)] = stamp
            else:
                processed[found.group(3)] = (stamp, float(found.group(4)) / 1000)
    stages: dict[str, list[float]] = defaultdict(list)
    for game in games:
        for message_id, began, sent, arrived in game.traces:
            if message_id not in received or message_id not in processed:
                continue
            done, took = processed[message_id]
            stages["submit"].append(sent - began)
            stages["inbox"].append(max(done - took - received[message_id], 0.0))
            stages["worker"].append(took)
            stages["out"].append(arrived - done)
    return {f"{name}_ms": 1000 * sorted(values)[len(values) // 2] for name, values in stages.items()}


def stages_line(phase: dict[str, Any]) -> str:
    if "inbox_ms" not in phase:
        return ""
    return (f"\n  a move's time at maximum        submit {phase['submit_ms']:.1f} ms, in the inbox "
            f"{phase['inbox_ms']:.1f} ms, worker {phase['worker_ms']:.1f} ms, out {phase['out_ms']:.1f} ms (medians)")


def clean_environment() -> dict[str, str]:
    """The bench's environment without PBEM_* overrides, with this checkout importable."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PBEM_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH", "")]))
    return env


def worker_setting(worker_process: bool | None) -> str:
    """The [server] line that chooses where the mail worker runs; none for pbem's default (a process of its own)."""
    return "" if worker_process is None else f"worker_process = {str(worker_process).lower()}\n"


def add_worker_options(parser: argparse.ArgumentParser) -> None:
    """--worker-process and --worker-thread, into ``worker_process``: True, False, or None for pbem's default."""
    worker = parser.add_mutually_exclusive_group()
    worker.add_argument("--worker-process", dest="worker_process", action="store_true", default=None,
                        help="pbem serve with [server] worker_process = true (the mail worker in a process of its "
                             "own; pbem's default, which the bench uses when neither option is given)")
    worker.add_argument("--worker-thread", dest="worker_process", action="store_false", default=None,
                        help="pbem serve with [server] worker_process = false (the mail worker a thread of the "
                             "server's process)")


def write_pbem_config(workdir: Path, port: int, sink_port: int, worker_process: bool | None = None,
                      url: str = "", extra: str = "") -> Path:
    """pbem serve's configuration for the bench; ``extra``: TOML lines added at its end (bench/pbem_max.py)."""
    path = workdir / "pbem.toml"
    default_url = f"sqlite:///{workdir / 'pbem.sqlite3'}"
    path.write_text(
        f'[server]\ndomain = "{DOMAIN}"\nsecret_key = "bench-{uuid.uuid4().hex}"\n'
        f"{worker_setting(worker_process)}\n"
        f'[smtp]\nhost = "127.0.0.1"\nport = {port}\nmax_message_bytes = {MAX_MESSAGE_BYTES}\n\n'
        f'[outbound]\nsmtp_host = "127.0.0.1"\nsmtp_port = {sink_port}\nmaildir = "{workdir / "outbox"}"\n\n'
        f'[database]\nurl = "{url or default_url}"\n\n'
        f"[games]\ndays_per_move = 7\n\n"
        "[web]\nport = 0\n"  # any free port: the default, 8025, may be a pbem serve's on this machine
        + (f"\n{extra}\n" if extra else ""),
        encoding="utf-8",
    )
    return path


def start_pbem(workdir: Path, sink_port: int, worker_process: bool | None = None, url: str = "",
               extra: str = "") -> ServerProcess:
    port = free_port()
    config = write_pbem_config(workdir, port, sink_port, worker_process, url, extra)
    argv = [sys.executable, "-m", "pbem", "serve", "--config", str(config)]
    if os.environ.get("BENCH_CPROFILE"):  # deterministic profile of the whole server run, written at its exit
        argv[1:1] = ["-m", "cProfile", "-o", os.environ["BENCH_CPROFILE"]]
    server = ServerProcess("pbem", argv, port, workdir, clean_environment())
    server.wait_listening()
    return server


def start_relay(workdir: Path, sink_port: int, pad_bytes: int = 0) -> ServerProcess:
    port = free_port()
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-relay", str(port), "--sink-port", str(sink_port),
            "--pad-bytes", str(pad_bytes)]
    server = ServerProcess("relay-padded" if pad_bytes else "relay", argv, port, workdir, clean_environment())
    server.wait_listening()
    return server


def start_bare(workdir: Path) -> ServerProcess:
    port = free_port()
    argv = [sys.executable, str(Path(__file__).resolve()), "--serve-bare", str(port)]
    server = ServerProcess("bare", argv, port, workdir, clean_environment())
    server.wait_listening()
    return server


# -- players and their mail --------------------------------------------------------------------------


class Client:
    """One SMTP connection, kept open (as a relaying MTA does) unless ``fresh``; one message per transaction."""

    #: Open a new connection for every message (the tests' shape) instead of keeping one open.
    fresh = False

    def __init__(self, port: int) -> None:
        self.port = port
        self._smtp: smtplib.SMTP | None = None

    def send(self, sender: str, recipient: str, raw: bytes) -> None:
        for attempt in (1, 2):
            if self._smtp is None:
                self._smtp = smtplib.SMTP("127.0.0.1", self.port, timeout=30)
            try:
                self._smtp.sendmail(sender, [recipient], raw)
                if self.fresh:
                    self.close()
                return
            except smtplib.SMTPServerDisconnected:
                self._smtp = None  # an idle connection the server dropped: reconnect once
                if attempt == 2:
                    raise

    def close(self) -> None:
        if self._smtp is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self._smtp.quit()
            self._smtp = None


def compose(headers: dict[str, str], body: str) -> bytes:
    """A plain-text UTF-8 mail as a mail client puts it on the wire (written out by hand: it is cheap)."""
    text = "\r\n".join(body.splitlines())
    lines = [f"{name}: {value}" for name, value in headers.items()]
    lines += ["MIME-Version: 1.0", 'Content-Type: text/plain; charset="utf-8"',
              f"Content-Transfer-Encoding: {'7bit' if text.isascii() else '8bit'}"]
    return ("\r\n".join(lines) + "\r\n\r\n" + text + "\r\n").encode("utf-8")


def new_headers(sender: str, to: str, subject: str) -> dict[str, str]:
    return {"From": sender, "To": to, "Subject": subject, "Date": format_datetime(datetime.now(UTC)),
            "Message-ID": make_msgid(domain=PLAYER_DOMAIN)}


def reply_message(sender: str, original: Mail, body: str) -> tuple[dict[str, str], bytes]:
    """A reply as a mail client writes it: to the Reply-To, threaded, the original quoted below."""
    subject = original.header("Subject")
    headers = new_headers(sender, original.header("Reply-To") or PUBLIC,
                          subject if subject.lower().startswith("re:") else f"Re: {subject}")
    parent = original.header("Message-ID")
    headers["In-Reply-To"] = parent
    headers["References"] = " ".join(filter(None, [original.header("References"), parent]))
    quoted = "\n".join(f"> {line}" for line in original.body.splitlines())
    return headers, compose(headers, f"{body}\n\nOn {original.header('Date')}, pbem <{PUBLIC}> wrote:\n{quoted}\n")


class Player:
    """A mailbox at players.example: reads its mails in order and replies to them."""

    def __init__(self, handle: str, sink: Sink, health: Callable[[], None], timeout: float) -> None:
        self.handle = handle
        self.address = f"{handle}@{PLAYER_DOMAIN}"
        self.sink = sink
        self.health = health
        self.timeout = timeout
        self.seen = 0

    def next_mail(self, where: Callable[[Mail], bool], what: str) -> Mail:
        """The next unread mail matching ``where``; mails before it are passed over."""
        deadline = time.monotonic() + self.timeout
        while True:
            remaining = deadline - time.monotonic()
            mails = self.sink.mailbox.wait(self.address, self.seen, max(remaining, 0.0), self.health)
            if not mails:
                raise BenchError(f"{what}: no such mail to {self.address} within {self.timeout:.0f} s")
            if ABORT.is_set():
                raise BenchError(f"{what}: aborted")
            for mail in mails:
                self.seen += 1
                if where(mail):
                    return mail

    def _submit(self, client: Client, to: str, raw: bytes, what: str) -> None:
        try:
            client.send(self.address, to, raw)
        except (OSError, smtplib.SMTPException) as error:
            self.health()  # a dead server explains itself better than its refused connection
            raise BenchError(f"{what or self.handle}: sending to {to} failed: {error!r}") from error

    def send(self, client: Client, to: str, body: str, subject: str = "hello", what: str = "") -> str:
        headers = new_headers(self.address, to, subject)
        self._submit(client, to, compose(headers, body), what)
        return headers["Message-ID"]

    def reply(self, client: Client, original: Mail, body: str, what: str = "") -> tuple[str, float]:
        """Send the reply; returns its Message-ID and the moment the server's 250 after DATA came back."""
        headers, raw = reply_message(self.address, original, body)
        self._submit(client, headers["To"], raw, what)
        return headers["Message-ID"], time.monotonic()


def answering(message_id: str) -> Callable[[Mail], bool]:
    return lambda mail: mail.header("In-Reply-To") == message_id


# -- games ------------------------------------------------------------------------------------------


class Planned(NamedTuple):
    """A move planned for a game: who plays it, its move number and its text."""

    seat: str
    number: int
    text: str


@dataclass
class Game:
    """One game between two bench players, with the engine's view of it kept in step with pbem."""

    index: int
    white: Player
    black: Player
    client: Client
    engine: Any
    rng: random.Random
    state: Any = None
    number: int = 0  # pbem's game number
    last: dict[str, Mail] = field(default_factory=dict)  # the latest game mail of each player
    latencies: list[float] = field(default_factory=list)
    #: Per move: its Message-ID, when its SMTP submission began, when the 250 came, when the opponent's
    #: mail reached the sink (time.monotonic()); the log says what happened in between (latency_stages).
    traces: list[tuple[str, float, float, float]] = field(default_factory=list)
    moves: int = 0  # in the current phase
    over: bool = False
    script: list[Planned] = field(default_factory=list)  # the moves it will play (plan)
    played: int = 0  # of them, in every phase so far: a game may play in more than one (bench/scale.py)

    def name(self) -> str:
        return f"game {self.index} (pbem #{self.number})"


def register(player: Player, client: Client) -> Mail:
    player.send(client, PUBLIC, f"register {player.handle}")
    return player.next_mail(lambda m: "Welcome to pbem" in m.body or "You are registered" in m.body,
                            f"welcome mail of {player.handle}")


def set_up(game: Game) -> None:
    """Register both players, challenge, accept, and keep each player's opening mail."""
    white, black = game.white, game.black
    welcome_white = register(white, game.client)
    register(black, game.client)
    white.reply(game.client, welcome_white, f"challenge {black.handle} {VARIANT} white")
    challenge = black.next_mail(lambda m: "challenges you" in m.header("Subject"),
                                f"{game.name()}: challenge mail to {black.handle}")
    number = re.search(r"accept (\d+)", challenge.body)
    if number is None:
        raise BenchError(f"{game.name()}: challenge mail without 'accept N':\n{challenge.body}")
    black.reply(game.client, challenge, f"accept {number.group(1)}")
    for player in (white, black):
        opening = player.next_mail(
            lambda m: m.header("Subject").startswith("[pbem #") and "has started" in m.body,
            f"{game.name()}: opening mail to {player.handle}")
        game.last[player.handle] = opening
    number_in_subject = re.match(r"\[pbem #(\d+)\]", game.last[white.handle].header("Subject"))
    game.number = int(number_in_subject.group(1)) if number_in_subject else 0
    game.state = game.engine.setup()


def choose_move(game: Game, state: Any = None) -> tuple[Any, str] | None:
    """A random legal board move in ``state`` (the game's start by default; phase-outs skipped: they need a
    secret), or None when the game is over there."""
    engine = game.engine
    state = game.state if state is None else state
    if engine.outcome(state) is not None:
        return None
    moves = sorted(((engine.describe(state, action), action) for action in engine.legal_actions(state)),
                   key=lambda pair: pair[0])
    board_moves = [(text, action) for text, action in moves if "@" not in text]
    if not board_moves:
        return None
    text, action = game.rng.choice(board_moves)
    return action, text


def plan(game: Game, plies: int) -> None:
    """The game's moves, chosen and played in the engine before any phase: at pbem's maximum, choosing them
    during the phase took a fifth of the bench's time a move, on the cores pbem runs on (the floor server's
    clients send one fixed move)."""
    state = game.state
    game.script.clear()
    game.played = 0
    for _ in range(plies):
        choice = choose_move(game, state)
        if choice is None:
            break
        action, text = choice
        game.script.append(Planned(str(game.engine.to_act(state)), game.engine.move_number(state), text))
        state = game.engine.apply(state, action).state


def play_one(game: Game) -> bool:
    """Play the game's next planned move through pbem and record its latency; False when the game has ended."""
    if game.played >= len(game.script):
        game.over = True
        return False
    seat, move_number, text = game.script[game.played]
    mover, opponent = (game.white, game.black) if seat == "white" else (game.black, game.white)
    what = f"{game.name()}, move {move_number} ({seat} {text})"
    began = time.monotonic()
    message_id, sent = mover.reply(game.client, game.last[mover.handle], text, what)
    answer = mover.next_mail(answering(message_id), f"{what}: reply to {mover.handle}")
    if "Played" not in answer.body or "Not played" in answer.body:
        raise BenchError(f"{what}: pbem did not play it; its reply says:\n{answer.body}")
    label = f"{move_number}." if seat == "white" else f"{move_number}..."
    notice = opponent.next_mail(lambda m: f"{mover.handle} played {label} " in m.body,
                                f"{what}: notification to {opponent.handle}")
    game.latencies.append(notice.arrived - sent)
    game.traces.append((message_id, began, sent, notice.arrived))
    game.last[mover.handle], game.last[opponent.handle] = answer, notice
    game.moves += 1
    game.played += 1
    if "The game is over" in notice.body:
        game.over = True
    return not game.over


# -- the phases -------------------------------------------------------------------------------------


def run_parallel(tasks: list[Callable[[], None]]) -> None:
    """Run every task in its own thread; the first failure (or Ctrl-C) stops the others and is raised."""
    with ThreadPoolExecutor(max_workers=len(tasks)) as pool:
        futures: list[Future[None]] = [pool.submit(task) for task in tasks]
        try:
            done, _ = wait(futures, return_when=FIRST_EXCEPTION)
            for future in done:
                future.result()
        except BaseException:
            ABORT.set()
            raise


def bare_phase(server: ServerProcess, games: list[Game], messages_per_client: int, seconds: float) -> dict[str, Any]:
    """Each client sends move mails (a reply quoting a game mail) back to back to the null server."""
    counts = [0] * len(games)
    start = time.monotonic()
    deadline = start + seconds

    def client_task(index: int) -> None:
        game = games[index]
        client = Client(server.port)
        opening = game.last[game.white.handle]
        choice = choose_move(game)
        move = choice[1] if choice else "Pe2-e4"
        try:
            for _ in range(messages_per_client):
                if ABORT.is_set() or time.monotonic() > deadline:
                    return
                game.white.reply(client, opening, move, f"bare server, client {index + 1}")
                counts[index] += 1
        except BenchError:
            server.check()
            raise
        finally:
            client.close()

    run_parallel([lambda i=i: client_task(i) for i in range(len(games))])
    elapsed = time.monotonic() - start
    server.check()
    return {"messages": sum(counts), "seconds": elapsed, "rate": sum(counts) / elapsed}


def relay_phase(server: ServerProcess, games: list[Game], moves_per_game: int, seconds: float) -> dict[str, Any]:
    """Closed loop against the floor server: send a move mail, wait until both forwarded copies arrived."""
    start = time.monotonic()
    deadline = start + seconds
    latencies: list[float] = []
    finished: list[float] = []

    def client_task(game: Game) -> None:
        client = Client(server.port)
        player = game.white
        opening = game.last[player.handle]
        choice = choose_move(game)
        move = choice[1] if choice else "Pe2-e4"
        seen = len(player.sink.mailbox.wait(player.address, 0, 0.0, server.check))
        try:
            for _ in range(moves_per_game):
                if ABORT.is_set() or time.monotonic() > deadline:
                    break
                _, sent = player.reply(client, opening, move, f"floor server, client {game.index}")
                for _copy in (1, 2):
                    mails = player.sink.mailbox.wait(player.address, seen, player.timeout, server.check)
                    if not mails:
                        raise BenchError(f"floor server: no forwarded mail for {player.address}")
                    seen += 1
                latencies.append(mails[-1].arrived - sent)
        finally:
            client.close()
            finished.append(time.monotonic())

    run_parallel([lambda g=game: client_task(g) for game in games])
    server.check()
    elapsed = max(finished, default=time.monotonic()) - start
    latencies.sort()
    return {"moves": len(latencies), "seconds": elapsed, "rate": len(latencies) / elapsed if elapsed > 0 else 0.0,
            "p50_ms": percentile(latencies, 50) * 1000, "p99_ms": percentile(latencies, 99) * 1000}


def pbem_phase(games: list[Game], moves_per_game: int, seconds: float, rate: float | None) -> dict[str, Any]:
    """Every game plays up to ``moves_per_game`` moves at once: closed loop, or paced to ``rate`` moves/s."""
    start = time.monotonic()
    deadline = start + seconds
    interval = len(games) / rate if rate else 0.0  # per game, so that all games together offer ``rate``
    finished: list[float] = []

    def game_task(game: Game) -> None:
        due = start + game.rng.uniform(0, interval)
        for _ in range(moves_per_game):
            if interval:
                while (pause := due - time.monotonic()) > 0 and not ABORT.is_set():
                    time.sleep(min(pause, 0.5))
                due += interval  # open loop: the schedule does not slip when a move was slow
            if ABORT.is_set() or time.monotonic() > deadline or not play_one(game):
                break
        finished.append(time.monotonic())

    for game in games:
        game.latencies.clear()
        game.traces.clear()
        game.moves = 0
    run_parallel([lambda g=game: game_task(g) for game in games])
    elapsed = max(finished, default=time.monotonic()) - start
    latencies = sorted(latency for game in games for latency in game.latencies)
    moves = sum(game.moves for game in games)
    return {
        "moves": moves,
        "seconds": elapsed,
        "rate": moves / elapsed if elapsed > 0 else 0.0,
        "offered_rate": rate,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "max_ms": (latencies[-1] if latencies else 0.0) * 1000,
        "games_over": sum(game.over for game in games),
    }


def step_counts(games: int, steps: int) -> list[int]:
    """The loads at which a server's maximum is sought: ``games`` concurrent games (and SMTP clients), then
    twice and four times as many, up to ``steps`` loads. Each client waits for its answers before its next
    move, so a server whose answers take longer needs more clients to be kept busy: with too few, the bench
    measures its latency instead of its throughput."""
    return [games * 2 ** step for step in range(steps)]


def still_rising(steps: list[dict[str, Any]]) -> bool:
    """Whether the next, heavier load is worth trying: the last step gained at least 5% over the one before
    (the first is always followed by a second); below that the server is saturated."""
    return len(steps) < 2 or steps[-1]["rate"] >= steps[-2]["rate"] * (1 + RISE)


def best(steps: list[dict[str, Any]]) -> dict[str, Any]:
    """The step of the most moves/s: the server's maximum."""
    return max(steps, key=lambda step: float(step["rate"]))


def percentile(sorted_values: list[float], pct: float) -> float:
    """Nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not sorted_values:
        return 0.0
    rank = max(1, -(-len(sorted_values) * pct // 100))
    return sorted_values[int(rank) - 1]


def make_games(count: int, first: int, sink: Sink, pbem: ServerProcess, timeout: float, seed: int) -> list[Game]:
    from pbem.variants import get_variant

    games = []
    for index in range(first, first + count):
        white = Player(f"p{2 * index + 1}", sink, pbem.check, timeout)
        black = Player(f"p{2 * index + 2}", sink, pbem.check, timeout)
        games.append(Game(index=index + 1, white=white, black=black, client=Client(pbem.port),
                          engine=get_variant(VARIANT), rng=random.Random(seed * 1_000_003 + index)))
    return games


def set_up_all(games: list[Game]) -> None:
    run_parallel([lambda g=game: set_up(g) for game in games])


# -- the run ----------------------------------------------------------------------------------------


def _stat(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def process_tree(pid: int) -> list[int]:
    """``pid`` and every process below it (pbem's mail worker and its fork server; Linux /proc)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))):
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, waiting = [], [pid]
    while waiting:
        tree.append(current := waiting.pop())
        waiting.extend(parents.get(current, []))
    return tree


def process_cpu_seconds(pid: int, below: bool = True, named: str = "") -> float:
    """User + system CPU seconds of a process and (``below``) the processes below it, living ones (Linux
    /proc; 0 elsewhere); ``named``: only those of that name (pbem names its picture process "pbem-pictures")."""
    total = 0
    for member in process_tree(pid) if below else [pid]:
        if named and _name(member) != named:
            continue
        if fields := _stat(member):
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _name(pid: int) -> str:
    """A process's name as ps shows it (/proc/PID/comm)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


@contextlib.contextmanager
def cpu_use(server_pid: int, sink_pid: int = 0) -> Iterator[dict[str, float]]:
    """Fills the yielded dict with the server's, the bench's and (``sink_pid``) its relay sink's CPU use, in % of
    one core, over the block. The sink receives every mail the server sends: bigger mails cost it more."""
    figures: dict[str, float] = {}
    wall, server, own = time.monotonic(), process_cpu_seconds(server_pid), time.process_time()
    alone = process_cpu_seconds(server_pid, below=False)
    pictures = process_cpu_seconds(server_pid, named=PICTURE_PROCESS)
    sink = process_cpu_seconds(sink_pid, below=False) if sink_pid else 0.0
    yield figures
    wall = max(time.monotonic() - wall, 1e-9)
    figures["server_cpu_pct"] = 100 * (process_cpu_seconds(server_pid) - server) / wall
    # The server's own process and its picture process; the rest of server_cpu_pct is its mail worker process
    # (unless worker_process = false).
    figures["server_process_cpu_pct"] = 100 * (process_cpu_seconds(server_pid, below=False) - alone) / wall
    pictures = process_cpu_seconds(server_pid, named=PICTURE_PROCESS) - pictures
    figures["picture_process_cpu_pct"] = 100 * pictures / wall
    figures["bench_cpu_pct"] = 100 * (time.process_time() - own) / wall
    figures["sink_cpu_pct"] = 100 * (process_cpu_seconds(sink_pid, below=False) - sink) / wall if sink_pid else 0.0


def worker_share(times_ms: list[float], seconds: float) -> dict[str, float]:
    """How long the worker took per mail (median) and the share of the phase it spent on mails: near 100%,
    the one worker is what bounds the phase; well below, the mails wait elsewhere."""
    if not times_ms:
        return {}
    times_ms = sorted(times_ms)
    return {"worker_mails": len(times_ms), "worker_ms_p50": times_ms[len(times_ms) // 2],
            "worker_busy_pct": 100 * sum(times_ms) / 1000 / max(seconds, 1e-9)}


def worker_line(phase: dict[str, Any]) -> str:
    if "worker_mails" not in phase:
        return ""
    return (f"\n  worker at maximum               {phase['worker_ms_p50']:7.1f} ms a mail (median of "
            f"{phase['worker_mails']}), busy {phase['worker_busy_pct']:.0f}% of the phase")


def worker_cpu_pct(cpu: dict[str, float]) -> float:
    """pbem's mail worker process's share (what of pbem's CPU is neither its server process nor its pictures)."""
    return cpu["server_cpu_pct"] - cpu["server_process_cpu_pct"] - cpu.get("picture_process_cpu_pct", 0.0)


def split(cpu: dict[str, float]) -> str:
    """How pbem's CPU divides between its processes, when it has a worker process (and, when pbem names it,
    its picture process: a version of pbem before that counts its pictures under the worker)."""
    pictures = cpu.get("picture_process_cpu_pct", 0.0)
    worker = worker_cpu_pct(cpu)
    if worker < 1:
        return ""
    shown = f", pictures {pictures:.0f}%" if pictures >= 1 else ""
    return f" (server process {cpu['server_process_cpu_pct']:.0f}%, worker {worker:.0f}%{shown})"


@contextlib.contextmanager
def py_spy(pid: int, output: Path | None, gil: bool) -> Iterator[None]:
    """Sample the pbem process (all threads) with py-spy while the block runs, when asked to."""
    if output is None:
        yield
        return
    executable = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    # Wall clock: every thread, idle ones included (lock and I/O waits are what we look for).
    # GIL: only the thread holding it, which is where pbem's single core goes.
    # Non-blocking either way, so the sampling does not slow pbem down.
    mode = ["--gil"] if gil else ["--idle"]
    # --subprocesses: the worker process too (unless [server] worker_process = false).
    argv = [executable, "record", "--pid", str(pid), "--rate", "200", *mode, "--threads", "--subprocesses",
            "--nonblocking", "--format", "raw", "-o", str(output)]
    try:
        with output.with_suffix(".log").open("wb") as log:
            recorder = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
    except OSError as error:
        raise BenchError(f"cannot run py-spy ({error}); install it with 'pip install py-spy'") from error
    try:
        yield
    finally:
        recorder.send_signal(signal.SIGINT)
        try:
            recorder.wait(30)
        except subprocess.TimeoutExpired:
            recorder.kill()


def floor_maximum(relay: ServerProcess, sink: Sink, pool: list[Game], counts: list[int], args: argparse.Namespace,
                  name: str, **marks: Any) -> list[dict[str, Any]]:
    """The floor server ``relay`` (``name`` in the log) at each load of ``counts`` while its moves/s rise."""
    steps: list[dict[str, Any]] = []
    for count in counts:
        with cpu_use(relay.proc.pid, sink.pid) as cpu:
            # Any set-up game will do for the floor, which only forwards: the pool's first ``count``.
            step = relay_phase(relay, pool[:count], args.moves_per_game * 10, args.bare_seconds)
        step.update(cpu, games=count, **marks)
        steps.append(step)
        say(f"{name}, {count} games: {step['moves']} moves in {step['seconds']:.2f} s = {step['rate']:.0f} moves/s; "
            f"latency p50 {step['p50_ms']:.1f} ms, p99 {step['p99_ms']:.1f} ms; CPU: server "
            f"{cpu['server_cpu_pct']:.0f}%, bench {cpu['bench_cpu_pct']:.0f}%, "
            f"sink {cpu['sink_cpu_pct']:.0f}% of a core")
        if not still_rising(steps):
            break
    return steps


def run(args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    sink = Sink(lines=args.line_sink)
    servers: list[ServerProcess] = []
    all_games: list[Game] = []
    database_url = ""
    if args.postgresql:
        from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available

        if reason := postgres_available():
            raise BenchError(f"no PostgreSQL: {reason}")
        database_url = fresh_postgres_url()
    try:
        pbem = start_pbem(workdir, sink.port, args.worker_process, database_url)
        servers.append(pbem)
        say(f"pbem serve listening on 127.0.0.1:{pbem.port}, sink on 127.0.0.1:{sink.port}, workdir {workdir}")
        # The maximum is sought at several loads, each step with fresh games (see step_counts).
        counts = step_counts(args.games, args.steps)
        pool = make_games(sum(counts), 0, sink, pbem, args.timeout, args.seed)
        steps = [pool[sum(counts[:i]):sum(counts[:i + 1])] for i in range(len(counts))]
        phase1 = steps[0]
        phase2 = make_games(args.games, len(pool), sink, pbem, args.timeout, args.seed)
        all_games = pool + phase2
        started = time.monotonic()
        set_up_all(all_games)
        for game in all_games:
            plan(game, args.moves_per_game)
        say(f"set-up: {2 * len(all_games)} players registered, {len(all_games)} games started "
            f"in {time.monotonic() - started:.1f} s")

        bare = start_bare(workdir)
        servers.append(bare)
        with cpu_use(bare.proc.pid) as cpu:
            bare_result = bare_phase(bare, phase1, args.bare_messages, args.bare_seconds)
        bare_result.update(cpu)
        bare.stop()
        say(f"bare aiosmtpd: {bare_result['messages']} messages in {bare_result['seconds']:.2f} s "
            f"= {bare_result['rate']:.0f} messages/s; CPU: server {cpu['server_cpu_pct']:.0f}%, "
            f"bench {cpu['bench_cpu_pct']:.0f}% of a core")

        relay = start_relay(workdir, sink.port)
        servers.append(relay)
        floor_steps = floor_maximum(relay, sink, pool, counts, args, "floor server (1 mail in, 2 out, no work)")
        relay.stop()
        floor = best(floor_steps)
        padded: dict[str, Any] | None = None
        if args.floor_pad_bytes > 0:  # a reference beside the floor, not the target's; its own maximum, sought alike
            relay = start_relay(workdir, sink.port, args.floor_pad_bytes)
            servers.append(relay)
            padded = best(floor_maximum(relay, sink, pool, counts, args,
                                        f"floor server, its second copy {args.floor_pad_bytes} bytes heavier",
                                        pad_bytes=args.floor_pad_bytes))
            relay.stop()

        maximum_steps: list[dict[str, Any]] = []
        with py_spy(pbem.proc.pid, args.profile, args.profile_gil):
            for games in steps:
                logged = pbem.log_size()
                with cpu_use(pbem.proc.pid, sink.pid) as cpu:
                    maximum = pbem_phase(games, args.moves_per_game, args.seconds, rate=None)
                maximum.update(cpu, games=len(games))
                maximum.update(worker_share(pbem.worker_times(logged), maximum["seconds"]))
                maximum.update(latency_stages(pbem.stderr_path, logged, games))
                maximum_steps.append(maximum)
                say(f"pbem at maximum, {len(games)} games: {maximum['moves']} moves in {maximum['seconds']:.2f} s = "
                    f"{maximum['rate']:.1f} moves/s; latency p50 {maximum['p50_ms']:.0f} ms, "
                    f"p99 {maximum['p99_ms']:.0f} ms; CPU: pbem {cpu['server_cpu_pct']:.0f}%{split(cpu)}, "
                    f"bench {cpu['bench_cpu_pct']:.0f}%, sink {cpu['sink_cpu_pct']:.0f}% of a core")
                if not still_rising(maximum_steps):
                    break
        maximum = best(maximum_steps)
        # The floor again, at its best load, right after pbem's maximum: the VM's speed drifts within minutes (the
        # floor made 310 to 398 moves/s in six runs of an hour), so pbem is compared with the floor before and after.
        relay = start_relay(workdir, sink.port)
        servers.append(relay)
        floor_after = floor_maximum(relay, sink, pool, [floor["games"]], args,
                                    "floor server again, after pbem's maximum")[0]
        relay.stop()
        with cpu_use(pbem.proc.pid, sink.pid) as cpu:
            half = pbem_phase(phase2, args.moves_per_game, args.seconds * 2, rate=maximum["rate"] / 2)
        half.update(cpu)
        say(f"pbem at half load ({half['offered_rate']:.1f} moves/s offered): {half['moves']} moves, "
            f"{half['rate']:.1f} moves/s; latency p50 {half['p50_ms']:.0f} ms, p99 {half['p99_ms']:.0f} ms; "
            f"CPU: pbem {cpu['server_cpu_pct']:.0f}%, bench {cpu['bench_cpu_pct']:.0f}%, "
            f"sink {cpu['sink_cpu_pct']:.0f}% of a core")
        pbem.check()
        result = report(args, bare_result, floor, floor_after, maximum, half, pbem.error_lines(), sink.mailbox.total)
        result.update(floor_steps=floor_steps, maximum_steps=maximum_steps)
        if padded is not None:
            result.update(floor_padded=padded,
                          pbem_share_of_floor_padded=maximum["rate"] / padded["rate"] if padded["rate"] else 0.0)
        return result
    finally:
        shut_down(all_games, reversed(servers), sink)
        if args.keep:
            say(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
            if database_url:
                drop_postgres(database_url)


def shut_down(games: Iterable[Game], servers: Iterable[ServerProcess | None], sink: Sink) -> None:
    """Close the games' SMTP connections, stop the servers (in the order given) and the relay sink."""
    for game in games:
        game.client.close()
    for server in servers:
        if server is not None:
            server.stop()
    sink.close()


def report(args: argparse.Namespace, bare: dict[str, Any], floor: dict[str, Any], floor_after: dict[str, Any],
           maximum: dict[str, Any], half: dict[str, Any], errors: list[str], mails: int) -> dict[str, Any]:
    """The figures; pbem is compared with the mean of the floor's maximum before it and its rate after it."""
    ratio = maximum["rate"] / bare["rate"] if bare["rate"] else 0.0
    floor_rate = (floor["rate"] + floor_after["rate"]) / 2
    share_of_floor = maximum["rate"] / floor_rate if floor_rate else 0.0
    return {
        "parameters": {"games": args.games, "steps": args.steps, "moves_per_game": args.moves_per_game,
                       "seconds": args.seconds,
                       "connection_per_message": args.connect_per_message,
                       "seed": args.seed, "cores": os.cpu_count(), "python": platform.python_version(),
                       "machine": platform.machine(), "database": "postgresql" if args.postgresql else "sqlite",
                       "worker_process": "default" if args.worker_process is None else args.worker_process},
        "bare_messages_per_s": bare["rate"],
        "pbem_moves_per_s": maximum["rate"],
        "ratio": ratio,
        "floor_moves_per_s": floor_rate,
        "floor_ratio": floor_rate / bare["rate"] if bare["rate"] else 0.0,
        "pbem_share_of_floor": share_of_floor,
        "pbem_share_of_floor_before": maximum["rate"] / floor["rate"] if floor["rate"] else 0.0,
        "bare": bare,
        "floor": floor,
        "floor_after": floor_after,
        "ceiling": ceiling(floor, os.cpu_count() or 1, bare["rate"]),
        "maximum": maximum,
        "half_load": half,
        "mails_relayed": mails,
        "pbem_errors_logged": len(errors),
        "targets": {"share_of_floor_min": TARGET_SHARE_OF_FLOOR, "half_load_p99_ms_max": TARGET_P99_MS,
                    "share_of_floor_ok": share_of_floor >= TARGET_SHARE_OF_FLOOR,
                    "p99_ok": half["p99_ms"] < TARGET_P99_MS},
    }


def ceiling(floor: dict[str, Any], cores: int, bare_rate: float) -> dict[str, float]:
    """The machine's bound on moves/s: the floor server's, the bench's and its relay sink's CPU per move, over all
    cores.

    A server doing any work per move needs more CPU than the floor server, so no server can go
    faster than this with the bench on the same machine.
    """
    if not floor["rate"]:
        return {"cpu_ms_per_move": 0.0, "moves_per_s": 0.0, "ratio": 0.0}
    server_ms = floor["server_cpu_pct"] / 100 * 1000 / floor["rate"]
    bench_ms = floor["bench_cpu_pct"] / 100 * 1000 / floor["rate"]
    sink_ms = floor.get("sink_cpu_pct", 0.0) / 100 * 1000 / floor["rate"]
    bound = cores * 1000 / (server_ms + bench_ms + sink_ms)
    return {"server_cpu_ms_per_move": server_ms, "bench_cpu_ms_per_move": bench_ms, "sink_cpu_ms_per_move": sink_ms,
            "moves_per_s": bound, "ratio": bound / bare_rate if bare_rate else 0.0}


def print_summary(result: dict[str, Any]) -> None:
    params, targets = result["parameters"], result["targets"]
    maximum, half = result["maximum"], result["half_load"]

    def verdict(ok: bool) -> str:
        return "PASS" if ok else "FAIL"

    print(f"""
pbem end-to-end benchmark
  games {', '.join(map(str, step_counts(params['games'], params['steps'])))} concurrent (each load while moves/s \
rise), up to {params['moves_per_game']} moves each; {params['cores']} cores, \
Python {params['python']}, database {params['database']}; \
{'a new connection per message' if params['connection_per_message'] else 'one connection per client'}
  bare aiosmtpd (null handler)   {result['bare_messages_per_s']:9.1f} messages/s   (CPU: server \
{result['bare']['server_cpu_pct']:.0f}%, bench {result['bare']['bench_cpu_pct']:.0f}% of a core)
  pbem serve                      {result['pbem_moves_per_s']:9.1f} moves/s   ({maximum['games']} games, \
{maximum['moves']} moves, \
{maximum['seconds']:.1f} s; CPU: pbem {maximum['server_cpu_pct']:.0f}%{split(maximum)}, bench \
{maximum['bench_cpu_pct']:.0f}%, sink {maximum.get('sink_cpu_pct', 0.0):.0f}% of a core)
  floor server (1 in, 2 out)      {result['floor_moves_per_s']:9.1f} moves/s   ({result['floor']['games']} games; \
the mean of {result['floor']['rate']:.1f} before pbem and {result['floor_after']['rate']:.1f} after; ratio to bare \
{result['floor_ratio']:.3f}: about the most any server reaches here)
  ceiling on {params['cores']} cores               {result['ceiling']['moves_per_s']:9.1f} moves/s   (ratio to bare \
{result['ceiling']['ratio']:.3f}; per move the floor server uses {result['ceiling']['server_cpu_ms_per_move']:.2f} ms \
of CPU, the bench {result['ceiling']['bench_cpu_ms_per_move']:.2f} ms, its sink \
{result['ceiling']['sink_cpu_ms_per_move']:.2f} ms)
  by load (games: moves/s)        floor {steps_text(result['floor_steps'])}; pbem {steps_text(result['maximum_steps'])}
  ratio pbem / bare               {result['ratio']:9.3f}
  ratio pbem / floor server       {result['pbem_share_of_floor']:9.3f}      target >= \
{targets['share_of_floor_min']}  {verdict(targets['share_of_floor_ok'])}   \
(to the floor before pbem alone: {result['pbem_share_of_floor_before']:.3f})
  latency at maximum              p50 {maximum['p50_ms']:7.1f} ms   p99 {maximum['p99_ms']:7.1f} ms\
{worker_line(maximum)}{stages_line(maximum)}
  latency at half load            p50 {half['p50_ms']:7.1f} ms   p99 {half['p99_ms']:7.1f} ms   \
({half['offered_rate']:.1f} moves/s offered, {half['rate']:.1f} achieved)   target p99 < \
{targets['half_load_p99_ms_max']:.0f} ms  {verdict(targets['p99_ok'])}
{padded_line(result)}
  mails relayed {result['mails_relayed']}, errors logged by pbem {result['pbem_errors_logged']}""")


def padded_line(result: dict[str, Any]) -> str:
    """The reference floor whose second copy weighs what pbem's notice does (``--floor-pad-bytes``), if run."""
    if "floor_padded" not in result:
        return ""
    padded = result["floor_padded"]
    return (f"\n  floor, second copy +{padded['pad_bytes']} bytes {padded['rate']:9.1f} moves/s   "
            f"(for reference, not the target: pbem / it {result['pbem_share_of_floor_padded']:.3f})")


def steps_text(steps: list[dict[str, Any]]) -> str:
    return ", ".join(f"{step['games']}: {step['rate']:.0f}" for step in steps)


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="End-to-end throughput of pbem serve against a bare aiosmtpd server, over loopback SMTP.",
        epilog="Exit status: 0 targets met, 1 targets missed, 2 the run failed.")
    parser.add_argument("--games", type=int, default=20, help="concurrent games (and SMTP clients) [20]")
    parser.add_argument("--steps", type=int, default=3,
                        help="loads at which the floor's and pbem's maximum are sought: --games concurrent games, "
                             "then twice and four times as many ..., while a step gains 5%% or more [3]")
    parser.add_argument("--moves-per-game", type=int, default=30, help="moves (plies) per game and phase [30]")
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="time cap of the maximum phase; twice that for the half-load phase [60]")
    parser.add_argument("--bare-seconds", type=float, default=5.0,
                        help="how long the clients load the bare server (it is fast: counts alone are too short) [5]")
    parser.add_argument("--bare-messages", type=int, default=5000,
                        help="cap on messages per client against the bare server [5000]")
    parser.add_argument("--connect-per-message", action="store_true",
                        help="clients open a connection per message instead of keeping one open (both servers)")
    parser.add_argument("--timeout", type=float, default=30.0, help="longest wait for any one mail [30]")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random move choice [1]")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--profile", type=Path,
                        help="record pbem with py-spy (raw, wall clock, all threads and processes) at maximum load")
    parser.add_argument("--profile-gil", action="store_true",
                        help="with --profile: sample only the thread holding the GIL (where the CPU goes)")
    parser.add_argument("--postgresql", action="store_true",
                        help="pbem serve on a fresh PostgreSQL database (127.0.0.1:5432) instead of SQLite")
    add_worker_options(parser)
    parser.add_argument("--floor-pad-bytes", type=int, default=0, metavar="BYTES",
                        help="also measure, for reference, a floor server whose second copy of each move carries "
                             "BYTES more of base64 lines, as pbem's notice carries its picture (36000: about pbem's "
                             "37.6 KB mail) [0: not measured]")
    parser.add_argument("--line-sink", action="store_true",
                        help="the relay sink reads each mail's DATA line by line and offers no PIPELINING, as "
                             "aiosmtpd's own protocol class does, instead of reading in blocks and offering it as "
                             "Postfix and pbem's listener do (the bench's sink before 2026-11-30)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (database, logs)")
    parser.add_argument("--serve-bare", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--serve-relay", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--sink-port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--pad-bytes", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve_bare is None and args.serve_relay is None and (
            args.games < 1 or args.moves_per_game < 1 or args.steps < 1):
        parser.error("--games, --steps and --moves-per-game must be at least 1")
    return args


def interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve_bare is not None:
        serve_bare(args.serve_bare)
        return 0
    if args.serve_relay is not None:
        serve_relay(args.serve_relay, args.sink_port, args.pad_bytes)
        return 0
    Client.fresh = args.connect_per_message
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)  # clean up as on Ctrl-C: pbem runs in a session of its own
    try:
        result = run(args)
    except BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench interrupted", file=sys.stderr)
        return 2
    print_summary(result)
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0 if result["targets"]["share_of_floor_ok"] and result["targets"]["p99_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
