"""The listener's promises (stored before 250, 451 on failure) and the outbox's (retries, Maildir)."""

from __future__ import annotations

import asyncio
import mailbox
import os
import random
import smtplib
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from hypothesis import example, given
from hypothesis import strategies as st
from sqlmodel import select

import pbem.mail.delivery
import pbem.mail.smtpd
from pbem.mail.delivery import Deliverer, _RelayConnection, dot_stuffed
from pbem.mail.sent_journal import SentJournal
from pbem.store.db import Database
from pbem.store.models import InboxItem, OutboxItem, utcnow
from tests.helpers.harness import Harness, Player, SinkHandler, body_of
from tests.helpers.pipeline import Pipeline, drop_postgres, fresh_postgres_url, postgres_available
from tests.helpers.serving import free_port


def test_mail_is_stored_before_the_250(harness: Harness) -> None:
    raw = b"From: a@players.example\r\nSubject: x\r\nMessage-ID: <stored-1@players.example>\r\n\r\nhelp\r\n"
    harness.send_raw("a@players.example", [harness.public], raw)
    with harness.server.db.transaction() as session:
        item = session.exec(select(InboxItem).where(InboxItem.message_id == "<stored-1@players.example>")).one()
        assert item.raw.replace(b"\r\n", b"\n") == raw.replace(b"\r\n", b"\n")
        assert item.recipients == [harness.public]


def test_concurrent_arrivals_share_commits_and_each_is_stored_once(harness: Harness) -> None:
    """Group commit: 40 sessions at once, 10 of them the same mail; every client hears 250."""
    def raw(number: int) -> bytes:
        ident = "<same@players.example>" if number < 10 else f"<many-{number}@players.example>"
        return (f"From: a{number}@players.example\r\nSubject: x\r\nMessage-ID: {ident}\r\n\r\n"
                f"hello {number}\r\n").encode()

    with ThreadPoolExecutor(max_workers=40) as pool:
        list(pool.map(lambda n: harness.send_raw(f"a{n}@players.example", [harness.public], raw(n)), range(40)))
    with harness.server.db.read() as session:
        ids = list(session.exec(select(InboxItem.message_id)))
    assert len(ids) == 31 and len(set(ids)) == 31 and "<same@players.example>" in ids


def test_storage_failure_answers_451_and_the_client_can_retry(harness: Harness,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object, **kwargs: object) -> list[bool]:
        raise OSError("database unavailable")

    monkeypatch.setattr(pbem.mail.smtpd, "store_batch", broken)
    raw = b"From: a@players.example\r\nSubject: x\r\nMessage-ID: <retry-1@players.example>\r\n\r\nhelp\r\n"
    with pytest.raises(smtplib.SMTPDataError) as refused:
        harness.send_raw("a@players.example", [harness.public], raw)
    assert refused.value.smtp_code == 451
    monkeypatch.undo()
    harness.send_raw("a@players.example", [harness.public], raw)
    assert "pbem commands" in body_of(harness.wait_for("a@players.example", 1)[0])


def test_relay_outage_delays_but_loses_nothing(harness: Harness) -> None:
    harness.sink.refuse_with = "451 4.3.0 relay busy, try later"
    alice = Player(harness, "alice@players.example")
    harness.send(alice.address, harness.public, "register alice")
    time.sleep(1.0)
    assert alice.inbox() == []
    with harness.server.db.transaction() as session:
        row = session.exec(select(OutboxItem)).one()
        assert row.status == "pending" and row.attempts >= 1 and "451" in row.last_error
    harness.sink.refuse_with = None
    welcome = alice.next_mail(timeout=20)
    assert "Welcome to pbem, alice" in body_of(welcome)
    deadline = time.monotonic() + 10
    while True:  # the row is marked after the relay's 250 reaches the sender: a moment later
        with harness.server.db.transaction() as session:
            row = session.exec(select(OutboxItem)).one()
        if row.status == "sent" or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert row.status == "sent" and row.attempts == 2


