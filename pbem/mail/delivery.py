"""Delivering the outbox: due rows claimed as they come due, sent through the relay (or into a Maildir), retried
with backoff."""

from __future__ import annotations

import contextlib
import logging
import mailbox
import re
import secrets
import smtplib
import socket
import struct
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, bindparam
from sqlalchemy import select as select_columns
from sqlmodel import col, select, update

from pbem.mail.claimed import ClaimedMail
from pbem.mail.compose import plain_address
from pbem.mail.drawings import Drawings
from pbem.mail.inbound.headers import PLAIN_ADDRESS
from pbem.mail.later_pictures import finished
from pbem.mail.recipient_queue import RecipientQueue
from pbem.mail.sent_journal import SentJournal
from pbem.metrics import OUTBOX_RETRIED, OUTBOX_SENT
from pbem.store.db import Database
from pbem.store.durable import sync_folder
from pbem.store.many_rows import ManyRows, converters
from pbem.store.models import OutboxItem, utcnow
from pbem.store.vocabulary import OutboxStatus

__all__ = ["MAX_ATTEMPTS", "RELAY_CONNECTIONS", "Deliverer", "dot_stuffed"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 30
#: Relay connections sending at once (a recipient's mails on one of them, in order): their round trips
#: overlap, while a mail's final dot and its sent mark still go one at a time (see _run_lane). A connection's
#: mark is synced to the disk while it sends its next mail's envelope, before that mail's final dot. Eight
#: made the final dots the bound (a connection waited 6.7 ms a mail for its turn, against 1.2 with four).
RELAY_CONNECTIONS = 4
#: How long a relay connection waits for the relay to connect, answer or take what it is sent.
RELAY_TIMEOUT_SECONDS = 30.0
#: More mails are claimed once fewer than this many recipients wait for a connection: enough left to send while
#: the claim reads the outbox and the new mails' pictures are drawn.
REFILL_BELOW = 2 * RELAY_CONNECTIONS
#: How often a call folds the journal's marks into the outbox while its connections send (on a thread of its own:
#: a fold waits for the writers' lock, which the mail worker holds).
FOLD_SECONDS = 0.5
#: How often a call that found nothing new due looks again while its connections send, when nobody wakes it
#: (``Deliverer.wake``: pbem serve does when the worker has queued mail).
REFILL_POLL_SECONDS = 0.05
_BACKOFF_BASE_SECONDS = 2.0
_BACKOFF_MAX_SECONDS = 3600.0
_LEASE = timedelta(minutes=5)
#: A journal's marks folded into the outbox, all in one statement (see pbem.store.many_rows); a row marked already
#: (a fold repeated after a crash) stays as it is.
_FOLD = ("WITH marks (outbox_id, sent) AS (VALUES {rows}) "
         "UPDATE outboxitem SET status = {mark}, sent_at = marks.sent, attempts = attempts + 1, leased_by = '' "
         "FROM marks WHERE outboxitem.id = marks.outbox_id AND outboxitem.status = {mark}")
#: Marks a fold statement carries at most: two values each, where SQLite takes 32,766 in a statement.
FOLD_MARKS_PER_STATEMENT = 1000


#: A recipient RCPT writes as ``<local@host>`` without smtplib's quoting (see _RelayConnection.rcpt).
_PLAIN_PATH = re.compile(PLAIN_ADDRESS)
#: The "answer" to an envelope command that was not sent, because one before it was refused.
_NOT_SENT = (0, b"")
#: What a failed sending raises: the relay's refusals and the network's errors (counted; retried unless permanent).
_SEND_ERRORS = (OSError, smtplib.SMTPException, UnicodeError)
_OUTBOX = OutboxItem.__table__  # type: ignore[attr-defined]
#: What a claim reads of each row: ClaimedMail's fields, in its order.
_CLAIMED = (_OUTBOX.c.id, _OUTBOX.c.recipient, _OUTBOX.c.raw, _OUTBOX.c.pictures, _OUTBOX.c.attempts)
_PENDING_DUE = (_OUTBOX.c.status == OutboxStatus.PENDING, _OUTBOX.c.next_attempt_at <= bindparam("now"))
#: The pending mails due at ``now``, oldest first, at most ``batch``, but for those ``marked`` sent in the journal
#: and not yet folded (see Deliverer.deliver_due): a call's first claim. Built once, since every call asks.
_DUE = (select_columns(*_CLAIMED).where(*_PENDING_DUE, _OUTBOX.c.id.not_in(bindparam("marked", expanding=True)))
        .order_by(_OUTBOX.c.id).limit(bindparam("batch", type_=Integer)))
#: The same, newer than the call's claims so far (``after``): the claims while its connections send. What it
#: claimed, sent or not, is older; a mail retried meanwhile, older too, waits for the next call.
_DUE_AFTER = (select_columns(*_CLAIMED).where(*_PENDING_DUE, _OUTBOX.c.id > bindparam("after"))
              .order_by(_OUTBOX.c.id).limit(bindparam("batch", type_=Integer)))
#: A claim's lease on PostgreSQL: another instance (or this one after a crash) retries only once it runs out.
_LEASED = (update(_OUTBOX).where(_OUTBOX.c.id.in_(bindparam("ids", expanding=True)))
           .values(next_attempt_at=bindparam("until"), leased_by=bindparam("instance")))
#: When the earliest pending mail is due; built once, since every delivery call asks.
_NEXT_DUE = (select(OutboxItem.next_attempt_at).where(col(OutboxItem.status) == OutboxStatus.PENDING)
             .order_by(col(OutboxItem.next_attempt_at)).limit(1))


def _backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(_BACKOFF_MAX_SECONDS, _BACKOFF_BASE_SECONDS * 2 ** max(0, attempts - 1)))



