"""The mail queues as an operator sees them: counts and oldest waiting rows, failed mails, and requeueing."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import CursorResult, func, update
from sqlmodel import Session, col, select

from pbem.store.db import Database
from pbem.store.models import AnalysisRequest, Game, GameNotice, InboxItem, OutboxItem
from pbem.store.vocabulary import InboxStatus, NoticeStatus, OutboxStatus

__all__ = ["QueueCount", "failed_inbox", "failed_outbox", "queue_counts", "requeue_failed"]


@dataclass(frozen=True, slots=True)
class QueueCount:
    """The rows of one queue in one status, and when the oldest of them arrived (None: no rows)."""

    queue: str  # "inbox", "outbox", "computer" or "notices"
    status: str
    count: int
    oldest: datetime | None


def queue_counts(session: Session) -> list[QueueCount]:
    """Inbox rows by status (oldest by received_at), then outbox rows by status (oldest by created_at);
    every known status is listed, with 0 where there are none; then the computer's waiting work and the
    deadline notices waiting for the worker."""
    inbox = session.exec(select(InboxItem.status, func.count(), func.min(InboxItem.received_at))
                         .group_by(col(InboxItem.status))).all()
    outbox = session.exec(select(OutboxItem.status, func.count(), func.min(OutboxItem.created_at))
                          .group_by(col(OutboxItem.status))).all()
    found = [*_by_status("inbox", inbox, InboxStatus), *_by_status("outbox", outbox, OutboxStatus)]
    # The computer's work: games that owe a move or an answer, analyses asked by mail and not yet sent.
    games = session.exec(select(func.count(), func.min(Game.computer_due_at))
                         .where(col(Game.computer_due_at).is_not(None))).one()
    analyses = session.exec(select(func.count(), func.min(AnalysisRequest.requested_at))
                            .where(col(AnalysisRequest.done_at).is_(None))).one()
    found.append(QueueCount("computer", "games", int(games[0]), games[1]))
    found.append(QueueCount("computer", "analyses", int(analyses[0]), analyses[1]))
    # The deadline notices the sweep decided and the worker has not written yet (or could not: failed).
    notices = session.exec(select(GameNotice.status, func.count(), func.min(GameNotice.created_at))
                           .group_by(col(GameNotice.status))).all()
    found += _by_status("notices", notices, NoticeStatus)
    return found


def _by_status(queue: str, rows: Sequence[Any], known: Iterable[str]) -> list[QueueCount]:
    """One queue's (status, count, oldest) rows: every known status, 0 where there are none, then any other."""
    by_status = {str(status): (int(count), oldest) for status, count, oldest in rows}
    names = [str(status) for status in known]
    return [QueueCount(queue, status, *by_status.get(status, (0, None)))
            for status in [*names, *sorted(set(by_status) - set(names))]]


def failed_inbox(session: Session) -> Sequence[InboxItem]:
    """Inbox rows whose processing failed, oldest first."""
    return session.exec(select(InboxItem).where(InboxItem.status == InboxStatus.FAILED)
                        .order_by(col(InboxItem.id))).all()


def failed_outbox(session: Session) -> Sequence[OutboxItem]:
    """Outbox rows the delivery gave up on, oldest first."""
    return session.exec(select(OutboxItem).where(OutboxItem.status == OutboxStatus.FAILED)
                        .order_by(col(OutboxItem.id))).all()


def requeue_failed(db: Database, item_id: int | None = None) -> list[int]:
    """Put failed inbox rows (one, or all with ``item_id`` None) back to ``new`` for the worker; the ids requeued.

    One ``UPDATE ... WHERE status = 'failed'``: of two operators requeueing the same row at once, only one
    changes it (the other's condition no longer holds once the first commits), so the worker takes it once.
    The listener's reading of each goes too: the worker reads the mail afresh, with the code that runs now (a
    requeue usually follows a fix).
    """
    statement = update(InboxItem).where(col(InboxItem.status) == InboxStatus.FAILED)
    if item_id is not None:
        statement = statement.where(col(InboxItem.id) == item_id)
    statement = statement.values(status=InboxStatus.NEW, error="", processed_at=None, parsed="").returning(
        col(InboxItem.id))
    with db.transaction() as session:
        result = cast(CursorResult[Any], session.execute(statement))
        return sorted(int(row[0]) for row in result)