def test_maildir_delivery(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        pipe.send("carol@players.example", pipe.addresses.public, "variants")
        maildir = tmp_path / "outbox"
        maildir.mkdir()  # an existing empty folder must work too
        deliverer = Deliverer(pipe.db, "", 25, str(maildir))
        assert deliverer.deliver_due() == 1
        assert deliverer.deliver_due() == 0
        messages = list(mailbox.Maildir(maildir))
        assert len(messages) == 1 and messages[0]["To"] == "carol@players.example"
        assert messages[0]["Auto-Submitted"] == "auto-replied"
    finally:
        pipe.close()


def test_a_maildir_mail_is_on_the_disk_before_its_sent_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """mailbox.Maildir syncs the file in tmp/ but not its link into new/: a power cut after the mark could take the
    mail back. The deliverer syncs new/ itself, before the mark."""
    pipe = Pipeline(tmp_path)
    try:
        for number in range(2):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        maildir = tmp_path / "outbox"
        deliverer = Deliverer(pipe.db, "", 25, str(maildir))
        assert deliverer.journal is not None
        events: list[str] = []
        real_fsync, real_write = os.fsync, SentJournal.write

        def noting_fsync(descriptor: int) -> None:
            if os.readlink(f"/proc/self/fd/{descriptor}") == str(maildir / "new"):
                events.append("new/ synced")
            real_fsync(descriptor)

        def noting_write(self: SentJournal, outbox_id: int, sent_at: datetime) -> int:
            events.append("marked")
            return real_write(self, outbox_id, sent_at)

        monkeypatch.setattr(os, "fsync", noting_fsync)
        monkeypatch.setattr(SentJournal, "write", noting_write)
        assert deliverer.deliver_due() == 2
        assert events == ["new/ synced", "marked"] * 2
        assert len(list(mailbox.Maildir(maildir))) == 2
        deliverer.close()
    finally:
        pipe.close()


def test_a_relay_that_is_down_gets_retried_with_backoff_and_everything_arrives(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        for number in range(5):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        port = free_port()  # nothing listens there yet: the relay is down
        deliverer = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        # The waits are measured from the attempt itself, so a busy machine cannot make them look short.
        before = utcnow()
        assert deliverer.deliver_due() == 0
        after = utcnow()
        rows = outbox(pipe)
        assert [r.attempts for r in rows] == [1, 0, 0, 0, 0]  # the first failure stops the round
        assert before + timedelta(seconds=2) <= rows[0].next_attempt_at <= after + timedelta(seconds=2)
        assert all(r.next_attempt_at == rows[0].next_attempt_at for r in rows)
        assert deliverer.deliver_due() == 0 and outbox(pipe)[0].attempts == 1  # not due: backing off
        time.sleep(max(0.0, (rows[0].next_attempt_at - utcnow()).total_seconds()) + 0.1)
        before = utcnow()
        assert deliverer.deliver_due() == 0
        after = utcnow()
        retry_at = outbox(pipe)[0].next_attempt_at
        assert before + timedelta(seconds=4) <= retry_at <= after + timedelta(seconds=4)  # the wait doubles
        second_wait = (retry_at - utcnow()).total_seconds()
        sink = SinkHandler()
        relay = Controller(sink, hostname="127.0.0.1", port=port)
        relay.start()
        try:
            time.sleep(second_wait + 0.1)
            assert deliverer.deliver_due() == 5
            assert sorted(r for r, _ in sink.received) == [f"p{n}@players.example" for n in range(5)]
            assert {r.status for r in outbox(pipe)} == {"sent"}
        finally:
            deliverer.close()
            relay.stop()
    finally:
        pipe.close()


def outbox(pipe: Pipeline) -> list[OutboxItem]:
    with pipe.db.transaction() as session:
        return list(session.exec(select(OutboxItem).order_by(OutboxItem.id)))


def test_dot_stuffing_is_smtplibs_on_any_bytes() -> None:
    rng = random.Random()  # randomised: a failure prints the bytes; pin them as an example below
    samples = [b"", b".", b"..", b".\r\n", b"a\r\n.\r\n", b"\n.\n.", b"\r\n..\r\n.x"]
    samples += [bytes(rng.choice(b".\r\nab") for _ in range(rng.randint(0, 40))) for _ in range(5000)]
    for raw in samples:
        assert dot_stuffed(raw) == smtplib._quote_periods(raw), raw  # type: ignore[attr-defined]


class RawSink:
    """A relay that keeps each mail's bytes as it un-stuffed them."""

    def __init__(self) -> None:
        self.raw: list[bytes] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.original_content, bytes)
        self.raw.append(envelope.original_content)
        return "250 OK"


def test_lines_that_begin_with_a_period_reach_the_relay_unchanged(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    sink = RawSink()
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", relay.port, str(tmp_path / "unused"))
    bodies = [b"Subject: dots\r\n\r\n.\r\n..\r\n. a\r\nend.\r\n", b".starts\r\n\r\nno end of line.",
              b"Subject: last\r\n\r\n.."]
    try:
        with pipe.db.transaction() as session:
            for number, raw in enumerate(bodies):
                session.add(OutboxItem(recipient="dots@players.example", message_id=f"<{number}@test>", raw=raw,
                                       next_attempt_at=utcnow(), created_at=utcnow()))
        assert deliverer.deliver_due() == 3
        # The relay's copy ends with the line end DATA needs; nothing else differs.
        assert sink.raw == [raw if raw.endswith(b"\r\n") else raw + b"\r\n" for raw in bodies]
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


class SlowSink:
    """A relay that takes its time (a smarthost across a network): it counts the transactions open at once, and
    the mails it is taking at once (from a mail's final dot to its answer)."""

    def __init__(self, pause: float, data_pause: float | None = None) -> None:
        self.pause = pause
        self.data_pause = pause if data_pause is None else data_pause  # the final dot's answer
        self.received: list[tuple[str, bytes]] = []
        self.connections: dict[str, list[str]] = {}  # by the client's port: the recipients in the order taken
        self.open = self.most_open = 0
        self.taking = self.most_taking = 0

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          options: list[str]) -> str:
        self.open += 1
        self.most_open = max(self.most_open, self.open)
        await asyncio.sleep(self.pause)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.taking += 1
        self.most_taking = max(self.most_taking, self.taking)
        await asyncio.sleep(self.data_pause)
        assert isinstance(envelope.original_content, bytes)
        self.received.append((envelope.rcpt_tos[0], envelope.original_content))
        self.connections.setdefault(str(session.peer), []).append(envelope.rcpt_tos[0])
        self.taking -= 1
        self.open -= 1
        return "250 OK"


def queue_numbered_mails(pipe: Pipeline, recipients: list[str]) -> None:
    """One mail to each of ``recipients``, in their order, its body "mail N" (N its place in the list)."""
    with pipe.db.transaction() as session:
        for number, recipient in enumerate(recipients):
            session.add(OutboxItem(recipient=recipient, message_id=f"<{number}@test>",
                                   raw=f"Subject: {number}\r\n\r\nmail {number}\r\n".encode(),
                                   next_attempt_at=utcnow(), created_at=utcnow()))


def test_mails_to_several_players_go_on_several_connections_and_are_taken_one_at_a_time(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    sink = SlowSink(pause=0.05)
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", relay.port, str(tmp_path / "unused"))
    recipients = [f"p{number % 8}@players.example" for number in range(24)]  # three mails to each of eight
    try:
        queue_numbered_mails(pipe, recipients)
        started = time.monotonic()
        assert deliverer.deliver_due() == 24
        took = time.monotonic() - started
        # The RCPT round trips overlap on RELAY_CONNECTIONS connections; one at a time they take 24 pauses.
        assert sink.most_open > 1
        assert took < 24 * 2 * sink.pause
        # But no two mails are between their final dot and their sent mark at once: a crash re-sends one.
        assert sink.most_taking == 1
        # Each player's mails in the order they were queued.
        for player in set(recipients):
            numbers = [int(raw.split(b"mail ")[1]) for to, raw in sink.received if to == player]
            assert numbers == sorted(numbers) and len(numbers) == 3
        assert {row.status for row in outbox(pipe)} == {"sent"}
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


def test_a_connection_that_is_done_takes_the_next_recipients_mails(tmp_path: Path) -> None:
    """The round's connections share its recipients: one with many mails keeps a connection busy while the others
    take everybody else's, so the round lasts as long as its longest recipient, not its longest fixed lane."""
    pipe = Pipeline(tmp_path)
    sink = SlowSink(pause=0.03, data_pause=0.0)  # slow envelopes, which the connections send side by side
    relay = Controller(sink, hostname="127.0.0.1", port=free_port())
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", relay.port, str(tmp_path / "unused"))
    # The busy recipient's twelve mails take twice as long as the others' eighteen on three connections.
    recipients = ["busy@players.example"] * 12 + [f"p{number}@players.example" for number in range(18)]
    try:
        queue_numbered_mails(pipe, recipients)
        assert deliverer.deliver_due() == 30
        busy = [taken for taken in sink.connections.values() if "busy@players.example" in taken]
        # The busy recipient's mails on one connection, in order, and nobody else's behind them: the other three
        # connections took the eighteen others while it sent them. (Dealt to fixed lanes by a hash of the
        # address, five of the others went behind the busy recipient.)
        assert busy == [["busy@players.example"] * 12]
        others = [taken for taken in sink.connections.values() if "busy@players.example" not in taken]
        assert len(others) == 3 and all(taken for taken in others) and sum(map(len, others)) == 18
        numbers = [int(raw.split(b"mail ")[1]) for to, raw in sink.received if to == "busy@players.example"]
        assert numbers == list(range(12))
        assert sink.most_taking == 1
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


class _Written(_RelayConnection):
    """A relay connection that keeps the commands it would send and answers each 250."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[str] = []

    def putcmd(self, cmd: str, args: str = "") -> None:
        self.commands.append(f"{cmd} {args}")

    def getreply(self) -> tuple[int, bytes]:
        return 250, b"OK"


_ADDRESS_PIECES = ["bob", "a.b", "o'neil", "x+tag", "{}", "|", "~", ".", "..", "@", "@@", "example.org", "ex-ample.co",
                   " ", '"', "<", ">", "(c)", ",", ";", ":", "[1.2.3.4]", "\\", "é", "\t", ""]


@given(st.lists(st.sampled_from(_ADDRESS_PIECES), max_size=8))
@example(["bob", "@", "example.org"])
@example(["o'neil", "@", "ex-ample.co"])
@example(["a.b", "@", "example.org", " "])
def test_a_plain_recipient_is_written_as_smtplib_writes_it(pieces: list[str]) -> None:
    """RCPT quotes a plain address by hand; smtplib would have written the same command for any address."""
    address = "".join(pieces)
    ours, theirs = _Written(), _Written()
    ours.rcpt(address)
    smtplib.SMTP.rcpt(theirs, address)
    assert ours.commands == theirs.commands


def test_a_plain_recipient_is_quoted_without_the_email_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(address: str) -> str:
        raise AssertionError("smtplib quoted it")

    monkeypatch.setattr(smtplib, "quoteaddr", refuse)
    connection = _Written()
    connection.rcpt("g12.w.abc-def@pbem.example")
    assert connection.commands == ["rcpt TO:<g12.w.abc-def@pbem.example>"]
    with pytest.raises(AssertionError):
        connection.rcpt("Bob <bob@example.org>")


class SilentAt:
    """A relay that stops answering at one step (``rcpt`` or ``data``, the final dot) of the first ``silent`` mails."""

    def __init__(self, step: str, silent: int = 1) -> None:
        self.step = step
        self.silent = silent
        self.received: list[str] = []

    async def _maybe_fall_silent(self, step: str) -> None:
        if step == self.step and self.silent > 0:
            self.silent -= 1
            await asyncio.sleep(30)  # longer than the test's timeout: the deliverer must give up first

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope, address: str,
                          options: list[str]) -> str:
        await self._maybe_fall_silent("rcpt")
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        await self._maybe_fall_silent("data")
        self.received.extend(envelope.rcpt_tos)
        return "250 OK"


@pytest.mark.parametrize("step", ["rcpt", "data"])
def test_a_relay_that_falls_silent_fails_the_call_after_the_timeout_and_the_mail_is_sent_later(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str) -> None:
    """The relay connections keep their timeout in the kernel (SO_RCVTIMEO): a silent relay still ends the call."""
    monkeypatch.setattr(pbem.mail.delivery, "RELAY_TIMEOUT_SECONDS", 0.5)
    pipe = Pipeline(tmp_path)
    handler = SilentAt(step)
    relay = Controller(handler, hostname="127.0.0.1", port=free_port())
    relay.start()
    deliverer = Deliverer(pipe.db, "127.0.0.1", relay.port, str(tmp_path / "unused"))
    try:
        pipe.send("p0@players.example", pipe.addresses.public, "register player0")
        started = time.monotonic()
        assert deliverer.deliver_due() == 0
        assert time.monotonic() - started < 10
        row = outbox(pipe)[0]
        assert row.status == "pending" and row.attempts == 1 and handler.received == []
        with pipe.db.transaction() as session:  # due again at once, rather than after the back-off
            session.get(OutboxItem, row.id).next_attempt_at = utcnow()  # type: ignore[union-attr]
        assert deliverer.deliver_due() == 1
        assert handler.received == ["p0@players.example"] and outbox(pipe)[0].status == "sent"
    finally:
        deliverer.close()
        relay.stop()
        pipe.close()


def test_a_claim_on_postgresql_leases_its_mails_to_its_instance(tmp_path: Path) -> None:
    """Two instances on one PostgreSQL database: what one claims (a Core select and a lease by id), the other
    does not get until the lease runs out, and the claimed mails carry what delivery sends them by."""
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    url = fresh_postgres_url()
    pipe = Pipeline(tmp_path, database_url=url)
    first = Deliverer(pipe.db, "127.0.0.1", free_port(), "")
    second = Deliverer(Database(url), "127.0.0.1", free_port(), "")
    try:
        for number in range(3):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        before = utcnow()
        claimed = first._claim_due()
        assert [mail.recipient for mail in claimed] == [f"p{number}@players.example" for number in range(3)]
        assert all(b"Subject:" in mail.raw and mail.attempts == 0 for mail in claimed)
        assert second._claim_due() == []
        rows = outbox(pipe)
        assert {row.leased_by for row in rows} == {first.instance}
        assert all(row.next_attempt_at >= before + timedelta(minutes=4) for row in rows)
    finally:
        first.close()
        second.close()
        second.db.dispose()
        pipe.close()
        drop_postgres(url)
