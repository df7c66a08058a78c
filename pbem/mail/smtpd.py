"""The aiosmtpd handler: verify recipients at RCPT, store raw mail before the 250."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from email.parser import BytesHeaderParser
from email.policy import compat32
from functools import cache
from typing import Any, AnyStr

from aiosmtpd.smtp import MISSING, SMTP, Envelope, Session, syntax
from sqlalchemy.engine import Dialect

from pbem.mail.addresses import Address, AddressBook, AddressKind, redacted
from pbem.mail.inbound.headers import PLAIN_ADDRESS, PLAIN_HEADER_BLOCK
from pbem.mail.smtp_data import read_data_section
from pbem.metrics import MAILS_RECEIVED, MAILS_REFUSED, labelled
from pbem.store.db import Database
from pbem.store.many_rows import ManyRows, converted, converters
from pbem.store.models import Challenge, InboxItem, utcnow
from pbem.store.vocabulary import ChallengeStatus, InboxStatus

__all__ = ["Arrival", "GroupCommit", "InboundHandler", "PbemSMTP", "read_and_store", "store_batch", "store_inbound"]

log = logging.getLogger(__name__)

_HEADER_PARSER = BytesHeaderParser(policy=compat32)

#: Most arrivals one commit takes; bounds the transaction and the wait of the last one in it.
MAX_GROUP = 64


#: The first Message-ID of a plain header block (PLAIN_HEADER_BLOCK), its folded lines with it.
_PLAIN_MESSAGE_ID = re.compile(rb"^message-id:([\t\x20-\x7e]*(?:\r?\n[\t ][\t\x20-\x7e]*)*)",
                               re.IGNORECASE | re.MULTILINE)


def message_id_of(raw: bytes, domain: str) -> str:
    """The mail's Message-ID, or a stable one made from its bytes when it has none.

    A mail re-sent without a Message-ID then still counts as a duplicate. A plain header block is read
    with two regular expressions (the email package's parser was a thirtieth of the listener's CPU);
    whatever they read, the parser reads the same (tests/mail/test_message_id.py).
    """
    block = PLAIN_HEADER_BLOCK.match(raw)
    if block is not None:
        found = _PLAIN_MESSAGE_ID.search(raw, 0, block.end())
        value: object = found.group(1).decode("ascii") if found is not None else None
    else:
        value = _message_id_strictly(raw)
    text = " ".join(str(value).split()) if value else ""
    if text:
        return text[:998]
    return f"<sha256.{hashlib.sha256(raw).hexdigest()}@{domain}>"


def _message_id_strictly(raw: bytes) -> object:
    """The first Message-ID header's value as the email package reads it (None when there is none)."""
    try:
        return _HEADER_PARSER.parsebytes(raw).get("Message-ID")
    except Exception:  # a header block no parser can read still deserves an id
        return None


@dataclass(frozen=True, slots=True)
class Arrival:
    """One accepted DATA, waiting for its commit."""

    raw: bytes
    envelope_from: str
    recipients: list[str]
    message_id: str
    parsed: str = ""  # the worker's reading of it (GroupCommit's ``read``), "" for none


_INBOX = InboxItem.__table__  # type: ignore[attr-defined]
#: Which of a batch's Message-IDs are stored already, and the new arrivals' rows: one statement each for the whole
#: batch, made before the writers' lock is taken (pbem.store.many_rows). With two statements a mail, a batch of about
#: ten held the lock 1.8 to 2.7 ms (median) at the e2e bench's maximum, the mail worker waiting.
_STORED = "SELECT message_id FROM inboxitem WHERE message_id IN ({rows})"
_INSERT = ("INSERT INTO inboxitem (message_id, envelope_from, recipients, raw, parsed, status, error, received_at) "
           "VALUES {rows}")
_INSERTED = tuple(_INBOX.c[name] for name in ("message_id", "envelope_from", "recipients", "raw", "parsed", "status",
                                               "error", "received_at"))


@cache
def _converters(dialect: Dialect) -> tuple[Any, ...]:
    """_INSERTED's converters for ``dialect``: each column's bind processor, looked up through its type once, not
    per batch."""
    return converters(dialect, _INSERTED)


