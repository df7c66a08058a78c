"""SMTP PIPELINING (RFC 2920) on both sides: the listener offers it, the deliverer uses it where the relay offers it."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlmodel import select

from pbem.mail.delivery import Deliverer
from pbem.mail.smtpd import make_smtp_factory
from pbem.store.models import OutboxItem, utcnow
from pbem.store.vocabulary import OutboxStatus
from tests.helpers.pipeline import Pipeline

#: How long a scripted relay waits for a whole MAIL, RCPT, DATA group before it calls the client stepwise.
GROUP_SECONDS = 5.0


class Keeper:
    """The listener's handler in these tests: refuses RCPT to nobody@, keeps every mail it takes."""

    def __init__(self) -> None:
        self.mails: list[tuple[str, list[str], bytes]] = []

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          options: list[str]) -> str:
        if address.startswith("nobody@"):
            return "550 5.1.1 no such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.original_content, bytes)
        self.mails.append((str(envelope.mail_from), list(envelope.rcpt_tos), envelope.original_content))
        return "250 OK"


@contextmanager
def serving(start: Callable[[], Awaitable[asyncio.Server]]) -> Iterator[int]:
    """Run the asyncio server ``start`` makes on a thread of its own; its port. Closed, its handlers cancelled."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    server = asyncio.run_coroutine_threadsafe(start(), loop).result(10)
    try:
        yield int(server.sockets[0].getsockname()[1])
    finally:
        loop.call_soon_threadsafe(server.close)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        assert not thread.is_alive(), "the server's loop did not stop"
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()

        async def settle() -> None:
            await asyncio.gather(*pending, return_exceptions=True)

        loop.run_until_complete(settle())
        loop.close()


def answers(count: int, file: Any) -> list[str]:
    """The next ``count`` answers (multi-line answers as their last line) read from ``file``."""
    found: list[str] = []
    while len(found) < count:
        line = file.readline().decode()
        assert line, f"the server closed the connection after {found}"
        if line[3:4] != "-":
            found.append(line.rstrip("\r\n"))
    return found


def test_the_listener_offers_pipelining_and_answers_a_group_in_order() -> None:
    keeper = Keeper()

    async def start() -> asyncio.Server:
        return await asyncio.get_running_loop().create_server(
            make_smtp_factory(keeper, 1 << 20, "pbem.test"), "127.0.0.1", 0)  # type: ignore[arg-type]

    with serving(start) as port, socket.create_connection(("127.0.0.1", port), timeout=10) as client:
        file = client.makefile("rb")
        assert answers(1, file)[0].startswith("220")
        client.sendall(b"EHLO players.example\r\n")
        lines = []
        while not (line := file.readline().decode()).startswith("250 "):
            assert line, f"the server closed the connection after {lines}"
            lines.append(line.strip())
        assert "250-PIPELINING" in lines
        # A whole group in one write: MAIL, RCPT, DATA, answered in order, then the content.
        client.sendall(b"MAIL FROM:<ann@players.example>\r\nRCPT TO:<seat@pbem.test>\r\nDATA\r\n")
        assert [a[:3] for a in answers(3, file)] == ["250", "250", "354"]
        # The content and its dot, then the next group in the same write: its RCPT refused, so its DATA is too.
        client.sendall(b"Subject: one\r\n\r\n..dot\r\n.\r\n"
                       b"MAIL FROM:<bob@players.example>\r\nRCPT TO:<nobody@pbem.test>\r\nDATA\r\nQUIT\r\n")
        assert [a[:3] for a in answers(5, file)] == ["250", "250", "550", "503", "221"]
    assert keeper.mails == [("ann@players.example", ["seat@pbem.test"], b"Subject: one\r\n\r\n.dot\r\n")]


class ScriptedRelay:
    """A relay that offers PIPELINING and answers a mail's MAIL, RCPT and DATA only once all three have come: a
    client that waits for each answer before its next command gets none (and times out). ``answers`` are its
    answers to the three; it closes the connection after a 421, and after a 354 reads the content to its dot
    (a 554 for it when the recipient was refused). It keeps each group, each content and every other command."""

    def __init__(self, answers: bytes = b"250 2.1.0 OK\r\n250 2.1.5 OK\r\n354 go on\r\n") -> None:
        self.answers = answers
        self.groups: list[bytes] = []
        self.contents: list[bytes] = []
        self.mails: list[bytes] = []
        self.commands: list[bytes] = []
        self.stepwise = False

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"220 relay.test ESMTP\r\n")
        try:
            while line := await reader.readline():
                command = line[:4].upper()
                if command in (b"EHLO", b"HELO"):
                    writer.write(b"250-relay.test\r\n250-PIPELINING\r\n250-SIZE 10000000\r\n250 8BITMIME\r\n")
                elif command == b"MAIL":
                    if not await self._group(line, reader, writer):
                        return
                else:
                    self.commands.append(line.rstrip().upper())
                    writer.write({b"RSET": b"250 2.0.0 OK\r\n", b"QUIT": b"221 2.0.0 bye\r\n"}.get(
                        command, b"502 5.5.2 not here\r\n"))
                    if command == b"QUIT":
                        return
                await writer.drain()
        finally:
            writer.close()

    async def _group(self, mail: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One mail's group and its content; False when the connection ends here."""
        try:  # the RCPT and DATA lines, which a client that waits for MAIL's answer never sends
            rcpt = await asyncio.wait_for(reader.readline(), GROUP_SECONDS)
            data = await asyncio.wait_for(reader.readline(), GROUP_SECONDS)
        except TimeoutError:
            self.stepwise = True
            return False
        self.groups.append(mail + rcpt + data)
        writer.write(self.answers)
        await writer.drain()
        if b"421" in self.answers:
            return False
        if self.answers.endswith(b"354 go on\r\n"):
            content = b""
            while (line := await reader.readline()) not in (b".\r\n", b""):
                content += line
            self.contents.append(content)
            if b"550" in self.answers:
                writer.write(b"554 5.5.1 no valid recipients\r\n")
            else:
                self.mails.append(content)
                writer.write(b"250 2.0.0 queued\r\n")
        return True


