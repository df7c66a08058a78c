"""/healthz and /metrics: whether the server works, and its figures in the Prometheus text format."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import text
from sqlmodel import col, func, select

from pbem.metrics import OTHER_PROCESSES
from pbem.store.db import Database
from pbem.store.models import Game, InboxItem, OutboxItem
from pbem.store.vocabulary import GameStatus, InboxStatus, OutboxStatus

__all__ = ["HealthCheck", "QueueGauges", "gauge_registry", "health_problems", "metrics_text"]

#: What the server says about its own loops: a reason per loop that is not alive ([] when all are).
HealthCheck = Callable[[], list[str]]


def _age(oldest: datetime | None, now: datetime) -> float:
    return max(0.0, (now - oldest).total_seconds()) if oldest is not None else 0.0


def health_problems(db: Database, now: datetime, loops: HealthCheck | None, stale_after: float) -> list[str]:
    """Why the server is not healthy; [] when it is: the database answers, the loops run, the inbox moves."""
    try:
        with db.read() as session:
            session.execute(text("SELECT 1"))
            oldest = session.exec(select(func.min(InboxItem.received_at))
                                  .where(InboxItem.status == InboxStatus.NEW)).one()
    except Exception as error:  # whatever the driver raises, the answer is "not reachable"
        return [f"database not reachable: {type(error).__name__}"]
    problems = list(loops()) if loops is not None else []
    age = _age(oldest, now)
    if age > stale_after:
        problems.append(f"oldest unprocessed mail waits {age:.0f} s (limit {stale_after:.0f} s)")
    return problems


class QueueGauges(Collector):
    """Gauges read from the database at each scrape: queues by status and their oldest item, active games."""

    def __init__(self, db: Database, now: Callable[[], datetime]) -> None:
        self.db = db
        self.now = now

    def collect(self) -> Iterator[GaugeMetricFamily]:
        now = self.now()
        with self.db.read() as session:
            inbox = dict(session.exec(select(InboxItem.status, func.count()).group_by(col(InboxItem.status))).all())
            outbox = dict(session.exec(select(OutboxItem.status, func.count())
                                       .group_by(col(OutboxItem.status))).all())
            oldest_in = session.exec(select(func.min(InboxItem.received_at))
                                     .where(InboxItem.status == InboxStatus.NEW)).one()
            oldest_out = session.exec(select(func.min(OutboxItem.created_at))
                                      .where(OutboxItem.status == OutboxStatus.PENDING)).one()
            active = session.exec(select(func.count()).select_from(Game)
                                  .where(Game.status == GameStatus.ACTIVE)).one()
            thinking = session.exec(select(func.count(), func.min(Game.computer_due_at))
                                    .where(col(Game.computer_due_at).is_not(None))).one()
        queue = GaugeMetricFamily("pbem_queue_items", "Mails in the inbox and outbox, by status",
                                  labels=["queue", "status"])
        for name in InboxStatus:
            queue.add_metric(["inbox", name.value], float(inbox.get(name.value, 0)))
        for kind in OutboxStatus:
            queue.add_metric(["outbox", kind.value], float(outbox.get(kind.value, 0)))
        yield queue
        age = GaugeMetricFamily("pbem_queue_oldest_seconds", "Age of the oldest waiting mail", labels=["queue"])
        age.add_metric(["inbox"], _age(oldest_in, now))
        age.add_metric(["outbox"], _age(oldest_out, now))
        yield age
        yield GaugeMetricFamily("pbem_games_active", "Games being played", value=float(active))
        yield GaugeMetricFamily("pbem_computer_due", "Games waiting for the computer's move or answer",
                                value=float(thinking[0]))
        yield GaugeMetricFamily("pbem_computer_oldest_due_seconds", "How long the longest-waiting game has waited "
                                "for the computer", value=_age(thinking[1], now))


def gauge_registry(db: Database, now: Callable[[], datetime]) -> CollectorRegistry:
    """A registry of this server's database gauges (each server its own: tests run several in one process)."""
    registry = CollectorRegistry(auto_describe=True)
    registry.register(QueueGauges(db, now))
    return registry


#: The server's counters with its mail worker process's added (pbem.metrics.ProcessFigures).
_COUNTERS = CollectorRegistry(auto_describe=False)
_COUNTERS.register(OTHER_PROCESSES)


def metrics_text(gauges: CollectorRegistry) -> bytes:
    """The server's counters (pbem.metrics, its mail worker process's added) and its gauges, in the
    Prometheus text format."""
    return generate_latest(_COUNTERS) + generate_latest(gauges)

