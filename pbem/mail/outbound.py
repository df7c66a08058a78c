"""Outgoing mail: composing messages, and delivering the outbox to a relay or a Maildir."""

from __future__ import annotations

import contextlib
import logging
import mailbox
import re
import secrets
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
from email.policy import Policy
from email.utils import format_datetime, formataddr
from pathlib import Path

from sqlmodel import col, select, update

from pbem.store.db import Database
from pbem.store.models import OutboxItem, utcnow

__all__ = ["Deliverer", "Outgoing", "SecretLeakError", "compose", "message_ids", "scan_for_secrets"]

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 30
_BACKOFF_BASE_SECONDS = 2.0
_BACKOFF_MAX_SECONDS = 3600.0
_LEASE = timedelta(minutes=5)
_SURROGATE = re.compile(r"[\ud800-\udfff]")


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


# Header values come partly from inbound mail (subjects, Message-IDs, sender addresses): whatever
# they hold, a reply's header block must stay exactly the lines written here.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_MSGID = re.compile(r"<[!-;=?-~]{1,250}>")  # printable ASCII without '<' '>'; fits a 998-octet line
_MAX_SUBJECT = 300
_MAX_REFERENCES = 30
_FOLD = 78


class _Folded(str):
    """A header already folded by :func:`compose`: every policy writes it exactly as it is.

    policy.SMTP would otherwise refold long values itself, turning a Message-ID longer than
    a line into RFC 2047 encoded words (threading breaks), and it cannot write a compat32
    ``Header`` at all. ``fold`` is what the modern policies call on header objects.
    """

    name: str

    def __new__(cls, name: str, lines: list[str]) -> _Folded:
        folded = super().__new__(cls, "\n ".join(lines))
        folded.name = name
        return folded

    def fold(self, *, policy: Policy) -> str:
        linesep = policy.linesep or "\n"
        first, *rest = self.split("\n")
        return linesep.join([f"{self.name}: {first}".rstrip(), *rest]) + linesep


def _one_line(value: str) -> str:
    """Controls, line breaks and lone surrogates out; runs of whitespace one space."""
    return " ".join(_CONTROL.sub(" ", value).split())


def _text_header(name: str, value: str) -> _Folded:
    """Free text (a subject): one line, bounded, RFC 2047 encoded words where not ASCII."""
    text = _one_line(value)
    if len(text) > _MAX_SUBJECT:
        text = text[:_MAX_SUBJECT - 3].rstrip() + "..."
    header = Header(text, "us-ascii" if text.isascii() else "utf-8", header_name=name)
    return _Folded(name, header.encode(linesep="\n", maxlinelen=_FOLD).split("\n "))


def _address(value: str) -> str:
    """One plain address as a header value: an IDN domain in its ASCII form (RFC 5890), a
    non-ASCII local part as UTF-8 (RFC 6532; such mail needs SMTPUTF8 to be relayed)."""
    address = "".join(_one_line(value).split())
    if address.isascii():
        return address
    local, at, domain = address.rpartition("@")
    if at:
        with contextlib.suppress(UnicodeError):
            domain = domain.encode("idna").decode("ascii")
        address = f"{local}@{domain}"
    # Surrogate escapes are what the policies write out as raw 8-bit bytes.
    return address.encode("utf-8").decode("ascii", "surrogateescape")


def _address_header(name: str, value: str) -> _Folded:
    return _Folded(name, [_address(value)])


def message_ids(values: Iterable[str]) -> list[str]:
    """The well-formed msg-ids in ``values``, each once, in order; anything else is dropped."""
    found: list[str] = []
    for value in values:
        found.extend(_MSGID.findall(value))
    return list(dict.fromkeys(found))


def _ids_header(name: str, ids: list[str]) -> _Folded:
    lines = [ids[0]]
    for msgid in ids[1:]:
        if len(lines[-1]) + 1 + len(msgid) + (len(name) + 2 if len(lines) == 1 else 1) <= _FOLD:
            lines[-1] += " " + msgid
        else:
            lines.append(msgid)
    if len(lines[0]) + len(name) + 2 > _FOLD:
        lines.insert(0, "")  # "In-Reply-To:" alone, the long id on the next line
    return _Folded(name, lines)