class _RelayConnection(smtplib.SMTP):
    """smtplib's client, sending one mail in two steps: everything but the final dot, then the dot.

    Until the relay has the final dot it has taken nothing (RFC 5321 4.1.1.4): a crash before it sends
    nothing, a crash between the relay's 250 and our mark sends the mail again. So the deliverer runs
    the first step on several connections at once and the second one at a time (see Deliverer).
    """

    def rcpt(self, recip: str, options: Sequence[str] = ()) -> tuple[int, bytes]:
        """smtplib's RCPT, a plain address (local@host of dot-atoms) written as ``<local@host>`` by hand:
        smtplib runs every address through the email package's parser to quote it, 5 µs a mail, more than
        the rest of the command. Whatever the pattern lets through, smtplib would write the same."""
        if options or not _PLAIN_PATH.fullmatch(recip):
            return super().rcpt(recip, options)
        self.putcmd("rcpt", f"TO:<{recip}>")
        return self.getreply()

    def connect(self, host: str = "localhost", port: int = 0, source_address: Any = None) -> tuple[int, bytes]:
        answer = super().connect(host, port, source_address)
        # The final dot follows the content as a write of its own: with Nagle's algorithm it would wait for
        # the relay to acknowledge the content, which a relay delays (40 ms on Linux) while it has nothing to say.
        if self.sock is not None and self.sock.family in (socket.AF_INET, socket.AF_INET6):
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self.sock is not None and (timeout := self.sock.gettimeout()):
            # The kernel keeps the timeout from here on: a socket with Python's timeout polls before every send
            # and receive, a second system call and a second hand-over of the interpreter lock each time
            # (bench/relay_lanes.py: 0.67 to 0.70 ms of CPU a mail against 0.72 to 0.75). A relay that falls
            # silent still fails the call, as an OSError or an empty answer (SMTPServerDisconnected).
            seconds = int(timeout)
            limit = struct.pack("ll", seconds, int((timeout - seconds) * 1_000_000))
            self.sock.settimeout(None)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, limit)
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, limit)
        return answer

    def begin_mail(self, recipient: str, raw: bytes, options: list[str]) -> None:
        """MAIL (null sender: these are automatic replies, bounces must not loop back to us), RCPT, DATA and
        the content, as smtplib.sendmail sends them, but not the final dot. The dots are stuffed by two bytes
        replacements: smtplib's regular expression took 0.2 ms on a mail with a picture."""
        self.ehlo_or_helo_if_needed()
        size = [f"size={len(raw)}"] if self.does_esmtp and self.has_extn("size") else []
        if not options and self.does_esmtp and self.has_extn("pipelining") and _PLAIN_PATH.fullmatch(recipient):
            mail, rcpt, data = self._envelope_pipelined(recipient, size)
        else:
            mail, rcpt, data = self._envelope_stepwise(recipient, [*size, *options])
        if mail[0] != 250:
            self._refused(mail[0])
            raise smtplib.SMTPSenderRefused(mail[0], mail[1], "")
        if rcpt[0] not in (250, 251):
            self._refused(rcpt[0])
            raise smtplib.SMTPRecipientsRefused({recipient: rcpt})
        if data[0] != 354:
            self._refused(data[0])
            raise smtplib.SMTPDataError(*data)
        self.send(b"".join((dot_stuffed(raw), b"" if raw.endswith(b"\r\n") else b"\r\n")))

    def _envelope_stepwise(self, recipient: str, options: list[str]) -> tuple[tuple[int, bytes], ...]:
        """MAIL, RCPT and DATA one after the other, each sent once the one before was accepted; the answers
        (``_NOT_SENT`` for a command not sent)."""
        mail = self.mail("", options)
        rcpt = self.rcpt(recipient) if mail[0] == 250 else _NOT_SENT
        if rcpt[0] not in (250, 251):
            return mail, rcpt, _NOT_SENT
        self.putcmd("data")
        return mail, rcpt, self.getreply()

    def _envelope_pipelined(self, recipient: str, size: list[str]) -> tuple[tuple[int, bytes], ...]:
        """MAIL, RCPT and DATA in one write to a relay that offers PIPELINING (RFC 2920), as Postfix's own client
        sends them: one round trip instead of three (bench/e2e.py: see the README). The answers, read in order.

        A 421 ends the reading: the relay closes the connection after it. A relay that took DATA although it refused
        the recipient (RFC 2920 asks it not to) gets the empty mail's dot at once, which with no recipient delivers
        nothing; one that took it after refusing MAIL is left (the connection closed): its DATA counts as refused."""
        self.send("".join((f"mail FROM:<>{''.join(f' {option}' for option in size)}\r\n",
                           f"rcpt TO:<{recipient}>\r\n", "data\r\n")))
        mail = self.getreply()
        if mail[0] == 421:
            return mail, _NOT_SENT, _NOT_SENT
        rcpt = self.getreply()
        if rcpt[0] == 421:
            return mail, rcpt, _NOT_SENT
        data = self.getreply()
        if data[0] == 354 and mail[0] != 250:
            self.close()
            return mail, rcpt, _NOT_SENT
        if data[0] == 354 and rcpt[0] not in (250, 251):
            self.send(b".\r\n")
            self.getreply()
            return mail, rcpt, (503, b"no valid recipient: the empty mail ended at once")
        return mail, rcpt, data

    def end_mail(self) -> tuple[int, bytes]:
        """The final dot; from the relay's 250 on, the mail is the relay's."""
        self.send(b".\r\n")
        code, answer = self.getreply()
        if code != 250:
            self._refused(code)
            raise smtplib.SMTPDataError(code, answer)
        return code, answer

    def _refused(self, code: int) -> None:
        if code == 421:  # the relay is closing the connection
            self.close()
        else:
            self._rset()  # type: ignore[attr-defined]


