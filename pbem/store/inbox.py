"""The stored mails the worker applies, read and marked with Core statements: ``StoredMail`` and its queries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlmodel import Session

from pbem.store.models import InboxItem
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import InboxStatus

__all__ = ["WAITING", "StoredMail", "mark", "new_mails", "stored_mail"]

_INBOX: Any = InboxItem.__table__  # type: ignore[attr-defined]


@dataclass(slots=True)
class StoredMail:
    """One inbox row as the worker handles it: a plain object, not an ORM entity. Loading the row as an entity,
    tracking its changes and flushing them cost 0.7 ms a mail, the two Core statements 0.3 (timed alone)."""

    id: int
    message_id: str
    envelope_from: str
    recipients: list[str]
    raw: bytes
    status: str
    error: str
    parsed: str = ""  # the listener's reading of ``raw`` (pbem.mail.inbound.reading), "" for none

    @classmethod
    def of(cls, row: Any) -> StoredMail:
        """From a row of :func:`new_mails` or :func:`stored_mail`'s query."""
        return cls(row.id, row.message_id, row.envelope_from, list(row.recipients), bytes(row.raw), row.status,
                   row.error, row.parsed)


_COLUMNS = (_INBOX.c.id, _INBOX.c.message_id, _INBOX.c.envelope_from, _INBOX.c.recipients, _INBOX.c.raw,
            _INBOX.c.status, _INBOX.c.error, _INBOX.c.parsed)
#: Whether a mail waits: one id, from the status index.
WAITING = select(_INBOX.c.id).where(_INBOX.c.status == InboxStatus.NEW).limit(1)
_NEW_MAILS = select(*_COLUMNS).where(_INBOX.c.status == InboxStatus.NEW).order_by(_INBOX.c.id)
_ONE = select(*_COLUMNS).where(_INBOX.c.id == bindparam("item_id"))
_ONE_LOCKED = _ONE.with_for_update()
_MARK = Prepared(update(_INBOX).where(_INBOX.c.id == bindparam("item_id"))
                 .values(status=bindparam("status"), error=bindparam("error"), processed_at=bindparam("processed_at")))


@lru_cache(maxsize=8)
def new_mails(batch: int) -> Any:
    """The first ``batch`` waiting mails, oldest first (the caller adds PostgreSQL's row locks); built once
    per size: building a statement cost more than running it."""
    return _NEW_MAILS.limit(batch)


def stored_mail(session: Session, item_id: int, for_update: bool = False) -> StoredMail | None:
    """The inbox row ``item_id``, whatever its status; None when there is none. ``for_update``: locked to the end of
    the transaction (PostgreSQL; SQLite's writer holds the whole file), for a check of its status that is acted on."""
    row = session.connection().execute(_ONE_LOCKED if for_update else _ONE, {"item_id": item_id}).first()
    return StoredMail.of(row) if row is not None else None


def mark(session: Session, mail: StoredMail, processed_at: datetime) -> None:
    """Write ``mail``'s status and error to its row, in the caller's transaction."""
    _MARK.execute(session, {"item_id": mail.id, "status": mail.status, "error": mail.error,
                            "processed_at": processed_at})
