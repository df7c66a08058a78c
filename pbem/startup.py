"""What every entry point builds once: the services, with the tournament layer subscribed to finished games."""

from __future__ import annotations

from pbem.app.context import Services
from pbem.config import Config
from pbem.events.subscriptions import subscribe
from pbem.mail.addresses import AddressBook
from pbem.store.db import Database

__all__ = ["build_services"]


def build_services(config: Config, db: Database) -> Services:
    """Services for ``config`` over ``db`` (whose stored secret key signs the addresses)."""
    key = db.secret_key(config.server.secret_key)
    services = Services(config=config, addresses=AddressBook(config.server.address, config.domain, key))
    subscribe(services.signals)
    return services