def store_batch(db: Database, arrivals: Sequence[Arrival]) -> list[bool]:
    """Commit arrivals to the inbox in one transaction; False for each duplicate (absorbed).

    A duplicate is a Message-ID already stored or seen earlier in the same batch.
    """
    if not arrivals:
        return []
    if len(arrivals) > MAX_GROUP:  # bounds the statements' values (SQLite takes 32,766 in one)
        return [answer for start in range(0, len(arrivals), MAX_GROUP)
                for answer in store_batch(db, arrivals[start:start + MAX_GROUP])]
    dialect, now = db.engine.dialect, utcnow()
    convert = _converters(dialect)
    rows: dict[str, tuple[Any, ...]] = {}  # by Message-ID: the first arrival's row, converted
    for arrival in arrivals:
        if arrival.message_id not in rows:
            rows[arrival.message_id] = converted(convert, (
                arrival.message_id, arrival.envelope_from, arrival.recipients, arrival.raw, arrival.parsed,
                InboxStatus.NEW, "", now))
    look_up = ManyRows.make(dialect, _STORED, [row[:1] for row in rows.values()])
    try:
        with db.writing() as connection:  # no ORM session: both statements are Core (see Database.writing)
            known = {found for found, in look_up.rows(connection)}
            fresh = [message_id for message_id in rows if message_id not in known]
            if fresh:
                ManyRows.make(dialect, _INSERT, [rows[message_id] for message_id in fresh]).run(connection)
    except db.integrity_errors as error:
        if not db.is_unique_violation(error):
            raise  # a row the inbox refuses for another reason is no duplicate: the client hears 451 and retries
        if len(rows) == 1:
            return [False] * len(arrivals)  # lost a race with a concurrent copy of the same mail: that copy is stored
        # Another instance stored one of these meanwhile: settle them one by one.
        return [store_batch(db, [arrival])[0] for arrival in arrivals]
    stored = set(fresh)
    answers = []
    for arrival in arrivals:
        answers.append(arrival.message_id in stored)
        stored.discard(arrival.message_id)  # a second copy in the batch is a duplicate
    return answers


def read_and_store(db: Database, arrivals: Sequence[Arrival], read: Callable[[bytes, str], str] | None) -> list[bool]:
    """:func:`store_batch`, each arrival read first by ``read`` (see GroupCommit), before the writers' lock."""
    if read is not None:
        arrivals = [dataclasses.replace(arrival, parsed=_reading(read, arrival)) for arrival in arrivals]
    return store_batch(db, arrivals)


def _reading(read: Callable[[bytes, str], str], arrival: Arrival) -> str:
    try:
        return read(arrival.raw, arrival.envelope_from)
    except Exception:  # the mail is stored all the same; the worker reads it
        log.exception("could not read %s ahead for the worker", arrival.message_id[:200])
        return ""


def store_inbound(db: Database, raw: bytes, envelope_from: str, recipients: list[str], domain: str,
                  read: Callable[[bytes, str], str] | None = None) -> bool:
    """Commit one mail to the inbox, with ``read``'s reading of it (see GroupCommit); False when its Message-ID was
    already there (absorbed)."""
    return read_and_store(db, [Arrival(raw, envelope_from, recipients, message_id_of(raw, domain))], read)[0]


class GroupCommit:
    """Stores concurrent arrivals together: one commit (one fsync) answers every waiting DATA.

    While a commit runs, new arrivals queue; the next commit takes them all. Under
    load that turns N fsyncs into one, and alone a mail waits for nothing.

    ``read`` (raw bytes, envelope sender -> text) reads each arrival for the worker before the commit, in the
    commit's thread and outside the writers' lock; what it gives is stored with the mail (``parsed``). The
    worker, the one stage every mail waits in, then does not read it again: reading a move mail was 7% of its
    time. A reading that fails stores "" and the worker reads the mail itself.
    """

    def __init__(self, db: Database, read: Callable[[bytes, str], str] | None = None) -> None:
        self.db = db
        self.read = read
        self._queue: list[tuple[Arrival, asyncio.Future[bool]]] = []
        self._flushing = False
        self._task: asyncio.Task[None] | None = None  # held: the loop keeps only weak references to tasks

    async def store(self, arrival: Arrival) -> bool:
        future: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        self._queue.append((arrival, future))
        if not self._flushing:
            self._flushing = True
            self._task = asyncio.get_running_loop().create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue[:MAX_GROUP], self._queue[MAX_GROUP:]
                try:
                    results = await asyncio.to_thread(read_and_store, self.db, [arrival for arrival, _ in batch],
                                                      self.read)
                except Exception as error:  # every waiter answers 451 and its client retries
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(error)
                    continue
                for (_, future), stored in zip(batch, results, strict=True):
                    if not future.done():
                        future.set_result(stored)
        finally:
            self._flushing = False


def expired_reason(db: Database, address: Address) -> str | None:
    """Why a one-use address (invitation, confirmation) no longer takes mail; None while it does."""
    with db.read() as session:
        if address.kind == AddressKind.INVITATION:
            challenge = session.get(Challenge, address.challenge_id)
            if challenge is None or challenge.status != ChallengeStatus.OPEN:
                return "this invitation has expired (it was answered or withdrawn)"
        if address.kind == AddressKind.CONFIRM:
            held = session.get(InboxItem, address.inbox_id)
            if held is None or held.status != InboxStatus.HELD:
                return "this confirmation address has expired (the mail was confirmed already)"
    return None