def queue(pipe: Pipeline, count: int) -> None:
    with pipe.db.transaction() as session:
        for number in range(count):
            session.add(OutboxItem(recipient="ann@players.example", message_id=f"<{number}@test>",
                                   raw=f"Subject: {number}\r\n\r\nmail {number}\r\n".encode(),
                                   next_attempt_at=utcnow(), created_at=utcnow()))


def deliver_through(relay: ScriptedRelay, tmp_path: Path, mails: int) -> tuple[int, list[tuple[str, str]]]:
    """Queue ``mails`` mails to one player and deliver them through ``relay``: how many were sent, and each
    outbox row's status and last error after."""
    pipe = Pipeline(tmp_path)
    with serving(lambda: asyncio.start_server(relay.handle, "127.0.0.1", 0)) as port:
        deliverer = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        try:
            queue(pipe, mails)
            sent = deliverer.deliver_due()
            with pipe.db.read() as session:
                rows = session.exec(select(OutboxItem).order_by(OutboxItem.id))  # type: ignore[arg-type]
                return sent, [(row.status, row.last_error) for row in rows]
        finally:
            deliverer.close()
            pipe.close()


def test_the_deliverer_sends_each_envelope_as_one_group_to_a_relay_that_offers_pipelining(tmp_path: Path) -> None:
    relay = ScriptedRelay()
    assert deliver_through(relay, tmp_path, 3) == (3, [(OutboxStatus.SENT, "")] * 3)
    assert not relay.stepwise
    raws = [f"Subject: {n}\r\n\r\nmail {n}\r\n".encode() for n in range(3)]
    assert relay.groups == [b"mail FROM:<> size=%d\r\nrcpt TO:<ann@players.example>\r\ndata\r\n" % len(raw)
                            for raw in raws]
    assert relay.mails == raws


def test_a_relay_that_takes_data_after_refusing_the_recipient_ends_the_empty_mail_and_the_mail_fails(
        tmp_path: Path) -> None:
    """RFC 2920 3.1: the client ends a DATA the relay should not have taken with a lone dot (no content), resets,
    and the relay's 5xx for the recipient fails the mail for good (no retry)."""
    relay = ScriptedRelay(b"250 2.1.0 OK\r\n550 5.1.1 no such mailbox\r\n354 go on\r\n")
    sent, rows = deliver_through(relay, tmp_path, 1)
    assert sent == 0 and [status for status, _ in rows] == [OutboxStatus.FAILED] and "550" in rows[0][1]
    assert not relay.stepwise and len(relay.groups) == 1 and relay.mails == []
    assert relay.contents == [b""] and relay.commands[:1] == [b"RSET"]


def test_a_refused_recipient_and_its_refused_data_fail_the_mail_and_the_connection_stays_in_step(
        tmp_path: Path) -> None:
    """What Postfix answers to a group whose recipient it refuses: 550 to RCPT, 503 or 554 to DATA."""
    relay = ScriptedRelay(b"250 2.1.0 OK\r\n550 5.1.1 no such mailbox\r\n554 5.5.1 no valid recipients\r\n")
    sent, rows = deliver_through(relay, tmp_path, 2)
    assert sent == 0 and [status for status, _ in rows] == [OutboxStatus.FAILED] * 2
    assert len(relay.groups) == 2 and relay.contents == [] and relay.commands[:1] == [b"RSET"]


def test_a_421_to_mail_ends_the_reading_and_the_mail_is_tried_again_later(tmp_path: Path) -> None:
    relay = ScriptedRelay(b"421 4.3.2 shutting down\r\n")
    sent, rows = deliver_through(relay, tmp_path, 1)
    assert sent == 0 and [status for status, _ in rows] == [OutboxStatus.PENDING]
    assert "421" in rows[0][1] and "shutting down" in rows[0][1]  # the relay's own words, not a broken connection
    assert len(relay.groups) == 1 and relay.mails == []
