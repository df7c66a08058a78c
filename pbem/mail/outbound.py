"""Outgoing mail: composing messages, and delivering the outbox to a relay or a Maildir."""

from __future__ import annotations

import contextlib
import logging
import mailbox
import smtplib
import socket
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.mime.text import MIMEText
from email.utils import format_datetime, formataddr
from pathlib import Path

from sqlmodel import col, select, update

from pbem.store.db import Database
from pbem.store.models import OutboxItem, utcnow

__all__ = ["Deliverer", "Outgoing", "SecretLeakError", "compose", "scan_for_secrets"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 30
_BACKOFF_BASE_SECONDS = 2.0
_BACKOFF_MAX_SECONDS = 3600.0
_LEASE = timedelta(minutes=5)


class SecretLeakError(RuntimeError):
    """A mail about to be queued contains a secret its recipient may not see."""


@dataclass
class Outgoing:
    """One mail to one person, before it becomes bytes in the outbox."""

    to: str
    subject: str
    body: str
    reply_to: str
    in_reply_to: str = ""
    references: Sequence[str] = ()
    auto_submitted: str = "auto-replied"
    kind: str = "reply"  # "error": a reply that only reports failures (rate-limited per recipient)
    game_id: int | None = None
    #: Strings this recipient must never see (other seats' unrevealed secrets).
    forbidden: tuple[str, ...] = field(default=(), repr=False)


def new_message_id(domain: str) -> str:
    return f"<pbem.{uuid.uuid4().hex}@{domain}>"


def _header(value: str) -> str | Header:
    """ASCII headers as they are; anything else as an RFC 2047 encoded word."""
    return value if value.isascii() else Header(value, "utf-8")


def compose(mail: Outgoing, sender: str, sender_name: str, domain: str) -> Message:
    """The RFC 5322 message for ``mail``: plain UTF-8 text, threaded, marked automatic.

    Built with the compat32 classes: the modern policy parses every header it
    is given again, which cost more than the whole move it reports.
    """
    charset = Charset("utf-8")
    charset.body_encoding = QP  # diagrams stay readable in the raw mail, unlike base64
    message = MIMEText(mail.body, "plain", "us-ascii" if mail.body.isascii() else charset)  # type: ignore[arg-type]
    message["From"] = formataddr((sender_name, sender))
    message["To"] = mail.to
    message["Reply-To"] = mail.reply_to
    message["Subject"] = _header(mail.subject)
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = new_message_id(domain)
    if mail.in_reply_to:
        message["In-Reply-To"] = mail.in_reply_to
    references = [ref for ref in dict.fromkeys(mail.references) if ref]
    if references:
        message["References"] = " ".join(references)
    message["Auto-Submitted"] = mail.auto_submitted
    message["X-Auto-Response-Suppress"] = "All"
    message["Precedence"] = "bulk" if mail.auto_submitted == "auto-generated" else "auto_reply"
    return message


def scan_for_secrets(mail: Outgoing, forbidden: Iterable[str]) -> None:
    """Raise when the mail's text (headers and body, before any transfer encoding) holds a forbidden string."""
    needles = [needle.lower() for needle in forbidden if needle]
    if not needles:
        return
    haystack = "\n".join((mail.to, mail.subject, mail.reply_to, mail.in_reply_to, *mail.references,
                          mail.body)).lower()
    for needle in needles:
        if needle in haystack:
            raise SecretLeakError(f"mail to {mail.to} would reveal a secret; not sent")


def _backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(_BACKOFF_MAX_SECONDS, _BACKOFF_BASE_SECONDS * 2 ** max(0, attempts - 1)))


