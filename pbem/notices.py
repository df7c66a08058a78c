"""The worker's second queue: the mails of the deadline notices the sweep decided, each written exactly once."""

from __future__ import annotations

import logging
import traceback
from functools import lru_cache
from typing import Any

from sqlmodel import Session, col, select

from pbem.app.context import Context, Services
from pbem.app.deadline_mails import write_notice
from pbem.app.secrecy import queue_outgoing
from pbem.store.db import Database
from pbem.store.models import Game, GameNotice
from pbem.store.vocabulary import NoticeStatus

__all__ = ["NoticeWriter"]

log = logging.getLogger(__name__)


#: The notice polls, built once (as the worker's inbox polls).
_NOTICE_WAITING = select(GameNotice.id).where(GameNotice.status == NoticeStatus.NEW).limit(1)
_NOTICE_NEW = select(GameNotice).where(GameNotice.status == NoticeStatus.NEW).order_by(col(GameNotice.id))


@lru_cache(maxsize=8)
def _new_notices(batch: int) -> Any:
    return _NOTICE_NEW.limit(batch)  # built once per size: building cost more than the poll it follows


class NoticeWriter:
    """Writes waiting notices oldest first: a notice's mails are queued and the notice deleted in one
    transaction (a crash in between leaves the notice, written again after the restart)."""

    def __init__(self, db: Database, services: Services) -> None:
        self.db = db
        self.services = services

    def write_next(self, batch: int = 1) -> bool:
        """Write up to ``batch`` waiting notices; False when none waits."""
        return self.db.work_through(_NOTICE_WAITING, _new_notices(batch), self._write_one, self._fail_one)

    def _write_one(self, session: Session, notice: GameNotice) -> None:
        game = session.exec(self.db.locked(select(Game).where(Game.id == notice.game_id))).one()
        ctx = Context(session=session, services=self.services)
        ctx.touched_games[notice.game_id] = game
        if write_notice(ctx, game, notice):
            queue_outgoing(ctx)
        session.delete(notice)

    def _fail_one(self, session: Session, notice: GameNotice, error: Exception) -> None:
        """A notice whose writing raised (its transaction is rolled back): kept, marked and logged; the other
        notices and the mails still go."""
        log.error("notice %s (%s in game %s) failed", notice.id, notice.kind, notice.game_id, exc_info=error)
        notice.status = NoticeStatus.FAILED
        notice.error = "".join(traceback.format_exception(error))[-4000:]
        session.add(notice)
