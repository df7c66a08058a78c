"""Delivering the outbox: due rows leased, sent through the relay (or into a Maildir), retried with backoff."""

from __future__ import annotations

import contextlib
import logging
import mailbox
import secrets
import smtplib
import socket
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, select, update

from pbem.mail.compose import plain_address
from pbem.mail.sent_journal import SentJournal
from pbem.metrics import OUTBOX_RETRIED, OUTBOX_SENT
from pbem.store.db import Database
from pbem.store.models import OutboxItem, utcnow
from pbem.store.vocabulary import OutboxStatus

__all__ = ["MAX_ATTEMPTS", "Deliverer", "dot_stuffed"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 30
_BACKOFF_BASE_SECONDS = 2.0
_BACKOFF_MAX_SECONDS = 3600.0
_LEASE = timedelta(minutes=5)
#: A journal's marks folded into the outbox; a row marked already (a fold repeated after a crash) stays as it is.
_FOLD = (update(OutboxItem)
         .where(col(OutboxItem.id) == bindparam("outbox_id"), col(OutboxItem.status) == OutboxStatus.PENDING)
         .values(status=OutboxStatus.SENT, sent_at=bindparam("sent"), attempts=col(OutboxItem.attempts) + 1,
                 leased_by=""))


def _backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(_BACKOFF_MAX_SECONDS, _BACKOFF_BASE_SECONDS * 2 ** max(0, attempts - 1)))



class _RelayConnection(smtplib.SMTP):
    """smtplib's client, keeping the relay's answer to the last DATA (for the delivery log line)."""

    last_data_reply: tuple[int, bytes] = (0, b"")

    def data(self, msg: Any) -> tuple[int, bytes]:
        """smtplib's DATA for the outbox's bytes (CRLF line ends already), with the dots stuffed by two
        bytes replacements: smtplib's regular expression took 0.2 ms on a mail with a picture."""
        self.putcmd("data")
        code, answer = self.getreply()
        if code != 354:
            raise smtplib.SMTPDataError(code, answer)
        raw = bytes(msg)
        self.send(b"".join((dot_stuffed(raw), b"" if raw.endswith(b"\r\n") else b"\r\n", b".\r\n")))
        self.last_data_reply = self.getreply()
        return self.last_data_reply


def dot_stuffed(raw: bytes) -> bytes:
    """``raw`` as DATA carries it (RFC 5321 4.5.2): a line that begins with a period gets one more."""
    stuffed = raw.replace(b"\n.", b"\n..")
    return b"." + stuffed if stuffed.startswith(b".") else stuffed


