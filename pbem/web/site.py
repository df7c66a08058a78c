"""The HTTP side of ``pbem serve``: aiohttp routes for the pages, API and feeds, on the server's event loop.

Safe by construction: only GET and HEAD are served (405 otherwise), every response
carries a strict Content-Security-Policy and no cookie is ever set, unknown paths get
a 404 page and a failure a 500 page (logged), never a traceback. Responses are cached
by what they show (pbem.web.versions) and answered 304 to a matching If-None-Match.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from pbem.app.context import Context, Services
from pbem.app.public import public_position
from pbem.engine.board_view import PieceKind
from pbem.mail.render import templates_dir
from pbem.pictures.figures import figure
from pbem.pictures.render import render_png
from pbem.store.db import Database
from pbem.web import api, feeds, pages
from pbem.web.health import HealthCheck, gauge_registry, health_problems, metrics_text
from pbem.web.openapi import openapi_document
from pbem.web.reader import Cached, Reader, ResponseCache
from pbem.web.render import page
from pbem.web.versions import event_version, game_version, site_version

__all__ = ["WebServer", "make_app"]

log = logging.getLogger(__name__)

HTML = "text/html; charset=utf-8"
JSON = "application/json"
ATOM = "application/atom+xml; charset=utf-8"

SECURITY_HEADERS = {
    # Nothing runs: no script anywhere; pictures and the stylesheet come from this server only.
    "Content-Security-Policy": ("default-src 'none'; img-src 'self'; style-src 'self'; base-uri 'none'; "
                                "form-action 'none'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
Builder = Callable[[Context], Any]


class _NotFound(Exception):
    """What was asked for does not exist (or is not public yet)."""


@web.middleware
async def _guard(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Methods, error pages and security headers for every response."""
    if request.method not in ("GET", "HEAD"):
        response: web.StreamResponse = _error(405, "Method not allowed", "These pages are read-only: only GET and "
                                              "HEAD are served.", request.path)
        response.headers["Allow"] = "GET, HEAD"
    else:
        try:
            response = await handler(request)
        except (_NotFound, web.HTTPNotFound):
            response = _error(404, "Not found", f"There is nothing at {request.path}.", request.path)
        except web.HTTPException as error:
            response = _error(error.status, error.reason, error.text or error.reason, request.path)
        except Exception:
            log.exception("web: %s %s failed", request.method, request.path)
            response = _error(500, "Something went wrong", "The page could not be made; the error is logged.",
                              request.path)
    response.headers.update(SECURITY_HEADERS)
    return response


def _error(status: int, heading: str, message: str, path: str) -> web.Response:
    if path.startswith("/api/"):
        return web.Response(status=status, text=json.dumps({"error": message}), content_type=JSON)
    return web.Response(status=status, text=page("error.html", title=heading, heading=heading, message=message),
                        content_type="text/html", charset="utf-8")


