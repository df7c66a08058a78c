"""The server's counters for /metrics (Prometheus, through the official client): one registry for the process."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram

__all__ = [
    "COMPUTER_MOVES",
    "COMPUTER_SECONDS",
    "DEADLINE_EVENTS",
    "MAILS_FAILED",
    "MAILS_PROCESSED",
    "MAILS_RECEIVED",
    "MAILS_REFUSED",
    "MOVES_APPLIED",
    "OUTBOX_RETRIED",
    "OUTBOX_SENT",
    "PROCESSING_SECONDS",
    "REGISTRY",
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