def dot_stuffed(raw: bytes) -> bytes:
    """``raw`` as DATA carries it (RFC 5321 4.5.2): a line that begins with a period gets one more."""
    stuffed = raw.replace(b"\n.", b"\n..")
    return b"." + stuffed if stuffed.startswith(b".") else stuffed


class Deliverer:
    """Sends due outbox rows through the relay (or into the Maildir), oldest first."""

    def __init__(self, db: Database, smtp_host: str, smtp_port: int, maildir: str, batch: int = 50,
                 finish: Callable[[bytes, str], bytes] = finished) -> None:
        """``finish``: how a queued mail gets its pictures drawn in (pbem.mail.later_pictures.finished, or pbem
        serve's picture process)."""
        self.db = db
        self.smtp_host = smtp_host
        self.smtp_port = smtp_port
        self.maildir = Path(maildir)
        self.batch = batch
        self.instance = secrets.token_hex(8)  # names this process's leases
        self._connections: dict[int, _RelayConnection] = {}  # by lane (see _lanes)
        self._lane_pool: ThreadPoolExecutor | None = None
        self._folder: ThreadPoolExecutor | None = None  # folds while the connections send (see _keep_claiming)
        self._one_at_a_time = threading.Lock()  # from a mail's final dot to its mark (see _run_lane)
        # Draws the pictures of the claimed mails (pbem.mail.later_pictures) while the connections send the mails
        # claimed before: drawing one after the other with the sending made the deliverer the server's bound.
        self._drawings = Drawings(finish)
        self._due = threading.Event()  # set by wake(): mail may have come due
        self._finishing = threading.Event()  # set by finish_soon(): a call under way claims nothing more
        # SQLite in a file: sent marks go to a journal beside it first (see SentJournal); else to the outbox.
        self.journal = SentJournal(Path(f"{db.sqlite_file}.sent")) if db.sqlite_file is not None else None
        # The mails this process marked sent in the journal and not yet folded: still pending in the outbox, so a
        # call's first claim leaves them out (its later claims take only newer mails).
        self._marked: set[int] = set()

    def wake(self) -> None:
        """Mail may have come due (thread-safe): a call under way claims it as soon as its connections have room,
        instead of at its next look (REFILL_POLL_SECONDS)."""
        self._due.set()

    def finish_soon(self) -> None:
        """The server is stopping (thread-safe): a call under way claims nothing more, sends what it has claimed and
        returns, within FOLD_SECONDS; later calls deliver what is due once, as a call without ``for_seconds``."""
        self._finishing.set()
        self._due.set()

    def _claim_due(self, after: int | None = None) -> list[ClaimedMail]:
        """Up to ``batch`` due mails, oldest first: all of them (None; but for those marked and not folded), or
        those newer than ``after``."""
        if after is None:
            due = self.next_due_in()
            if due is None or due > 0:
                return []  # nothing due: no write lock taken
            statement, due_now = _DUE, {"now": utcnow(), "batch": self.batch, "marked": sorted(self._marked)}
        else:
            statement, due_now = _DUE_AFTER, {"now": utcnow(), "batch": self.batch, "after": after}
        if self.db.is_sqlite:
            # One instance per SQLite file and one deliverer in it, which leaves out what it marked and has
            # not folded yet: nobody else could take these rows, and a restart releases every lease anyway.
            # A lease would only cost a commit (and the writers' lock) per claim.
            with self.db.read() as session:
                return [ClaimedMail(*row) for row in session.connection().execute(statement, due_now)]
        with self.db.transaction() as session:
            connection = session.connection()
            items = [ClaimedMail(*row) for row in connection.execute(self.db.claimable(statement), due_now)]
            if items:
                connection.execute(_LEASED, {"ids": [item.id for item in items], "until": utcnow() + _LEASE,
                                             "instance": self.instance})
            return items

    def release_leases(self) -> int:
        """At start-up with SQLite (one instance per file): leases still held were a dead process's.

        Their mails go out at once instead of after the lease; one may be a duplicate of a mail
        the relay had already accepted, with the same Message-ID.
        """
        if not self.db.is_sqlite:
            return 0  # other live instances may hold leases; a dead one's run out by themselves
        self.fold()  # the mails a dead process had marked in its journal are sent: not again
        with self.db.transaction() as session:
            result = session.exec(update(OutboxItem).where(col(OutboxItem.status) == OutboxStatus.PENDING,
                                                          col(OutboxItem.leased_by) != "")
                                  .values(next_attempt_at=utcnow(), leased_by=""))
            return int(result.rowcount or 0)

    def deliver_due(self, for_seconds: float = 0.0) -> int:
        """Deliver what is due, and for up to ``for_seconds`` what comes due meanwhile; how many were sent.
        Failures are rescheduled.

        The journal's marks are folded into the outbox before and after, and every FOLD_SECONDS on a thread of
        their own while the connections send (a fold waits for the writers' lock, which the mail worker holds).
        The first claim leaves the mails marked and not folded out; the later ones take only newer mails.
        """
        # Marks a failed fold left behind go in first: on SQLite a claim reads its mails without a
        # lease, and a sent mail must not be read as due again.
        self.fold()
        try:
            return self._deliver(for_seconds)
        finally:
            self.fold()

    def fold(self) -> int:
        """Write the journal's sent marks into the outbox, in one transaction; how many there were."""
        if self.journal is None:
            return 0
        with self.journal.folding() as marks:
            if marks:
                dialect = self.db.engine.dialect
                convert = converters(dialect, (_OUTBOX.c.id, _OUTBOX.c.sent_at))
                statements = [ManyRows.make(dialect, _FOLD, marks[start:start + FOLD_MARKS_PER_STATEMENT], convert,
                                            after=(OutboxStatus.SENT.value, OutboxStatus.PENDING.value))
                              for start in range(0, len(marks), FOLD_MARKS_PER_STATEMENT)]
                # On disk (synced after the writers' lock is let go) before the journal is emptied.
                with self.db.transaction() as session:
                    for statement in statements:
                        statement.run(session)
                self._marked.difference_update(number for number, _ in marks)
            return len(marks)

    def _deliver(self, for_seconds: float) -> int:
        """Claim the due mails and send them; while they are sent, for up to ``for_seconds``, claim what has come
        due since. How many were sent; nothing folded."""
        items = self._claim_due()
        if not items:
            return 0
        until = time.monotonic() + (0.0 if self._finishing.is_set() else for_seconds)
        queue, drawn = RecipientQueue(REFILL_BELOW), dict[int, Future[bytes]]()
        newest = self._queue(items, queue, drawn)
        try:
            if self.smtp_host and self._reachable():
                return self._send_on_connections(queue, drawn, newest, until)
            # A Maildir has no round trips to overlap, and a relay that is down is found by one connection: one
            # lane, in this thread (a SQLite database in memory is this thread's), claiming between its turns.
            return self._send_on_one(queue, drawn, newest, until)
        finally:
            self._drawings.done_with(drawn)

    def _send_on_connections(self, queue: RecipientQueue, drawn: dict[int, Future[bytes]], newest: int,
                             until: float) -> int:
        """The relay's connections send what ``queue`` has while this thread claims more (no rounds: no
        connection waits for the others' last mails, nor for a claim); how many they sent."""
        if self._lane_pool is None:
            self._lane_pool = ThreadPoolExecutor(max_workers=RELAY_CONNECTIONS, thread_name_prefix="pbem-relay")
        running = [self._lane_pool.submit(self._run_lane, lane, queue, drawn) for lane in range(RELAY_CONNECTIONS)]
        try:
            self._keep_claiming(queue, drawn, newest, until)
        finally:
            queue.close()
            wait(running)  # every connection done before one's error is raised: none outlives the call
        return sum(lane.result() for lane in running)

    def _send_on_one(self, queue: RecipientQueue, drawn: dict[int, Future[bytes]], newest: int, until: float) -> int:
        """Connection 0 (or the Maildir) sends what ``queue`` has, then what has come due since, until ``until``."""
        sent = 0
        while True:
            queue.close()
            sent += self._run_lane(0, queue, drawn)
            if queue.stopped or time.monotonic() >= until or self._finishing.is_set() or not (
                    items := self._claim_due(after=newest)):
                return sent
            queue = RecipientQueue(REFILL_BELOW)
            newest = self._queue(items, queue, drawn)

    def _queue(self, items: list[ClaimedMail], queue: RecipientQueue, drawn: dict[int, Future[bytes]]) -> int:
        """Offer claimed ``items`` to the connections, their pictures asked for; the newest one's id."""
        # The worker commits without waiting for the disk (Database.transaction): what these mails
        # report must be on disk before they leave, or a power cut could take back a move already told.
        self.db.sync_to_disk()
        drawn.update(self._drawings.for_mails(items))  # in the order the connections will take them
        if not queue.add(items):  # the relay went down since the claim: the next call tries them
            self._reschedule([item.id for item in items], utcnow())
        return max(item.id or 0 for item in items)

    def _keep_claiming(self, queue: RecipientQueue, drawn: dict[int, Future[bytes]], newest: int,
                       until: float) -> None:
        """Until ``until``, claim the mails come due as the connections run short of recipients, and fold the marks
        every FOLD_SECONDS; return early when they have sent everything and nothing more is due, or when the relay
        is down.

        A fold may run while the connections send and this thread claims, because a claim here takes only mails
        newer than the call's claims so far: none of them can be marked yet.
        """
        full = True  # whether the last claim took all it could (then more may be due at once)
        folding: Future[int] | None = None
        folded_at = time.monotonic()
        try:
            while not queue.stopped and not self._finishing.is_set() and (left := until - time.monotonic()) > 0:
                folding, folded_at = self._fold_now_and_then(folding, folded_at)
                if not queue.wait_for_room(min(left, FOLD_SECONDS)):
                    continue
                if not full:  # all that was due is claimed: wait to be woken, or look again a little later
                    if queue.idle():
                        return
                    self._due.wait(min(left, REFILL_POLL_SECONDS))
                self._due.clear()
                items = self._claim_due(after=newest)
                full = len(items) >= self.batch
                if items:
                    newest = self._queue(items, queue, drawn)
        finally:
            if folding is not None:
                folding.result()

    def _fold_now_and_then(self, folding: Future[int] | None, folded_at: float) -> tuple[Future[int] | None, float]:
        """The fold under way, or a new one on the folding thread once the last has ended (its error raised here)
        and FOLD_SECONDS have passed since it began; when the last began."""
        if folding is not None:
            if not folding.done():
                return folding, folded_at
            folding.result()
        if self.journal is None or time.monotonic() - folded_at < FOLD_SECONDS:
            return None, folded_at
        if self._folder is None:
            self._folder = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-fold")
        return self._folder.submit(self.fold), time.monotonic()

    def _run_lane(self, lane: int, queue: RecipientQueue, drawn: dict[int, Future[bytes]]) -> int:
        """Send on connection ``lane`` the mails of one recipient after another, taken from ``queue`` (which the
        call's connections share) until it has nothing more; how many were sent.

        A connection that is done takes the next recipient's mails, so no connection waits for another's last
        mails. One recipient's mails go on one connection, in their order.
        """
        sent = 0
        unsynced = 0  # this connection's last mark in the journal (0: none), waited for before its next dot
        down = False  # the relay is: what is left retries later
        while not down and (mails := queue.take()) is not None:
            try:
                sent_now, down, unsynced = self._send_mails(lane, mails, queue, drawn, unsynced)
                sent += sent_now
            finally:
                queue.done(mails)
                for item in mails:  # a finished mail is some 40 KB: not held for the rest of the call
                    if (ahead := drawn.pop(item.id or 0, None)) is not None:
                        ahead.cancel()
        self._wait_synced(unsynced)
        return sent

    def _send_mails(self, lane: int, mails: list[ClaimedMail], queue: RecipientQueue, drawn: dict[int, Future[bytes]],
                    unsynced: int) -> tuple[int, bool, int]:
        """Send one recipient's ``mails`` on connection ``lane``: how many were sent, whether the relay is down,
        and the connection's last mark to be synced."""
        sent = 0
        for index, item in enumerate(mails):
            ahead = drawn.get(item.id)
            try:
                raw = ahead.result() if ahead is not None else item.raw
                recipient = self._begin(lane, item, raw)
            except _SEND_ERRORS as error:
                if self._failed(lane, item, error, mails[index + 1:], queue):
                    return sent, True, unsynced
                continue
            # The mark before is synced while this mail's envelope and content went out; it must be on the
            # disk before this mail's final dot: a power cut re-sends at most one mail a connection.
            try:
                self._wait_synced(unsynced)
            except OSError:
                self._drop(lane)  # the relay discards this mail, its final dot never sent; the call fails
                raise
            # One mail at a time between its final dot and its mark: a crash re-sends at most one mail,
            # however many connections were sending.
            with self._one_at_a_time:
                try:
                    code, answer = self._end(lane, item, raw)
                except _SEND_ERRORS as error:
                    if self._failed(lane, item, error, mails[index + 1:], queue):
                        return sent, True, unsynced
                    continue
                unsynced = self._mark_sent(item)
            OUTBOX_SENT.inc()
            sent += 1
            log.info("outbox %s to %s delivered (%d bytes): %s", item.id, recipient, len(raw),
                     f"relay said {code} {answer.decode('utf-8', 'replace')[:200]}" if self.smtp_host
                     else f"written to the Maildir as {answer.decode()}")
        return sent, False, unsynced

    def _wait_synced(self, line: int) -> None:
        """Wait until the journal's line ``line`` is on the disk (0: nothing to wait for; a synced line: no wait)."""
        if line and self.journal is not None:
            self.journal.wait_synced(line)

    def _failed(self, lane: int, item: ClaimedMail, error: BaseException, rest: list[ClaimedMail],
                queue: RecipientQueue) -> bool:
        """Count ``item``'s failed attempt; True when the relay is down: then ``rest`` (its recipient's mails after
        it) and every mail no connection has taken yet retry with it."""
        self._close(lane)
        retry_at = self._mark_failed(item, error)
        if isinstance(error, (ConnectionError, socket.timeout, smtplib.SMTPServerDisconnected)):
            waiting = [*rest, *queue.stop()]
            self._reschedule([other.id for other in waiting], retry_at or utcnow())
            return True
        return False

    def _reschedule(self, ids: list[int | None], when: datetime) -> None:
        if ids:
            self.db.write(update(OutboxItem).where(col(OutboxItem.id).in_(ids))
                          .values(next_attempt_at=when, leased_by=""))

    def _connection(self, lane: int) -> _RelayConnection:
        """Connection ``lane`` to the relay, opened if need be (raising what the relay or the network raise)."""
        connection = self._connections.get(lane)
        if connection is None:
            connection = self._connections[lane] = _RelayConnection(self.smtp_host, self.smtp_port,
                                                                        timeout=RELAY_TIMEOUT_SECONDS)
        return connection

    def _reachable(self) -> bool:
        """Whether the relay takes a connection (lane 0's, kept for the call)."""
        try:
            self._connection(0)
        except _SEND_ERRORS:
            return False
        return True

    def _begin(self, lane: int, item: ClaimedMail, raw: bytes) -> str:
        """Everything of ``item``'s sending but what makes it the relay's; the recipient, as it was sent to."""
        recipient = plain_address(item.recipient).encode("ascii", "surrogateescape").decode("utf-8", "replace")
        if not self.smtp_host:
            return recipient
        connection = self._connection(lane)
        # An internationalised mailbox (RFC 6531) needs SMTPUTF8; a relay without it refuses
        # with SMTPNotSupportedError, which is permanent (see _mark_failed).
        connection.begin_mail(recipient, raw, [] if recipient.isascii() else ["SMTPUTF8"])
        return recipient

    def _end(self, lane: int, item: ClaimedMail, raw: bytes) -> tuple[int, bytes]:
        """Make ``item``'s mail the relay's (its final dot), or write it to the Maildir; what was answered."""
        if not self.smtp_host:
            # mailbox.Maildir only creates tmp/new/cur when the folder itself is missing.
            for sub in ("tmp", "new", "cur"):
                (self.maildir / sub).mkdir(parents=True, exist_ok=True)
            key = mailbox.Maildir(self.maildir, create=False).add(raw)  # the file synced in tmp/, linked into new/
            sync_folder(self.maildir / "new")  # the link on the disk before the mark: else a power cut takes it back
            return 0, key.encode()
        return self._connections[lane].end_mail()

    def _close(self, lane: int | None = None) -> None:
        """Close connection ``lane`` (None: all of them)."""
        for number in [lane] if lane is not None else list(self._connections):
            connection = self._connections.pop(number, None)
            if connection is not None:
                with contextlib.suppress(OSError, smtplib.SMTPException):
                    connection.quit()

    def _drop(self, lane: int) -> None:
        """Close connection ``lane`` without QUIT, which in the middle of DATA the relay would take for content."""
        connection = self._connections.pop(lane, None)
        if connection is not None:
            connection.close()

    def close(self) -> None:
        self._close()
        self._drawings.close()
        if self._lane_pool is not None:
            self._lane_pool.shutdown(wait=False, cancel_futures=True)
            self._lane_pool = None
        if self._folder is not None:
            self._folder.shutdown(wait=True)
            self._folder = None
        if self.journal is not None:
            self.journal.close()

    def _mark_sent(self, item: ClaimedMail) -> int:
        """Right after the relay's 250, one small write per mail: a crash in between re-sends at most this one
        mail (with its Message-ID, which receivers use to drop the copy). The mark's line in the journal, still
        to be synced (0: the outbox itself was marked, durably)."""
        if self.journal is not None:
            self._marked.add(item.id)  # before its line: a fold that reads the line takes it out again
            try:
                return self.journal.write(item.id, utcnow())
            except OSError:
                self._marked.discard(item.id)
                raise
        self.db.write(update(OutboxItem).where(col(OutboxItem.id) == item.id)
                      .values(status=OutboxStatus.SENT, sent_at=utcnow(), attempts=item.attempts + 1, leased_by=""))
        return 0

    def _mark_failed(self, item: ClaimedMail, error: BaseException) -> datetime | None:
        """Count the failed attempt; when the mail is tried next (None: given up)."""
        permanent = isinstance(error, smtplib.SMTPNotSupportedError | UnicodeError) or (
            isinstance(error, smtplib.SMTPRecipientsRefused)
            and all(code >= 500 for code, _ in error.recipients.values())
        )
        with self.db.transaction() as session:
            row = session.get(OutboxItem, item.id)
            if row is None:
                return None
            row.attempts += 1
            row.last_error = f"{type(error).__name__}: {error}"[:2000]
            if permanent or row.attempts >= MAX_ATTEMPTS:
                row.status = OutboxStatus.FAILED
                OUTBOX_RETRIED.labels("gave-up").inc()
                log.error("giving up on outbox %s to %s: %s", row.id, row.recipient, row.last_error)
            else:
                row.next_attempt_at = utcnow() + _backoff(row.attempts)
                OUTBOX_RETRIED.labels("retry").inc()
                log.warning("outbox %s to %s: attempt %d failed, retry at %s: %s", row.id, row.recipient,
                            row.attempts, row.next_attempt_at.strftime("%H:%M:%S"), row.last_error)
            row.leased_by = ""
            session.add(row)
            return None if row.status == OutboxStatus.FAILED else row.next_attempt_at

    def next_due_in(self) -> float | None:
        """Seconds until the earliest pending row is due (0 if now), or None when nothing waits."""
        with self.db.read() as session:
            due = session.exec(_NEXT_DUE).first()
        if due is None:
            return None
        return max(0.0, (due - utcnow()).total_seconds())