class _Site:
    """The handlers, over one Reader and one response cache."""

    def __init__(self, db: Database, services: Services, loops: HealthCheck | None = None) -> None:
        self.db = db
        self.loops = loops
        self.gauges = gauge_registry(db, services.now)
        self.read = Reader(db, services)
        self.cache = ResponseCache()
        self.flights: dict[tuple[str, str], asyncio.Future[Cached | None]] = {}
        self.services = services
        self.style = (templates_dir() / "web" / "style.css").read_bytes()
        self.icon = _icon()

    def base(self, request: web.Request) -> str:
        return self.services.config.public_url or str(request.url.origin())

    async def cached(self, request: web.Request, version: Builder, build: Builder, content_type: str,
                     filename: str = "") -> web.Response:
        """The response for ``request``: from the cache while ``version`` reads the same, else built anew."""
        key = await self.read(version)
        if key is None:
            raise _NotFound
        entry = self.cache.get(request.path, key)
        if entry is None:
            # One build per (path, version): the requests that arrive while it runs wait for it instead of
            # each building the same page (50 clients of an event page at a minute's turn: 50 renders).
            flight = self.flights.get((request.path, key))
            if flight is None:
                flight = asyncio.ensure_future(self.build(request.path, key, build, content_type, filename))
                self.flights[(request.path, key)] = flight
                flight.add_done_callback(partial(self._landed, (request.path, key)))
            entry = await asyncio.shield(flight)  # a client that hangs up does not cancel the others' build
            if entry is None:
                raise _NotFound
        return _respond(request, entry)

    def _landed(self, at: tuple[str, str], flight: asyncio.Future[Cached | None]) -> None:
        self.flights.pop(at, None)
        if not flight.cancelled():
            flight.exception()  # retrieved: a failure is already answered (500) to every waiter

    async def build(self, path: str, key: str, build: Builder, content_type: str, filename: str) -> Cached | None:
        body = await self.read(build)
        if body is None:
            return None
        return self.cache.put(path, key, body if isinstance(body, bytes) else body.encode("utf-8"), content_type,
                              filename)

    # -- pages --------------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.Response:
        return await self.cached(request, site_version, pages.index_page, HTML)

    async def game(self, request: web.Request) -> web.Response:
        game_id, ply = _int(request, "game_id"), _optional_int(request, "ply")
        return await self.cached(request, lambda ctx: game_version(ctx, game_id),
                                 lambda ctx: pages.game_page(ctx, game_id, ply), HTML)

    async def picture(self, request: web.Request) -> web.Response:
        game_id, ply = _int(request, "game_id"), _int(request, "ply")

        def build(ctx: Context) -> bytes | None:
            found = public_position(ctx, game_id, ply)
            if found is None or found[1].board is None:
                return None
            return render_png(found[1].board)

        return await self.cached(request, lambda ctx: game_version(ctx, game_id, timed=False), build, "image/png")

    async def record(self, request: web.Request) -> web.Response:
        game_id, ext = _int(request, "game_id"), request.match_info["ext"]

        def build(ctx: Context) -> bytes | None:
            from pbem.app.public import public_record

            found = public_record(ctx, game_id)
            if found is None or not found[0].endswith(f".{ext}"):
                return None
            return found[2].encode("utf-8")

        media = "application/x-chess-pgn; charset=utf-8" if ext == "pgn" else "text/plain; charset=utf-8"
        return await self.cached(request, lambda ctx: game_version(ctx, game_id, timed=False), build, media,
                                 filename=f"pbem-game-{game_id}.{ext}")

    async def game_feed(self, request: web.Request) -> web.Response:
        game_id, base = _int(request, "game_id"), self.base(request)
        return await self.cached(request, lambda ctx: game_version(ctx, game_id, timed=False),
                                 lambda ctx: feeds.game_feed(ctx, game_id, base), ATOM)

    async def player(self, request: web.Request) -> web.Response:
        handle = request.match_info["handle"]
        return await self.cached(request, site_version, lambda ctx: pages.player_page(ctx, handle), HTML)

    async def event(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name.endswith(".atom"):
            name, base = name.removesuffix(".atom"), self.base(request)
            return await self.cached(request, lambda ctx: event_version(ctx, name),
                                     lambda ctx: feeds.event_feed(ctx, name, base), ATOM)
        return await self.cached(request, lambda ctx: event_version(ctx, name),
                                 lambda ctx: pages.event_page(ctx, name), HTML)

    async def ratings(self, request: web.Request) -> web.Response:
        variant = request.match_info["variant"]
        return await self.cached(request, site_version, lambda ctx: pages.ratings_page(ctx, variant), HTML)

    async def stylesheet(self, request: web.Request) -> web.Response:
        return web.Response(body=self.style, content_type="text/css", charset="utf-8",
                            headers={"Cache-Control": "public, max-age=3600"})

    async def favicon(self, request: web.Request) -> web.Response:
        # Every browser asks for it on every first visit: a 404 there is a failed load on every page.
        return web.Response(body=self.icon, content_type="image/png",
                            headers={"Cache-Control": "public, max-age=86400"})

    # -- operations -----------------------------------------------------------------------------

    async def healthz(self, request: web.Request) -> web.Response:
        stale_after = self.services.config.web.health_queue_seconds
        problems = await asyncio.to_thread(health_problems, self.db, self.services.now(), self.loops, stale_after)
        if problems:
            return web.Response(status=503, text="unhealthy: " + "; ".join(problems) + "\n",
                                headers={"Cache-Control": "no-store"})
        return web.Response(text="ok\n", headers={"Cache-Control": "no-store"})

    async def metrics(self, request: web.Request) -> web.Response:
        body = await asyncio.to_thread(metrics_text, self.gauges)
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST, "Cache-Control": "no-store"})

    # -- API ------------------------------------------------------------------------------------

    async def api_games(self, request: web.Request) -> web.Response:
        return await self.cached(request, site_version, lambda ctx: _json(api.games_document(ctx)), JSON)

    async def api_game(self, request: web.Request) -> web.Response:
        game_id = _int(request, "game_id")
        return await self.cached(request, lambda ctx: game_version(ctx, game_id),
                                 lambda ctx: _json(api.game_document(ctx, game_id)), JSON)

    async def api_position(self, request: web.Request) -> web.Response:
        game_id, ply = _int(request, "game_id"), _int(request, "ply")
        return await self.cached(request, lambda ctx: game_version(ctx, game_id),
                                 lambda ctx: _json(api.position_document(ctx, game_id, ply)), JSON)

    async def api_player(self, request: web.Request) -> web.Response:
        handle = request.match_info["handle"]
        return await self.cached(request, site_version, lambda ctx: _json(api.player_document(ctx, handle)), JSON)

    async def api_event(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        return await self.cached(request, lambda ctx: event_version(ctx, name),
                                 lambda ctx: _json(api.event_document(ctx, name)), JSON)

    async def api_ratings(self, request: web.Request) -> web.Response:
        variant = request.match_info["variant"]
        return await self.cached(request, site_version, lambda ctx: _json(api.ratings_document(ctx, variant)), JSON)

    async def api_description(self, request: web.Request) -> web.Response:
        return web.Response(text=json.dumps(openapi_document(), indent=1), content_type=JSON)


def _icon() -> bytes:
    """The site's icon: a white knight, 32 px, as PNG (browsers take PNG at /favicon.ico)."""
    out = io.BytesIO()
    figure(PieceKind.KNIGHT, True, 32).save(out, "PNG")
    return out.getvalue()


def _json(document: dict[str, Any] | None) -> bytes | None:
    """The document as UTF-8 JSON; '<', '>' and '&' as escapes, so no player's text reads as markup anywhere."""
    if document is None:
        return None
    text = json.dumps(document, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")


def _int(request: web.Request, name: str) -> int:
    value = _optional_int(request, name)
    if value is None:
        raise _NotFound
    return value


def _optional_int(request: web.Request, name: str) -> int | None:
    text = request.match_info.get(name)
    if text is None:
        return None
    if not text.isdigit() or len(text) > 9:  # the routes allow digits only; a huge number is no game
        raise _NotFound
    return int(text)


def _respond(request: web.Request, entry: Cached) -> web.Response:
    headers = {"ETag": entry.etag, "Cache-Control": "no-cache"}  # clients revalidate; 304s are cheap
    if entry.filename:
        headers["Content-Disposition"] = f'attachment; filename="{entry.filename}"'
    if entry.etag in {tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")}:
        return web.Response(status=304, headers=headers)
    content_type, _, charset = entry.content_type.partition("; charset=")
    return web.Response(body=entry.body, headers=headers, content_type=content_type, charset=charset or None)


def make_app(db: Database, services: Services, loops: HealthCheck | None = None,
             pages: bool = True) -> web.Application:
    """The web application: /healthz and /metrics, and (``pages``) every page, feed and API path."""
    site = _Site(db, services, loops)
    app = web.Application(middlewares=[_guard], client_max_size=64 * 1024)
    app.router.add_get("/healthz", site.healthz)
    app.router.add_get("/metrics", site.metrics)
    if not pages:
        return app
    digits = r"{game_id:\d+}"
    app.router.add_get("/", site.index)
    app.router.add_get("/style.css", site.stylesheet)
    app.router.add_get("/favicon.ico", site.favicon)
    app.router.add_get(f"/games/{digits}", site.game)
    app.router.add_get(f"/games/{digits}" + r"/{ply:\d+}", site.game)
    app.router.add_get(f"/games/{digits}" + r"/{ply:\d+}.png", site.picture)
    app.router.add_get(f"/games/{digits}.atom", site.game_feed)
    app.router.add_get(f"/games/{digits}" + r".{ext:pgn|txt}", site.record)
    app.router.add_get("/players/{handle}", site.player)
    app.router.add_get("/events/{name}", site.event)
    app.router.add_get("/ratings/{variant}", site.ratings)
    app.router.add_get("/api/openapi.json", site.api_description)
    app.router.add_get("/api/games", site.api_games)
    app.router.add_get(f"/api/games/{digits}", site.api_game)
    app.router.add_get(f"/api/games/{digits}" + r"/{ply:\d+}", site.api_position)
    app.router.add_get("/api/players/{handle}", site.api_player)
    app.router.add_get("/api/events/{name}", site.api_event)
    app.router.add_get("/api/ratings/{variant}", site.api_ratings)
    return app


class WebServer:
    """The web listener's life: bound in ``start`` on the running loop, closed in ``stop``."""

    def __init__(self, db: Database, services: Services, host: str, port: int, loops: HealthCheck | None = None,
                 pages: bool = True) -> None:
        self.app = make_app(db, services, loops, pages)
        self.pages = pages
        self.host, self.port = host, port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        self._runner = web.AppRunner(self.app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        self.port = self._runner.addresses[0][1]  # the bound port when 0 was asked for
        log.info("%s on http://%s:%d/", "web pages" if self.pages else "/healthz and /metrics", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
