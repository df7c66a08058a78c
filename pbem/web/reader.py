"""Read-only database work for the web handlers, off the event loop, and the cache of rendered responses."""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from pbem.app.context import Context, Services
from pbem.store.db import Database

__all__ = ["Cached", "Reader", "ResponseCache"]

T = TypeVar("T")


class Reader:
    """Runs a function with a read-only Context in a worker thread, so the SMTP listener sharing the
    event loop never waits on a page."""

    def __init__(self, db: Database, services: Services) -> None:
        self.db = db
        self.services = services

    def read(self, work: Callable[[Context], T]) -> T:
        with self.db.read() as session:
            return work(Context(session=session, services=self.services))

    async def __call__(self, work: Callable[[Context], T]) -> T:
        return await asyncio.to_thread(self.read, work)


@dataclass(frozen=True)
class Cached:
    """A rendered response body with what it is served as."""

    body: bytes
    content_type: str
    etag: str
    filename: str = ""


class ResponseCache:
    """Rendered responses by (path, version): a page is rendered once per change of what it shows.

    The version is whatever the caller reads cheaply that changes with the content (a game's
    version and the minute, for its relative clock times). Least recently used entries go first.
    """

    def __init__(self, size: int = 4096) -> None:  # a page, an API document and a picture per busy game
        self._entries: OrderedDict[tuple[str, str], Cached] = OrderedDict()
        self._size = size

    def get(self, path: str, version: str) -> Cached | None:
        found = self._entries.get((path, version))
        if found is not None:
            self._entries.move_to_end((path, version))
        return found

    def put(self, path: str, version: str, body: bytes, content_type: str, filename: str = "") -> Cached:
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        entry = Cached(body, content_type, etag, filename)
        self._entries[(path, version)] = entry
        while len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return entry
