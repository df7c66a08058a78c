"""The server's counters for /metrics (Prometheus, through the official client): one registry for the process."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.metrics_core import Metric

__all__ = [
    "COMPUTER_MOVES",
    "COMPUTER_SECONDS",
    "DEADLINE_EVENTS",
    "MAILS_DRAWN",
    "MAILS_FAILED",
    "MAILS_PROCESSED",
    "MAILS_RECEIVED",
    "MAILS_REFUSED",
    "MOVES_APPLIED",
    "OTHER_PROCESSES",
    "OUTBOX_RETRIED",
    "OUTBOX_SENT",
    "PROCESSING_SECONDS",
    "REGISTRY",
    "Figures",
    "ProcessFigures",
    "figures",
]

#: pbem's own registry (not the client's global one): /metrics shows pbem's figures and the gauges read
#: from the database at scrape time (pbem.web.health), nothing a library registered by itself.
REGISTRY = CollectorRegistry(auto_describe=True)

MAILS_RECEIVED = Counter("pbem_mails_received", "Mails accepted by the SMTP listener (duplicates included)",
                         ["outcome"], registry=REGISTRY)
MAILS_REFUSED = Counter("pbem_mails_refused", "Recipients refused at RCPT", ["reason"], registry=REGISTRY)
MAILS_PROCESSED = Counter("pbem_mails_processed", "Inbox mails the worker finished, by result", ["status"],
                          registry=REGISTRY)
MAILS_FAILED = Counter("pbem_mails_failed", "Inbox mails whose processing raised (kept as failed)",
                       registry=REGISTRY)
OUTBOX_SENT = Counter("pbem_outbox_sent", "Mails delivered to the relay or the Maildir", registry=REGISTRY)
MAILS_DRAWN = Counter("pbem_mails_drawn", "Mails whose board pictures were drawn in at delivery, by where: the "
                      "picture process, or the server's own process while that was down", ["where"],
                      registry=REGISTRY)
OUTBOX_RETRIED = Counter("pbem_outbox_retried", "Failed delivery attempts, by what followed", ["then"],
                         registry=REGISTRY)
MOVES_APPLIED = Counter("pbem_moves_applied", "Turns played, by variant", ["variant"], registry=REGISTRY)
DEADLINE_EVENTS = Counter("pbem_deadline_events", "Reminders, late notices and time-outs applied by the sweep",
                          ["event"], registry=REGISTRY)
PROCESSING_SECONDS = Histogram("pbem_processing_seconds", "Time the worker spent on one inbox mail",
                               buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
                               registry=REGISTRY)
COMPUTER_MOVES = Counter("pbem_computer_turns", "The computer's finished turns: game moves and answers, analyses",
                         ["kind"], registry=REGISTRY)
COMPUTER_SECONDS = Histogram("pbem_computer_search_seconds", "Time one search of the computer took",
                             buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0), registry=REGISTRY)


@cache
def labelled(metric: Counter, *values: str) -> Any:
    """``metric.labels(*values)``, looked up once: ``labels`` takes a lock and checks its values at every call, a
    hot path's counters count every mail. Made on first use, so /metrics shows no child before its first event."""
    return metric.labels(*values)


#: One sample's name and labels, and its value: what a process reports of its counts.
Figures = dict[tuple[str, tuple[tuple[str, str], ...]], float]

#: Suffixes by which a sample belongs to its family (a counter's _total, a histogram's buckets, count and sum).
_SUFFIXES = ("", "_total", "_bucket", "_count", "_sum")


def figures() -> Figures:
    """This process's counts, sample by sample (creation times left out): what the mail worker process
    sends the server after each round."""
    counts: Figures = {}
    for family in REGISTRY.collect():
        for sample in family.samples:
            if not sample.name.endswith("_created"):
                counts[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return counts


class ProcessFigures:
    """The counts of the server's other processes (its mail worker), added to its own at /metrics.

    A process reports its whole counts each time; when it dies its last report is kept, so the
    server's counters never go backwards when a new worker process starts from zero.
    """

    def __init__(self) -> None:
        self._ended: Figures = {}
        self._live: dict[str, Figures] = {}

    def update(self, process: str, counts: Figures) -> None:
        self._live[process] = counts

    def ended(self, process: str) -> None:
        for key, value in self._live.pop(process, {}).items():
            self._ended[key] = self._ended.get(key, 0.0) + value

    def _others(self) -> Figures:
        total = dict(self._ended)
        for counts in self._live.values():
            for key, value in counts.items():
                total[key] = total.get(key, 0.0) + value
        return total

    def collect(self) -> Iterator[Metric]:
        """Each family of this process's registry with the other processes' counts added, sample by sample."""
        others = self._others()
        for family in REGISTRY.collect():
            merged = Metric(family.name, family.documentation, family.type, family.unit)
            names = {family.name + suffix for suffix in _SUFFIXES}
            mine = set()
            for sample in family.samples:
                key = (sample.name, tuple(sorted(sample.labels.items())))
                mine.add(key)
                merged.add_sample(sample.name, sample.labels, sample.value + others.get(key, 0.0),
                                  sample.timestamp, sample.exemplar)
            for key, value in others.items():
                if key[0] in names and key not in mine:  # labels only the other processes have seen
                    merged.add_sample(key[0], dict(key[1]), value)
            yield merged


#: The server's one view of its processes' counts (the mail worker's reports arrive here).
OTHER_PROCESSES = ProcessFigures()