def _peer(session: Session) -> str:
    peer = session.peer
    return str(peer[0]) if isinstance(peer, tuple) and peer else str(peer or "?")

class InboundHandler:
    """aiosmtpd handler: no game logic here, only verification and storage (with the worker's reading of each
    mail, ``read``: see GroupCommit)."""

    def __init__(self, db: Database, addresses: AddressBook, on_stored: Callable[[], None] | None = None,
                 read: Callable[[bytes, str], str] | None = None) -> None:
        self.db = db
        self.addresses = addresses
        self.on_stored = on_stored or (lambda: None)
        self.committer = GroupCommit(db, read)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        verified = self.addresses.verify(address)
        if verified is None:
            log.info("refused RCPT %s from %s (peer %s): no such address or a forged token", redacted(address),
                     redacted(envelope.mail_from or ""), _peer(session))
            MAILS_REFUSED.labels("unknown").inc()
            return f"550 5.1.1 <{address}>: no such address here"
        if verified.kind in (AddressKind.INVITATION, AddressKind.CONFIRM):
            try:
                expired = await asyncio.to_thread(expired_reason, self.db, verified)
            except Exception:
                log.exception("could not check %s", address)
                return "451 4.3.0 temporary failure; please retry"
            if expired:
                log.info("refused RCPT %s (peer %s): %s", redacted(address), _peer(session), expired)
                MAILS_REFUSED.labels("expired").inc()
                return f"550 5.1.1 <{address}>: {expired}"
        envelope.rcpt_tos.append(address)
        if isinstance(envelope, PbemEnvelope):
            envelope.kinds[address] = str(verified.kind)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        sender = (envelope.mail_from or "")[:320]  # InboxItem.envelope_from is VARCHAR(320)
        try:
            arrival = Arrival(raw, sender, list(envelope.rcpt_tos), message_id_of(raw, self.addresses.domain))
            stored = await self.committer.store(arrival)
        except Exception:
            log.exception("could not store an inbound mail from %r", sender)
            return "451 4.3.0 temporary failure storing the message; please retry"
        kinds = ",".join(sorted(set(self._kinds(envelope))))
        if stored:
            log.info("received %s from %s for %s (%d bytes)", arrival.message_id[:200], redacted(sender) or "<>",
                     kinds, len(raw))
            labelled(MAILS_RECEIVED, "stored").inc()
            self.on_stored()
            return "250 2.0.0 message accepted"
        log.info("duplicate %s from %s absorbed (%d bytes)", arrival.message_id[:200], redacted(sender) or "<>",
                 len(raw))
        labelled(MAILS_RECEIVED, "duplicate").inc()
        return "250 2.0.0 duplicate message already accepted"

    def _kinds(self, envelope: Envelope) -> Iterator[str]:
        """The kind of each recipient's address: as RCPT verified it (PbemSMTP's envelope keeps them), or verified
        again (another protocol class's envelope): a verification was some 30,000 instructions."""
        known = envelope.kinds if isinstance(envelope, PbemEnvelope) else {}
        for rcpt in envelope.rcpt_tos:
            if (kind := known.get(rcpt)) is not None:
                yield kind
            elif (found := self.addresses.verify(rcpt)) is not None:
                yield str(found.kind)

    async def handle_exception(self, error: Exception) -> str:
        log.exception("SMTP session error", exc_info=error)
        return "451 4.3.0 internal error; please retry later"