class Deliverer:
    """Sends due outbox rows through the relay (or into the Maildir), oldest first."""

    def __init__(self, db: Database, smtp_host: str, smtp_port: int, maildir: str, batch: int = 50) -> None:
        self.db = db
        self.smtp_host = smtp_host
        self.smtp_port = smtp_port
        self.maildir = Path(maildir)
        self.batch = batch
        self._smtp: smtplib.SMTP | None = None

    def _claim_due(self) -> list[OutboxItem]:
        due = self.next_due_in()
        if due is None or due > 0:
            return []  # nothing due: no write lock taken
        with self.db.transaction() as session:
            statement = (
                select(OutboxItem)
                .where(OutboxItem.status == "pending", col(OutboxItem.next_attempt_at) <= utcnow())
                .order_by(col(OutboxItem.id))
                .limit(self.batch)
            )
            items = list(session.exec(self.db.claimable(statement)).all())
            # A lease: another instance (or this one after a crash) retries only once it runs out.
            for item in items:
                item.next_attempt_at = utcnow() + _LEASE
                session.add(item)
            return items

    def deliver_due(self) -> int:
        """Deliver what is due now; returns how many were sent. Failures are rescheduled."""
        items = self._claim_due()
        sent: list[OutboxItem] = []
        try:
            for item in items:
                try:
                    self._send(item)
                except (OSError, smtplib.SMTPException) as error:
                    self._close()
                    self._mark_failed(item, error)
                    if isinstance(error, (ConnectionError, socket.timeout, smtplib.SMTPServerDisconnected)):
                        break  # the relay is down: the rest waits for the next round
                    continue
                sent.append(item)
        finally:
            self._mark_sent(sent)
        return len(sent)

    def _send(self, item: OutboxItem) -> None:
        if not self.smtp_host:
            # mailbox.Maildir only creates tmp/new/cur when the folder itself is missing.
            for sub in ("tmp", "new", "cur"):
                (self.maildir / sub).mkdir(parents=True, exist_ok=True)
            mailbox.Maildir(self.maildir, create=False).add(item.raw)
            return
        if self._smtp is None:
            self._smtp = smtplib.SMTP(self.smtp_host, self.smtp_port, timeout=30)
            self._smtp.ehlo_or_helo_if_needed()
        # Null envelope sender: these are automatic replies, bounces must not loop back to us.
        refused = self._smtp.sendmail("", [item.recipient], item.raw)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)

    def _close(self) -> None:
        if self._smtp is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self._smtp.quit()
            self._smtp = None

    def close(self) -> None:
        self._close()

    def _mark_sent(self, items: list[OutboxItem]) -> None:
        # One commit per round, not per mail: a crash between a 250 and this commit re-sends
        # at most one round (with the same Message-ID, which receivers use to drop copies).
        if not items:
            return
        with self.db.transaction() as session:
            now = utcnow()
            for attempts in sorted({item.attempts for item in items}):
                ids = [item.id for item in items if item.attempts == attempts]
                session.exec(update(OutboxItem).where(col(OutboxItem.id).in_(ids))
                             .values(status="sent", sent_at=now, attempts=attempts + 1))

    def _mark_failed(self, item: OutboxItem, error: BaseException) -> None:
        permanent = isinstance(error, smtplib.SMTPRecipientsRefused) and all(
            code >= 500 for code, _ in error.recipients.values()
        )
        with self.db.transaction() as session:
            row = session.get(OutboxItem, item.id)
            if row is None:
                return
            row.attempts += 1
            row.last_error = f"{type(error).__name__}: {error}"[:2000]
            if permanent or row.attempts >= MAX_ATTEMPTS:
                row.status = "failed"
                log.error("giving up on outbox %s to %s: %s", row.id, row.recipient, row.last_error)
            else:
                row.next_attempt_at = utcnow() + _backoff(row.attempts)
                log.warning("outbox %s to %s: attempt %d failed: %s", row.id, row.recipient,
                            row.attempts, row.last_error)
            session.add(row)

    def next_due_in(self) -> float | None:
        """Seconds until the earliest pending row is due (0 if now), or None when nothing waits."""
        with self.db.read() as session:
            statement = (
                select(OutboxItem.next_attempt_at)
                .where(OutboxItem.status == "pending")
                .order_by(col(OutboxItem.next_attempt_at))
                .limit(1)
            )
            due = session.exec(statement).first()
        if due is None:
            return None
        return max(0.0, (due - utcnow()).total_seconds())