def compose(mail: Outgoing, sender: str, sender_name: str, domain: str) -> Message:
    """The RFC 5322 message for ``mail``: plain UTF-8 text, threaded, marked automatic.

    Built with the compat32 classes: the modern policy parses every header it
    is given again, which cost more than the whole move it reports. Every header
    is folded here (see :class:`_Folded`): the values may come from hostile mail.
    """
    charset = Charset("utf-8")
    charset.body_encoding = QP  # diagrams stay readable in the raw mail, unlike base64
    body = _SURROGATE.sub("\ufffd", mail.body)
    message = MIMEText(body, "plain", "us-ascii" if body.isascii() else charset)  # type: ignore[arg-type]
    message["From"] = _Folded("From", [formataddr((_one_line(sender_name), _address(sender)))])
    message["To"] = _address_header("To", mail.to)
    message["Reply-To"] = _address_header("Reply-To", mail.reply_to)
    message["Subject"] = _text_header("Subject", mail.subject)
    message["Date"] = format_datetime(datetime.now(UTC))
    message["Message-ID"] = new_message_id(domain)
    in_reply_to = message_ids([mail.in_reply_to])
    if in_reply_to:
        message["In-Reply-To"] = _ids_header("In-Reply-To", in_reply_to[:1])
    references = message_ids(mail.references)
    if len(references) > _MAX_REFERENCES:  # the thread root and the latest, as RFC 5322 3.6.4 suggests
        references = [references[0], *references[-(_MAX_REFERENCES - 1):]]
    if references:
        message["References"] = _ids_header("References", references)
    auto_submitted = _one_line(mail.auto_submitted) or "auto-replied"
    message["Auto-Submitted"] = auto_submitted
    message["X-Auto-Response-Suppress"] = "All"
    message["Precedence"] = "bulk" if auto_submitted == "auto-generated" else "auto_reply"
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
        self.instance = secrets.token_hex(8)  # names this process's leases
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
        with self.db.transaction() as session:
            result = session.exec(update(OutboxItem).where(OutboxItem.status == "pending",
                                                          OutboxItem.leased_by != "")
                                  .values(next_attempt_at=utcnow(), leased_by=""))
            return int(result.rowcount or 0)

    def deliver_due(self) -> int:
        """Deliver what is due now; returns how many were sent. Failures are rescheduled."""
        sent = 0
        items = self._claim_due()
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
            mailbox.Maildir(self.maildir, create=False).add(item.raw)
            return
        if self._smtp is None:
            self._smtp = smtplib.SMTP(self.smtp_host, self.smtp_port, timeout=30)
            self._smtp.ehlo_or_helo_if_needed()
        recipient = _address(item.recipient).encode("ascii", "surrogateescape").decode("utf-8", "replace")
        # An internationalised mailbox (RFC 6531) needs SMTPUTF8; a relay without it refuses
        # with SMTPNotSupportedError, which is permanent (see _mark_failed).
        options = [] if recipient.isascii() else ["SMTPUTF8"]
        # Null envelope sender: these are automatic replies, bounces must not loop back to us.
        refused = self._smtp.sendmail("", [recipient], item.raw, mail_options=options)
        if refused:
            raise smtplib.SMTPRecipientsRefused(refused)

    def _close(self) -> None:
        if self._smtp is not None:
            with contextlib.suppress(OSError, smtplib.SMTPException):
                self._smtp.quit()
            self._smtp = None

    def close(self) -> None:
        self._close()

    def _mark_sent(self, item: OutboxItem) -> None:
        # Right after the relay's 250, one small commit per mail: a crash in between re-sends
        # at most this one mail (with its Message-ID, which receivers use to drop the copy).
        self.db.write(update(OutboxItem).where(col(OutboxItem.id) == item.id)
                      .values(status="sent", sent_at=utcnow(), attempts=item.attempts + 1, leased_by=""))

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
                row.status = "failed"
                log.error("giving up on outbox %s to %s: %s", row.id, row.recipient, row.last_error)
            else:
                row.next_attempt_at = utcnow() + _backoff(row.attempts)
                log.warning("outbox %s to %s: attempt %d failed: %s", row.id, row.recipient,
                            row.attempts, row.last_error)
            row.leased_by = ""
            session.add(row)
            return None if row.status == "failed" else row.next_attempt_at

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
