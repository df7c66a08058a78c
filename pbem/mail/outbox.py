"""Queueing outgoing mail: scan it for secrets, compose it, and store it in the outbox in the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session

from pbem.mail.addresses import AddressBook
from pbem.mail.compose import Outgoing, compose, scan_for_secrets
from pbem.store.models import OutboxItem, utcnow
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import OutboxStatus

__all__ = ["SENDER_NAME", "queue_mail"]

#: The display name of every mail the server sends.
SENDER_NAME = "pbem"


def queue_mail(session: Session, mail: Outgoing, addresses: AddressBook, forbidden: Iterable[str],
               now: datetime) -> str:
    """Store ``mail`` for delivery; its Message-ID. Raises SecretLeakError if it contains any of ``forbidden``.

    The row is part of the caller's transaction, so a mail exists exactly when the change it
    reports was committed. It is written with a prepared insert on the session's connection:
    nothing reads it back in the transaction, and an ORM object per mail cost more than the insert.
    """
    scan_for_secrets(mail, (*mail.forbidden, *forbidden))
    composed = compose(mail, addresses.public, SENDER_NAME, addresses.domain)
    message_id = composed.message_id
    _INSERT.execute(session, {
        "recipient": mail.to, "message_id": message_id, "raw": composed.raw, "pictures": composed.pictures,
        "game_id": mail.game_id,
        "kind": mail.kind, "status": OutboxStatus.PENDING, "attempts": 0, "next_attempt_at": utcnow(),
        "leased_by": "", "last_error": "", "created_at": now, "sent_at": None})
    return message_id


#: Every column given (SQLModel's defaults live on the model, not the table).
_INSERT = Prepared.insert(OutboxItem.__table__, (  # type: ignore[attr-defined]
    "recipient", "message_id", "raw", "pictures", "game_id", "kind", "status", "attempts", "next_attempt_at",
    "leased_by", "last_error", "created_at", "sent_at"))