class PbemEnvelope(Envelope):
    """aiosmtpd's envelope, with the kind of each recipient's address as InboundHandler's RCPT verified it."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: dict[str, str] = {}


#: MAIL FROM and RCPT TO as nearly every client writes them: ``<local@host>``, plain dot-atoms, then the
#: parameters (no comments, no quotes, no domain literal, not the empty path).
_PLAIN_PATH = re.compile(rf"<({PLAIN_ADDRESS})>[ \t]*([^ \t(\"\\].*)?", re.DOTALL)


class PbemSMTP(SMTP):
    """aiosmtpd's SMTP server protocol, reading a plain ``<local@host>`` path itself, a DATA section in blocks, and
    offering PIPELINING.

    aiosmtpd reads every path with the email package's header parser and, on each call, defines a
    ``typing.Protocol`` class for its result: a seventh of the server's CPU on a busy server (py-spy,
    bench/e2e.py), and as much of a relay's that takes pbem's own mails, sent from the null path ``<>``.
    Those two kinds are read here; any other path goes to aiosmtpd's own reading;
    tests/mail/test_smtpd_paths.py compares the two.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._timeout_at = self._timeout_armed = 0.0  # the idle timeout's deadline, and its timer's (_reset_timeout)
        self._held: list[str] | None = None  # EHLO's answers, while smtp_EHLO gathers them
        if self._decode_data:  # smtp_DATA hands the handler bytes, as pbem's listener stores them
            raise ValueError("PbemSMTP does not decode DATA (decode_data must be false)")

    def _create_envelope(self) -> Envelope:
        return PbemEnvelope()

    def _reset_timeout(self, duration: float | None = None) -> None:
        """aiosmtpd's idle timeout, restarted at each command: its deadline moved, the timer kept.

        aiosmtpd cancels its timer and schedules a new one for every command (a timer object, the loop's heap
        pushed, the cancelled one popped later). Here the timer stays, and when it fires early it is set again
        for the deadline as it stands: the connection is closed when aiosmtpd would close it.
        """
        self._timeout_at = deadline = self.loop.time() + (duration or self._timeout_duration)
        handle = self._timeout_handle
        if handle is None or handle.cancelled() or handle.when() > deadline:  # none, or one too late (a shorter one)
            if handle is not None:
                handle.cancel()
            self._arm_timeout()

    def _arm_timeout(self) -> None:
        self._timeout_handle = self.loop.call_at(self._timeout_at, self._timeout_cb)
        self._timeout_armed = self._timeout_at

    def _timeout_cb(self) -> None:
        if self._timeout_at > self._timeout_armed:  # a command came since the timer was set: wait for the rest
            self._arm_timeout()
            return
        super()._timeout_cb()  # type: ignore[no-untyped-call]

    @syntax("EHLO hostname")
    async def smtp_EHLO(self, hostname: str) -> None:
        """aiosmtpd's EHLO, offering PIPELINING as well (RFC 2920): a client may send MAIL, RCPT and DATA in one
        write. aiosmtpd answers each command in order as it reads it and reads a DATA section no further than
        its closing dot (pbem.mail.smtp_data), so a group is handled as its commands one by one would be."""
        self._held = []
        try:
            await super().smtp_EHLO(hostname)
        finally:
            answers, self._held = self._held, None
        if len(answers) > 1 and answers[-1].startswith("250 "):
            answers.insert(-1, "250-PIPELINING")
        for status in answers:
            await super().push(status)

    async def push(self, status: AnyStr) -> None:
        """Send an answer; during EHLO, keep it for smtp_EHLO to send with the others."""
        if self._held is not None:  # aiosmtpd's EHLO answers are text; bytes would be its UTF-8
            self._held.append(status if isinstance(status, str) else status.decode("utf-8"))
            return
        await super().push(status)

    @syntax("DATA")
    async def smtp_DATA(self, arg: str) -> None:
        """aiosmtpd's DATA command, the section read in blocks (pbem.mail.smtp_data) rather than line by line."""
        if await self.check_helo_needed() or await self.check_auth_needed("DATA"):
            return
        assert self.envelope is not None
        if not self.envelope.rcpt_tos:
            await self.push("503 Error: need RCPT command")
            return
        if arg:
            await self.push("501 Syntax: DATA")
            return
        await self.push("354 End data with <CR><LF>.<CR><LF>")
        try:
            section = await read_data_section(self._reader, self.data_size_limit, self.line_length_limit)
        except asyncio.CancelledError:
            log.info("connection lost during DATA")
            self._writer.close()
            raise
        if section.refusal is not None:
            await self.push(section.refusal.value)
            self._set_post_data_state()  # type: ignore[no-untyped-call]
            return
        self.envelope.original_content = self.envelope.content = section.content
        status = await self._call_handler_hook("DATA")
        self._set_post_data_state()  # type: ignore[no-untyped-call]
        await self.push("250 OK" if status is MISSING else status)

    def _getaddr(self, arg: str) -> tuple[str | None, str | None]:
        if arg.startswith("<>"):
            # The null reverse-path of a bounce, and of every mail a mail server like pbem sends: the email
            # package reads it as "<>" with the rest untouched, and aiosmtpd hands on both.
            return "<>", arg[2:]
        plain = _PLAIN_PATH.fullmatch(arg)
        if plain is None:
            return super()._getaddr(arg)
        address, rest = plain.group(1), plain.group(2) or ""
        if self.local_part_limit and len(address.rpartition("@")[0]) > self.local_part_limit:
            return None, None
        return address, rest


def make_smtp_factory(handler: InboundHandler, max_message_bytes: int, hostname: str) -> Callable[[], Any]:
    """A protocol factory for ``loop.create_server``."""

    def factory() -> SMTP:
        return PbemSMTP(handler, data_size_limit=max_message_bytes, hostname=hostname,
                        ident="pbem ESMTP", enable_SMTPUTF8=True)

    return factory
