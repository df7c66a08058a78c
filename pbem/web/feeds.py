"""Atom feeds (RFC 4287): one per game (an entry per move the public may see, and the result) and per event."""

from __future__ import annotations

from datetime import UTC, datetime
from xml.etree.ElementTree import Element, SubElement, tostring

from sqlmodel import select

from pbem.app.context import Context
from pbem.app.public import PublicGame, public_game
from pbem.store.event_models import Event
from pbem.store.models import Game
from pbem.web.pages import url_of_event

__all__ = ["event_feed", "game_feed"]

_ATOM = "http://www.w3.org/2005/Atom"


def _stamp(moment: datetime) -> str:
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).isoformat()


def _feed(title: str, feed_id: str, link: str, self_link: str, updated: datetime) -> Element:
    feed = Element("feed", xmlns=_ATOM)
    SubElement(feed, "title").text = title
    SubElement(feed, "id").text = feed_id
    SubElement(feed, "link", href=link, rel="alternate", type="text/html")
    SubElement(feed, "link", href=self_link, rel="self", type="application/atom+xml")
    SubElement(feed, "updated").text = _stamp(updated)
    SubElement(SubElement(feed, "author"), "name").text = "pbem"
    return feed


def _entry(feed: Element, title: str, entry_id: str, link: str, updated: datetime, summary: str) -> None:
    entry = SubElement(feed, "entry")
    SubElement(entry, "title").text = title
    SubElement(entry, "id").text = entry_id
    SubElement(entry, "link", href=link, rel="alternate", type="text/html")
    SubElement(entry, "updated").text = _stamp(updated)
    SubElement(entry, "summary").text = summary


def _xml(feed: Element) -> bytes:
    body: bytes = tostring(feed, encoding="utf-8", xml_declaration=False)  # typeshed: str | bytes by encoding
    return b'<?xml version="1.0" encoding="utf-8"?>\n' + body


def game_feed(ctx: Context, game_id: int, base: str) -> bytes | None:
    """The feed of game ``game_id``: newest first, one entry per visible move, one for the result."""
    game = public_game(ctx, game_id)
    if game is None:
        return None
    page = f"{base}/games/{game.id}"
    updated = game.moves[-1].played_at if game.moves else game.started_at
    if not game.active:
        updated = max(updated, game.updated_at)
    feed = _feed(f"Game {game.id}: {game.white} vs {game.black} ({game.title})", f"{page}#feed", page,
                 f"{page}.atom", updated)
    if not game.active:
        _entry(feed, f"{game.result} ({game.reason})", f"{page}#result", page, game.updated_at,
               f"Game {game.id} is over: {game.result} ({game.reason}).")
    for move in reversed(game.moves):
        who = game.players[move.seat]
        _entry(feed, f"{move.label} {move.record}", f"{page}/{move.ply}", f"{page}/{move.ply}", move.played_at,
               f"{who} played {move.label} {move.record} in game {game.id}.")
    return _xml(feed)


def event_feed(ctx: Context, name: str, base: str) -> bytes | None:
    """The feed of event ``name``: an entry per game started and per result, newest first."""
    event = ctx.session.exec(select(Event).where(Event.name == name)).first()
    if event is None:
        return None
    page = f"{base}{url_of_event(event.name)}"
    games: list[PublicGame] = [shown for game_id in ctx.session.exec(select(Game.id).where(Game.event_id == event.id))
                               if game_id is not None and (shown := public_game(ctx, game_id)) is not None]
    updated = max([event.created_at, *(g.updated_at for g in games)])
    feed = _feed(f"{event.name}: pbem event", f"{page}#feed", page, f"{page}.atom", updated)
    entries: list[tuple[datetime, str, str, str, str]] = []
    for game in games:
        link = f"{base}/games/{game.id}"
        entries.append((game.started_at, f"Game {game.id} started: {game.white} vs {game.black}",
                        f"{link}#start", link, f"{game.white} and {game.black} began game {game.id}."))
        if not game.active:
            entries.append((game.updated_at, f"Game {game.id}: {game.white} vs {game.black} {game.result}",
                            f"{link}#result", link, f"{game.result} ({game.reason})."))
    for updated_at, title, entry_id, link, summary in sorted(entries, key=lambda e: e[0], reverse=True):
        _entry(feed, title, entry_id, link, updated_at, summary)
    return _xml(feed)
