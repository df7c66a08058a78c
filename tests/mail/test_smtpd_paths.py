"""PbemSMTP reads MAIL FROM and RCPT TO paths as aiosmtpd's own SMTP does, the plain ones without the email package."""

from __future__ import annotations

import asyncio
import smtplib

import aiosmtpd.smtp as aiosmtpd_smtp
import pytest
from aiosmtpd.handlers import Sink
from aiosmtpd.smtp import SMTP, Envelope
from hypothesis import example, given
from hypothesis import strategies as st

from pbem.mail.smtpd import PbemSMTP, make_smtp_factory

_PIECES = ["<", ">", "@", ".", "a", "bob", "example.org", "x-y", " ", "\t", "SIZE=12", "BODY=8BITMIME", "(c)",
           '"', "\\", "[1.2.3.4]", "é", ",", ":", "=", "<>", "SMTPUTF8"]


@given(st.lists(st.sampled_from(_PIECES), max_size=10), st.sampled_from([0, 4, 64]))
@example(["<", "bob", "@", "example.org", ">", " ", "SIZE=12"], 0)
@example(["<", "bob", "@", "example.org", ">"], 0)
@example(["<", "bob", ".", "a", "@", "example.org", ">", " ", "(c)", " ", "SIZE=12"], 0)
@example(["<", "bob", "bob", "@", "example.org", ">"], 4)
@example(["<>", " ", "SIZE=12"], 0)
@example(["<>", "(c)", "<", "bob"], 64)
@example([" ", "<>"], 0)
def test_a_path_reads_as_aiosmtpd_reads_it(pieces: list[str], local_part_limit: int) -> None:
    ours, theirs = PbemSMTP(Sink()), SMTP(Sink())
    ours.local_part_limit = theirs.local_part_limit = local_part_limit
    arg = "".join(pieces)
    assert _reading(ours, arg) == _reading(theirs, arg)


def _reading(server: SMTP, arg: str) -> object:
    """The address and the rest, or the exception (aiosmtpd's reading raises on some paths, e.g. "<")."""
    try:
        return server._getaddr(arg)
    except Exception as error:  # the session's handle_exception answers 451 to those
        return type(error)


def test_a_plain_path_is_read_without_the_email_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: SMTP, arg: str) -> tuple[str | None, str | None]:
        raise AssertionError("aiosmtpd's reading was asked")

    monkeypatch.setattr(SMTP, "_getaddr", refuse)
    server = PbemSMTP(Sink())
    assert server._getaddr("<bob.smith@example.org> SIZE=1200") == ("bob.smith@example.org", "SIZE=1200")
    assert server._getaddr("<> SIZE=1200") == ("<>", " SIZE=1200")  # a bounce's, and pbem's own mails'
    with pytest.raises(AssertionError):
        server._getaddr("<bob smith@example.org>")


class _Senders:
    """A handler that keeps each accepted mail's reverse-path, as aiosmtpd's session read it."""

    def __init__(self) -> None:
        self.senders: list[str] = []

    async def handle_DATA(self, server: SMTP, session: object, envelope: Envelope) -> str:
        self.senders.append(envelope.mail_from)
        return "250 OK"


def test_the_listener_s_sessions_read_paths_through_pbem_smtp(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real session over loopback: MAIL FROM and RCPT TO reach PbemSMTP's reading, and aiosmtpd's own
    parser is asked only for what is neither plain nor the null sender of a bounce."""
    asked: list[str] = []
    parse = aiosmtpd_smtp.get_angle_addr

    def counting(value: str) -> object:
        asked.append(value)
        return parse(value)

    monkeypatch.setattr(aiosmtpd_smtp, "get_angle_addr", counting)
    sink = _Senders()

    async def session() -> None:
        loop = asyncio.get_running_loop()
        server = await loop.create_server(make_smtp_factory(sink, 1 << 20, "pbem.test"),  # type: ignore[arg-type]
                                          "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]

        def send() -> None:
            with smtplib.SMTP("127.0.0.1", port) as client:
                client.sendmail("bob@players.example", ["g-1-w-2-abc@pbem.test"], b"Subject: x\r\n\r\ndraw\r\n")
                client.sendmail("", ["g-1-w-2-abc@pbem.test"], b"Subject: y\r\n\r\nbounce\r\n")
                client.sendmail('"bob smith"@players.example', ["g-1-w-2-abc@pbem.test"],
                                b"Subject: z\r\n\r\nquoted\r\n")

        await asyncio.to_thread(send)
        server.close()
        await server.wait_closed()

    asyncio.run(session())
    assert sink.senders == ["bob@players.example", "<>", '"bob smith"@players.example']
    assert [value.rpartition(" size=")[0] for value in asked] == ['<"bob smith"@players.example>']
