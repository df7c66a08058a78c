"""The web listener on a real port in a thread of its own, over a test pipeline's database, and a plain client."""

from __future__ import annotations

import asyncio
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from pbem.web.site import WebServer
from tests.helpers.pipeline import Pipeline

__all__ = ["Fetched", "WebSite", "serving"]


@dataclass
class Fetched:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")


@dataclass
class WebSite:
    """A running web listener: ``get`` fetches a path the way a browser or feed reader would."""

    port: int
    fetched: list[tuple[str, Fetched]] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def get(self, path: str, method: str = "GET", headers: dict[str, str] | None = None) -> Fetched:
        request = urllib.request.Request(self.base + path, method=method, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                found = Fetched(response.status, dict(response.headers.items()), response.read())
        except urllib.error.HTTPError as error:
            found = Fetched(error.code, dict(error.headers.items()), error.read())
        self.fetched.append((path, found))
        return found


@contextmanager
def serving(pipe: Pipeline) -> Iterator[WebSite]:
    """The pipeline's database served by pbem's web listener on a free port, until the block ends."""
    loop = asyncio.new_event_loop()
    server = WebServer(pipe.db, pipe.services, "127.0.0.1", 0)
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(server.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="pbem-web-test", daemon=True)
    thread.start()
    assert ready.wait(30), "the web listener did not start"
    try:
        yield WebSite(server.port)
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()
