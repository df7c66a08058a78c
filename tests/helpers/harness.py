"""A real pbem server and a real SMTP sink on loopback, driven by smtplib as players would."""

from __future__ import annotations

import asyncio
import email
import re
import smtplib
import threading
import time
import uuid
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.policy import default as default_policy
from email.utils import make_msgid
from pathlib import Path
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.config import load_config
from pbem.server import Server


class SinkHandler:
    """Collects every mail the server relays, as (envelope recipient, parsed message)."""

    def __init__(self) -> None:
        self.received: list[tuple[str, EmailMessage]] = []
        self.condition = threading.Condition()
        self.refuse_with: str | None = None  # e.g. "451 4.3.0 try later" to simulate an outage

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.refuse_with:
            return self.refuse_with
        raw = envelope.original_content or envelope.content
        assert isinstance(raw, bytes)
        message = email.message_from_bytes(raw, policy=default_policy)
        assert isinstance(message, EmailMessage)
        with self.condition:
            for recipient in envelope.rcpt_tos:
                self.received.append((recipient.lower(), message))
            self.condition.notify_all()
        return "250 OK"


class Harness:
    """pbem serve (listener, worker, delivery) and a relay sink, both in one background loop."""

    def __init__(self, tmp_path: Path, database_url: str | None = None, serve: bool = True,
                 **settings: Any) -> None:
        """``serve=False``: only the sink; the test runs `pbem serve` itself and sets ``port``."""
        self.tmp_path = tmp_path
        self.sink = SinkHandler()
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        self._sink_server = self._call(self.loop.create_server(
            lambda: SMTP(self.sink, hostname="sink.localhost"), host="127.0.0.1", port=0))
        self.sink_port = self._sink_server.sockets[0].getsockname()[1]
        environ = {
            "PBEM_SMTP_PORT": "0",
            "PBEM_WEB_PORT": "0",  # the web listener on a free port too
            "PBEM_OUTBOUND_SMTP_HOST": "127.0.0.1",
            "PBEM_OUTBOUND_SMTP_PORT": str(self.sink_port),
            "PBEM_DATABASE_URL": database_url or f"sqlite:///{tmp_path / 'pbem.sqlite3'}",
            "PBEM_SERVER_SECRET_KEY": "test-key-" + uuid.uuid4().hex,
            # The worker a thread of the server here, where tests reach into it; tests/test_worker_process.py and
            # the e2e tests run it in a process of its own, pbem serve's default.
            "PBEM_SERVER_WORKER_PROCESS": "false",
        }
        environ.update({name: str(value) for name, value in settings.items()})
        config_file = tmp_path / "pbem.toml"
        config_file.write_text(f'[outbound]\nmaildir = "{tmp_path / "outbox"}"\n')
        self.environ = environ
        self.config = load_config(config_file, environ=environ)
        self.server: Server | None = self._call(self._make_server()) if serve else None
        self.port = self.server.port if self.server else 0
        self.domain = self.config.domain
        self.public = self.config.public_address

    async def _make_server(self) -> Server:
        server = Server(self.config)
        await server.start()
        return server

    def stop_server(self) -> None:
        """Take the listener (and worker) down, as a crash or an upgrade would; mail waits in the MTA."""
        if self.server is not None:
            self._call(self.server.stop())
            self.server = None

    def start_server(self) -> None:
        """Start a fresh server on the same configuration, listening on the port it had."""
        if self.port:
            self.environ["PBEM_SMTP_PORT"] = str(self.port)
            self.config = load_config(self.tmp_path / "pbem.toml", environ=self.environ)
        self.server = self._call(self._make_server())
        self.port = self.server.port

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=60)

    def close(self) -> None:
        if self.server is not None:
            self._call(self.server.stop())
        self.loop.call_soon_threadsafe(self._sink_server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)

    # -- sending ----------------------------------------------------------------------------

    def send(self, sender: str, to: str, body: str, subject: str = "pbem", headers: dict[str, str] | None = None,
             message_id: str | None = None, envelope_sender: str | None = None) -> str:
        """Send one plain-text mail over SMTP; returns its Message-ID."""
        message = EmailMessage()
        message["From"] = sender
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = message_id or make_msgid(domain="players.example")
        for name, value in (headers or {}).items():
            message[name] = value
        message.set_content(body)
        envelope = envelope_sender if envelope_sender is not None else sender
        self.send_raw(envelope, [to], message.as_bytes(policy=SMTP_POLICY))
        return str(message["Message-ID"])

    def send_raw(self, envelope_sender: str, recipients: list[str], raw: bytes) -> None:
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as client:
            client.sendmail(envelope_sender, recipients, raw)

    # -- receiving --------------------------------------------------------------------------

    def mails_to(self, address: str) -> list[EmailMessage]:
        with self.sink.condition:
            return [message for recipient, message in self.sink.received if recipient == address.lower()]

    def wait_for(self, address: str, count: int, timeout: float = 20.0) -> list[EmailMessage]:
        """Block until ``address`` has received at least ``count`` mails; returns them all."""
        deadline = time.monotonic() + timeout
        with self.sink.condition:
            while True:
                mails = [m for r, m in self.sink.received if r == address.lower()]
                if len(mails) >= count:
                    return mails
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise AssertionError(f"{address} got {len(mails)} mails, expected {count}: "
                                         f"{[m['Subject'] for m in mails]}")
                self.sink.condition.wait(remaining)

    def total_received(self) -> int:
        with self.sink.condition:
            return len(self.sink.received)

    def settle(self, quiet: float = 0.5, timeout: float = 20.0) -> None:
        """Wait until no mail has arrived for ``quiet`` seconds (the server has caught up)."""
        deadline = time.monotonic() + timeout
        seen, since = self.total_received(), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            now = self.total_received()
            if now != seen:
                seen, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return


