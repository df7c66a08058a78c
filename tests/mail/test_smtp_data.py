"""PbemSMTP reads a DATA section in blocks, with the outcome of aiosmtpd's line-by-line reading."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import queue
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any, NamedTuple

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pbem.mail.smtp_data import _has_long_line
from pbem.mail.smtpd import PbemSMTP

#: Small enough that a few long pieces go over it.
SIZE_LIMIT = 2400

_PIECES = [b"\r\n", b".", b"..", b"a", b"Subject: x", b"\r", b"\n", b" ", b"x" * 499, b"\xc3\xa9", b"\x00"]


class Recorder:
    """A handler that keeps each accepted mail's bytes for the test to compare."""

    def __init__(self) -> None:
        self.mails: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.original_content, bytes)
        self.mails.put(envelope.original_content)
        return "250 OK"


class Listener(NamedTuple):
    port: int
    recorder: Recorder


class Outcome(NamedTuple):
    answer: bytes
    mail: bytes | None
    after: bytes  # the answer to the NOOP sent right after the section


@pytest.fixture(scope="module")
def listeners() -> Iterator[dict[str, Listener]]:
    """PbemSMTP and aiosmtpd's own SMTP, each on a loopback port, served from one loop in a thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="smtp-data-listeners", daemon=True)
    thread.start()

    async def serve(kind: type[SMTP]) -> tuple[asyncio.Server, Listener]:
        recorder = Recorder()
        server = await loop.create_server(lambda: kind(recorder, data_size_limit=SIZE_LIMIT, enable_SMTPUTF8=True),
                                          "127.0.0.1", 0)
        return server, Listener(server.sockets[0].getsockname()[1], recorder)

    served = {name: asyncio.run_coroutine_threadsafe(serve(kind), loop).result(10)
              for name, kind in (("pbem", PbemSMTP), ("aiosmtpd", SMTP))}
    yield {name: listener for name, (_, listener) in served.items()}

    async def close() -> None:
        for server, _ in served.values():
            server.close()
        await asyncio.sleep(0.2)  # the last sessions' tasks finish their cancelling

    asyncio.run_coroutine_threadsafe(close(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


def _answer(reader: Any) -> bytes:
    """One SMTP reply, its continuation lines joined."""
    lines = []
    while True:
        line = reader.readline()
        assert line, "the listener closed the connection"
        lines.append(line)
        if line[3:4] != b"-":
            return b"".join(lines)


@contextlib.contextmanager
def _at_data(listener: Listener) -> Iterator[tuple[socket.socket, Any]]:
    """A session on ``listener`` that has had its 354 to DATA: the connection and a reader of its answers."""
    with socket.create_connection(("127.0.0.1", listener.port), timeout=10) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        reader = connection.makefile("rb")
        _answer(reader)
        for command in (b"EHLO test.example", b"MAIL FROM:<bob@players.example>", b"RCPT TO:<pbem@pbem.test>",
                        b"DATA"):
            connection.sendall(command + b"\r\n")
            _answer(reader)
        yield connection, reader


def _session(listener: Listener, pieces: list[bytes], pause: float = 0.002) -> Outcome:
    """Send the section in ``pieces``, a NOOP right behind its last one, and read both answers."""
    with _at_data(listener) as (connection, reader):
        for piece in pieces[:-1]:
            connection.sendall(piece)
            time.sleep(pause)  # each piece a read of its own, so the end marker falls across reads
        connection.sendall(pieces[-1] + b"NOOP\r\n")
        answer, after = _answer(reader), _answer(reader)
        connection.sendall(b"QUIT\r\n")
        _answer(reader)
    mail = listener.recorder.mails.get(timeout=5) if answer.startswith(b"250") else None
    assert listener.recorder.mails.empty()
    return Outcome(answer, mail, after)


def _cut(stream: bytes, cuts: list[int]) -> list[bytes]:
    edges = sorted({0, len(stream), *(cut % (len(stream) + 1) for cut in cuts)})
    return [stream[start:end] for start, end in itertools.pairwise(edges) if end > start]


def _both(listeners: dict[str, Listener], pieces: list[bytes]) -> Outcome:
    ours, theirs = _session(listeners["pbem"], pieces), _session(listeners["aiosmtpd"], pieces)
    assert ours == theirs
    return ours


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_PIECES), max_size=14), st.sampled_from([b"\r\n.\r\n", b".\r\n"]),
       st.lists(st.integers(min_value=0), max_size=6))
@example([], b".\r\n", [])  # an empty mail
@example([], b"\r\n.\r\n", [1, 2])  # a mail of one empty line, the end marker sent a byte at a time
@example([b"a"], b"\r\n.\r\n", [1, 2, 3, 4])
@example([b"\r\n", b"\r\n", b"a"], b"\r\n.\r\n", [2])  # blank lines first: read a byte at a time
@example([b"..", b"\r\n", b".", b"a", b"\r\n", b"a", b"."], b"\r\n.\r\n", [5, 9])  # dot-stuffed lines
@example([b"x" * 499, b"x" * 499, b"a"], b"\r\n.\r\n", [700])  # a line of 999 characters: the longest allowed
@example([b"x" * 499, b"x" * 499, b"a", b"a"], b"\r\n.\r\n", [700])  # 1000: refused, line too long
@example([b"x" * 499, b"\r\n"] * 5, b".\r\n", [0])  # over the size limit: refused
@example([b"a\n.", b"\r", b"\n"], b".\r\n", [2])  # a bare LF before a dot does not end a line
# Found by this test: the line that takes the count over the limit is refused as too much, though also too long.
@example([b"x" * 499, b"\r\n", b"x" * 499, b"x" * 499, b"\r\n", b"..", b"x" * 499, b"x" * 499], b"\r\n.\r\n", [])
# Over the limit while a line is unfinished: it settles the answer once it ends (too much) or overruns (too long).
@example([b"x" * 499, b"\r\n"] * 4 + [b"x" * 499, b"x" * 499, b"x" * 499], b"\r\n.\r\n", [2200])
@example([b"x" * 499, b"\r\n"] * 4 + [b"x" * 499, b"a"], b"\r\n.\r\n", [2200])
def test_a_section_reads_as_aiosmtpd_reads_it(listeners: dict[str, Listener], pieces: list[bytes], end: bytes,
                                             cuts: list[int]) -> None:
    body = b"".join(pieces)
    stream = body + end
    assume((b"\r\n" + stream).find(b"\r\n.\r\n") == len(stream) - 3)  # the end marker ends it, and only it
    outcome = _both(listeners, _cut(stream, cuts))
    assert outcome.after.startswith(b"250"), "the NOOP sent behind the section was read as part of it"


def test_the_answers_to_what_a_section_may_not_hold(listeners: dict[str, Listener]) -> None:
    """What the property test compares, pinned: the mail without its stuffing dots, and each refusal."""
    stuffed = _both(listeners, [b"Subject: x\r\n\r\n..leading dot\r\n.\r\n"])
    assert stuffed.mail == b"Subject: x\r\n\r\n.leading dot\r\n"
    assert _both(listeners, [b".\r\n"]).mail == b""
    long_line = _both(listeners, [b"a" * 1000 + b"\r\n.\r\n"])
    assert long_line.answer.startswith(b"500 Line too long") and long_line.mail is None
    too_much = _both(listeners, [b"a" * 80 + b"\r\n"] * 40 + [b".\r\n"])
    assert too_much.answer.startswith(b"552") and too_much.mail is None


def test_a_picture_sized_section_is_read_in_blocks(listeners: dict[str, Listener],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A 40 KB section of 76-character lines (a picture's base64): a reader call or two per read, not one a line."""
    calls = 0
    readuntil = asyncio.StreamReader.readuntil

    async def counting(self: asyncio.StreamReader, separator: bytes = b"\n") -> bytes:
        nonlocal calls
        calls += 1
        return await readuntil(self, separator)

    monkeypatch.setattr(asyncio.StreamReader, "readuntil", counting)
    section = b"Subject: picture\r\n\r\n" + (b"QUJD" * 19 + b"\r\n") * 520 + b".\r\n"
    with _at_data(listeners["pbem"]) as (connection, reader):
        before = calls
        connection.sendall(section)
        answer = _answer(reader)
    assert answer.startswith(b"552")  # over the fixture's limit: read to its end all the same, then refused
    assert calls - before < 120, f"{calls - before} reader calls for {len(section)} bytes in 522 lines"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([b"\r\n", b"\r", b"\n", b"a", b"ab" * 3, b"x" * 17]), max_size=60),
       st.integers(min_value=0, max_value=40))
@example([b"x" * 17] * 3, 52)  # one line of 51 characters: exactly the longest a limit of 52 allows...
@example([b"x" * 17] * 3 + [b"a"], 52)  # ...and one more
@example([b"a", b"\r", b"\r\n"], 4)  # a line that ends in a lone CR before its CRLF counts that CR
def test_the_long_line_check_measures_every_line(pieces: list[bytes], limit: int) -> None:
    """_has_long_line's windows answer as measuring each line does, at any limit, with bare CRs and LFs about."""
    stuffed = b"".join(pieces)
    longest = max(map(len, stuffed.split(b"\r\n")), default=0)
    assert _has_long_line(stuffed, limit) == (longest + 2 > limit)
