"""APScheduler 3 as an alarm clock: it only wakes the sweep; deadlines live in the database.

Two jobs call the same sweep: a date job at the next due moment (re-armed
after every sweep and every worker round) and a periodic safety net. Both
use ``misfire_grace_time=None``: APScheduler's default of one second
silently drops a run that was late (a busy loop, a suspended laptop), and
a dropped run here would be a missed deadline.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from apscheduler.schedulers.asyncio import AsyncIOScheduler

__all__ = ["Alarm"]

_WAKE = "pbem-wake"
_POLL = "pbem-poll"


class Alarm:
    """Runs ``sweep`` at the moments asked for with ``wake_at``, and every ``poll_seconds`` anyway."""

    def __init__(self, sweep: Callable[[], Awaitable[None]], poll_seconds: float) -> None:
        self._sweep = sweep
        self._lock = asyncio.Lock()  # the two jobs never sweep at the same time
        self.poll_seconds = poll_seconds
        self.scheduler = AsyncIOScheduler(timezone=UTC, job_defaults={
            "misfire_grace_time": None, "coalesce": True, "max_instances": 1})

    async def _run(self) -> None:
        async with self._lock:
            await self._sweep()

    def start(self) -> None:
        self.scheduler.start()
        self.scheduler.add_job(self._run, "interval", seconds=self.poll_seconds, id=_POLL, replace_existing=True)

    def wake_at(self, moment: datetime | None) -> None:
        """Run the sweep at ``moment`` (now, if it has passed); None cancels the pending wake-up."""
        if moment is None:
            if self.scheduler.get_job(_WAKE) is not None:
                self.scheduler.remove_job(_WAKE)
            return
        moment = max(moment, datetime.now(UTC))
        if self.next_wake() == moment:
            return  # already armed there: most moves leave the earliest event where it was
        self.scheduler.add_job(self._run, "date", run_date=moment, id=_WAKE, replace_existing=True)

    def next_wake(self) -> datetime | None:
        job = self.scheduler.get_job(_WAKE)
        return job.next_run_time if job is not None else None

    def shutdown(self) -> None:
        if self.scheduler.running:
            self.scheduler.shutdown(wait=False)
