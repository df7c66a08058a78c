"""What every entry point builds once: the services, with the tournament layer subscribed to finished games;
and what a long-lived process loads before it freezes its heap."""

from __future__ import annotations

from pbem.app.context import Services
from pbem.config import Config
from pbem.events.subscriptions import subscribe
from pbem.mail.addresses import AddressBook
from pbem.store.db import Database
from pbem.variants import all_variants

__all__ = ["build_services", "load_variants"]


def build_services(config: Config, db: Database) -> Services:
    """Services for ``config`` over ``db`` (whose stored secret key signs the addresses)."""
    key = db.secret_key(config.server.secret_key)
    services = Services(config=config, addresses=AddressBook(config.server.address, config.domain, key))
    subscribe(services.signals)
    return services


def load_variants() -> int:
    """Import every variant with its move tables; how many there are.

    ``pbem serve`` and its worker process call this before ``freeze_startup_heap``. Loaded on first use
    instead, the variants cost the first mail after a start 320 ms, and their 69,000 long-lived objects
    (a third of the heap) stayed where every full collection walks them.
    """
    return len(all_variants())