class Deliverer:
    """Sends due outbox rows through the relay (or into the Maildir), oldest first."""

    def __init__(self, db: Database, smtp_host: str, smtp_port: int, maildir: str, batch: int = 50) -> None:
        self.db = db
        self.smtp_host = smtp_host
        self.smtp_port = smtp_port
        self.maildir = Path(maildir)
        self.batch = batch
        self.instance = secrets.token_hex(8)  # names this process's leases
        self._smtp: _RelayConnection | None = None
        # SQLite in a file: sent marks go to a journal beside it first (see SentJournal); else to the outbox.
        self.journal = SentJournal(Path(f"{db.sqlite_file}.sent")) if db.sqlite_file is not None else None

    def _claim_due(self) -> list[OutboxItem]:
        due = self.next_due_in()
        if due is None or due > 0:
            return []  # nothing due: no write lock taken
        statement = (
            select(OutboxItem)
            .where(OutboxItem.status == OutboxStatus.PENDING, col(OutboxItem.next_attempt_at) <= utcnow())
            .order_by(col(OutboxItem.id))
            .limit(self.batch)
        )
        if self.db.is_sqlite:
            # One instance per SQLite file and one deliverer in it, whose round ends with its marks folded
            # in: nobody else could take these rows, and a restart releases every lease anyway. A lease
            # would only cost a commit (and the writers' lock) per round.
            with self.db.read() as session:
                items = list(session.exec(statement).all())
                session.expunge_all()
            return items
        with self.db.transaction() as session:
            items = list(session.exec(self.db.claimable(statement)).all())
            # A lease: another instance (or this one after a crash) retries only once it runs out.
            for item in items:
                item.next_attempt_at = utcnow() + _LEASE
                item.leased_by = self.instance
                session.add(item)
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

    def deliver_due(self) -> int:
        """Deliver what is due now; returns how many were sent. Failures are rescheduled."""
        # Marks a failed fold left behind go in first: on SQLite a round reads its mails without a
        # lease, and a sent mail must not be read as due again.
        self.fold()
        try:
            return self._deliver_round()
        finally:
            self.fold()

    def fold(self) -> int:
        """Write the journal's sent marks into the outbox, in one transaction; how many there were."""
        if self.journal is None:
            return 0
        with self.journal.folding() as marks:
            if marks:
                # On disk (synced after the writers' lock is let go) before the journal is emptied.
                with self.db.transaction() as session:
                    session.connection().execute(_FOLD, [{"outbox_id": number, "sent": when} for number, when in marks])
            return len(marks)

    def _deliver_round(self) -> int:
        sent = 0
        items = self._claim_due()
        if items:
            # The worker commits without waiting for the disk (Database.transaction): what these mails
            # report must be on disk before they leave, or a power cut could take back a move already told.
            self.db.sync_to_disk()
        for index, item in enumerate(items):
            try:
                self._send(item)
            except (OSError, smtplib.SMTPException, UnicodeError) as error:
                self._close()
                retry_at = self._mark_failed(item, error)
                if isinstance(error, (ConnectionError, socket.timeout, smtplib.SMTPServerDisconnected)):
                    # The relay is down: the rest of the round retries with this mail, not after the lease.
                    self._reschedule([other.id for other in items[index + 1:]], retry_at or utcnow())
                    break
                continue
            self._mark_sent(item)
            OUTBOX_SENT.inc()
            sent += 1
        return sent

    def _reschedule(self, ids: list[int | None], when: datetime) -> None:
        if ids:
            self.db.write(update(OutboxItem).where(col(OutboxItem.id).in_(ids))
                          .values(next_attempt_at=when, leased_by=""))

    def _send(self, item: OutboxItem) -> None:
        if not self.smtp_host:
            # mailbox.Maildir only creates tmp/new/cur when the folder itself is missing.
            for sub in ("tmp", "new", "cur"):
                (self.maildir / sub).mkdir(parents=True, exist_ok=True)
            key = mailbox.Maildir(self.maildir, create=False).add(item.raw)
            log.info("outbox %s to %s delivered (%d bytes): written to the Maildir as %s", item.id, item.recipient,
                     len(item.raw), key)
            return
        if self._smtp is None:
            self._smtp = _RelayConnection(self.smtp_host, self.smtp_port, timeout=30)
            self._smtp.ehlo_or_helo_if_needed()
        recipient = plain_address(item.recipient).encode("ascii", "surrogateescape").decode("utf-8", "replace")
        # An internationalised mailbox (RFC 6531) needs SMTPUTF8; a relay without it refuses
        # with SMTPNotSupportedError, which is permanent (see _mark_failed).
        options = [] if recipient.isascii() else ["SMTPUTF8"]
        # Null envelope sender: these are automatic replies, bounces must not loop back to us.
        refused = self._smtp.sendmail("", [recipient], item.raw, mail_options=options)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)
        code, answer = self._smtp.last_data_reply
        log.info("outbox %s to %s delivered (%d bytes): relay said %d %s", item.id, item.recipient, len(item.raw),
                 code, answer.decode("utf-8", "replace")[:200])

    def _close(self) -> None:
        if self._smtp is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self._smtp.quit()
            self._smtp = None

    def close(self) -> None:
        self._close()
        if self.journal is not None:
            self.journal.close()

    def _mark_sent(self, item: OutboxItem) -> None:
        # Right after the relay's 250, one small synced write per mail: a crash in between re-sends
        # at most this one mail (with its Message-ID, which receivers use to drop the copy).
        if self.journal is not None:
            assert item.id is not None
            self.journal.record(item.id, utcnow())
            return
        self.db.write(update(OutboxItem).where(col(OutboxItem.id) == item.id)
                      .values(status=OutboxStatus.SENT, sent_at=utcnow(), attempts=item.attempts + 1, leased_by=""))

    def _mark_failed(self, item: OutboxItem, error: BaseException) -> datetime | None:
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
            statement = (
                select(OutboxItem.next_attempt_at)
                .where(OutboxItem.status == OutboxStatus.PENDING)
                .order_by(col(OutboxItem.next_attempt_at))
                .limit(1)
            )
            due = session.exec(statement).first()
        if due is None:
            return None
        return max(0.0, (due - utcnow()).total_seconds())
