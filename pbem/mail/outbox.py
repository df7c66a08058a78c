"""Queueing outgoing mail: scan it for secrets, compose it, and store it in the outbox in the caller's transaction."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from sqlmodel import Session

from pbem.mail.addresses import AddressBook
from pbem.mail.compose import Outgoing, compose, scan_for_secrets, to_bytes
from pbem.store.models import OutboxItem

__all__ = ["SENDER_NAME", "queue_mail"]

#: The display name of every mail the server sends.
SENDER_NAME = "pbem"


def queue_mail(session: Session, mail: Outgoing, addresses: AddressBook, forbidden: Iterable[str],
               now: datetime) -> OutboxItem:
    """Store ``mail`` for delivery; raises SecretLeakError if it contains any of ``forbidden``.

    The row is part of the caller's transaction, so a mail exists exactly when
    the change it reports was committed.
    """
    scan_for_secrets(mail, (*mail.forbidden, *forbidden))
    message = compose(mail, addresses.public, SENDER_NAME, addresses.domain)
    item = OutboxItem(recipient=mail.to, message_id=str(message["Message-ID"]),
                      raw=to_bytes(message), game_id=mail.game_id, kind=mail.kind,
                      created_at=now)
    session.add(item)
    return item