def assert_tidy(message: EmailMessage) -> None:
    """A text part as mail clients show it best: no line over 78 characters, no trailing space (but in the
    signature separator "-- "), no leading blank line."""
    text = body_of(message)
    assert not text.startswith("\n"), f"leading blank line in {message['Subject']}"
    for line in text.splitlines():
        assert len(line) <= 78, f"line of {len(line)} characters in {message['Subject']}: {line!r}"
        assert line == "-- " or line == line.rstrip(), f"trailing space in {message['Subject']}: {line!r}"


def body_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("plain",))
    assert part is not None, "mail without a text/plain part"
    return str(part.get_content()).replace("\r\n", "\n")


class Player:
    """A person with a mailbox: registers, reads the mails, replies to them."""

    def __init__(self, harness: Harness, address: str) -> None:
        self.harness = harness
        self.address = address.lower()
        self.seen = 0

    def inbox(self) -> list[EmailMessage]:
        return self.harness.mails_to(self.address)

    def next_mail(self, where: Callable[[EmailMessage], bool] = lambda m: True,
                  timeout: float = 20.0) -> EmailMessage:
        """The next unread mail that matches ``where`` (earlier unmatched ones are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            mails = self.harness.wait_for(self.address, self.seen + 1, timeout=max(0.1, deadline - time.monotonic()))
            while self.seen < len(mails):
                mail = mails[self.seen]
                self.seen += 1
                assert_tidy(mail)  # every mail of every end-to-end game, whether the test reads it or not
                if where(mail):
                    return mail

    def register(self, handle: str) -> EmailMessage:
        self.harness.send(self.address, self.harness.public, f"register {handle}", subject="hello")
        return self.next_mail()

    def reply(self, mail: EmailMessage, body: str, **kwargs: Any) -> str:
        """Reply to ``mail`` as a mail client would: to its Reply-To, threaded, quoting it."""
        quoted = "\n".join(f"> {line}" for line in body_of(mail).splitlines())
        text = f"{body}\n\nOn Mon, 23 Nov 2026 at 10:00, pbem <{self.harness.public}> wrote:\n{quoted}\n"
        headers = {"In-Reply-To": str(mail["Message-ID"]), "References": str(mail["Message-ID"])}
        headers.update(kwargs.pop("headers", {}))
        return self.harness.send(self.address, str(mail["Reply-To"]), text, subject=f"Re: {mail['Subject']}",
                                 headers=headers, **kwargs)


def open_game(harness: Harness, variant: str, terms: str = "white") -> tuple[Player, Player, EmailMessage,
                                                                               EmailMessage]:
    """alice challenges bob (``terms``: colour, time control, options) and bob accepts.

    Returns both players and their opening game mails (whose Reply-To is their seat address).
    """
    alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
    welcome_a = alice.register("alice")
    welcome_b = bob.register("bob")
    assert "Welcome to pbem, alice" in body_of(welcome_a) and "Welcome to pbem, bob" in body_of(welcome_b)
    alice.reply(welcome_a, f"challenge bob {variant} {terms}")
    sent = alice.next_mail()
    number = re.search(r"Challenge (\d+) sent to bob", body_of(sent))
    assert number, body_of(sent)
    challenge = bob.next_mail()
    assert "alice challenges you" in str(challenge["Subject"])
    bob.reply(challenge, f"accept {number.group(1)}")
    opening_a = alice.next_mail(lambda m: "You play" in body_of(m))
    opening_b = bob.next_mail(lambda m: "You play" in body_of(m))
    return alice, bob, opening_a, opening_b
