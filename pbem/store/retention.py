"""Retention of mail bodies: old processed inbound and sent outbound bodies emptied, their rows and ids kept."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, func, text, update
from sqlmodel import col

from pbem.store.db import Database
from pbem.store.models import UNPURGED, InboxItem, OutboxItem
from pbem.store.vocabulary import InboxStatus, OutboxStatus

__all__ = ["Purged", "purge_old_mail"]


@dataclass(frozen=True, slots=True)
class Purged:
    """How many bodies one purge emptied."""

    inbound: int
    outbound: int


def purge_old_mail(db: Database, now: datetime, inbound_days: float, outbound_days: float) -> Purged:
    """Empty the raw bodies of inbox rows processed (``done``) and received more than ``inbound_days`` before
    ``now``, and of outbox rows sent more than ``outbound_days`` before ``now`` (queued, for a row that
    does not say when it was sent).

    The rows stay, so a stored Message-ID still absorbs a late duplicate of its mail; failed and held inbox
    rows keep their bodies (``pbem admin requeue`` and a confirmation read them again), as do mails not yet
    delivered. Games, moves and records are never touched. Idempotent: an emptied body is not counted again.
    Both statements read the partial indexes of the rows that still have a body (``UNPURGED``), so a purge
    costs the bodies it empties, not the whole history of mail.
    """
    inbound_before = now - timedelta(days=inbound_days)
    outbound_before = now - timedelta(days=outbound_days)
    with db.transaction() as session:
        inbound = cast(CursorResult[Any], session.execute(
            update(InboxItem)
            .where(col(InboxItem.status) == InboxStatus.DONE, col(InboxItem.received_at) < inbound_before,
                   text(UNPURGED))
            .values(raw=b"", parsed="")))
        outbound = cast(CursorResult[Any], session.execute(
            update(OutboxItem)
            .where(col(OutboxItem.status) == OutboxStatus.SENT,
                   func.coalesce(col(OutboxItem.sent_at), col(OutboxItem.created_at)) < outbound_before,
                   text(UNPURGED))
            .values(raw=b"", pictures="")))
    return Purged(inbound=inbound.rowcount, outbound=outbound.rowcount)
