"""The aiosmtpd handler: verify recipients at RCPT, store raw mail before the 250."""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections.abc import Callable
from email.parser import BytesHeaderParser
from email.policy import compat32
from typing import Any

from aiosmtpd.smtp import SMTP, Envelope, Session
from sqlalchemy.exc import IntegrityError
from sqlmodel import select

from pbem.mail.addresses import AddressBook
from pbem.store.db import Database
from pbem.store.models import InboxItem

__all__ = ["InboundHandler", "store_inbound"]

log = logging.getLogger(__name__)

_HEADER_PARSER = BytesHeaderParser(policy=compat32)


def message_id_of(raw: bytes, domain: str) -> str:
    """The mail's Message-ID, or a stable one made from its bytes when it has none.

    A mail re-sent without a Message-ID then still counts as a duplicate.
    """
    try:
        value = _HEADER_PARSER.parsebytes(raw).get("Message-ID")
    except Exception:  # a header block no parser can read still deserves an id
        value = None
    text = " ".join(str(value).split()) if value else ""
    if text:
        return text[:998]
    return f"<sha256.{hashlib.sha256(raw).hexdigest()}@{domain}>"


def store_inbound(db: Database, raw: bytes, envelope_from: str, recipients: list[str], domain: str) -> bool:
    """Commit the mail to the inbox; False when its Message-ID was already there (absorbed)."""
    message_id = message_id_of(raw, domain)
    try:
        with db.transaction() as session:
            if session.exec(select(InboxItem.id).where(InboxItem.message_id == message_id)).first():
                return False
            session.add(InboxItem(message_id=message_id, envelope_from=envelope_from,
                                  recipients=recipients, raw=raw))
    except IntegrityError:
        return False  # lost a race with a concurrent copy of the same mail: that copy is stored
    return True


class InboundHandler:
    """aiosmtpd handler: no parsing or game logic here, only verification and storage."""

    def __init__(self, db: Database, addresses: AddressBook, on_stored: Callable[[], None] | None = None) -> None:
        self.db = db
        self.addresses = addresses
        self.on_stored = on_stored or (lambda: None)

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        if self.addresses.verify(address) is None:
            return f"550 5.1.1 <{address}>: no such address here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        sender = envelope.mail_from or ""
        try:
            stored = await asyncio.to_thread(
                store_inbound, self.db, raw, sender, list(envelope.rcpt_tos), self.addresses.domain
            )
        except Exception:
            log.exception("could not store an inbound mail from %r", sender)
            return "451 4.3.0 temporary failure storing the message; please retry"
        if stored:
            self.on_stored()
            return "250 2.0.0 message accepted"
        return "250 2.0.0 duplicate message already accepted"

    async def handle_exception(self, error: Exception) -> str:
        log.exception("SMTP session error", exc_info=error)
        return "451 4.3.0 internal error; please retry later"


def make_smtp_factory(handler: InboundHandler, max_message_bytes: int, hostname: str) -> Callable[[], Any]:
    """A protocol factory for ``loop.create_server``."""

    def factory() -> SMTP:
        return SMTP(handler, data_size_limit=max_message_bytes, hostname=hostname,
                    ident="pbem ESMTP", enable_SMTPUTF8=True)

    return factory
