"""Cheap reads that change whenever a page's content does: the keys of the response cache."""

from __future__ import annotations

from sqlmodel import func, select

from pbem.app.context import Context
from pbem.store.event_models import Event, Rating
from pbem.store.models import Challenge, Game

__all__ = ["event_version", "game_version", "site_version"]


def _minute(ctx: Context) -> str:
    # Clocks and deadlines are shown relative to now ("2d 3h from now"): no page is older than a minute.
    return f"{ctx.services.now():%Y%m%d%H%M}"


def game_version(ctx: Context, game_id: int) -> str | None:
    """The game's version (every move and every change bumps it); None when there is no such game."""
    version = ctx.session.exec(select(Game.version).where(Game.id == game_id)).first()
    return None if version is None else f"{version}@{_minute(ctx)}"


def event_version(ctx: Context, name: str) -> str | None:
    """The event's version and that of its games; None when there is no such event."""
    event = ctx.session.exec(select(Event.id, Event.version).where(Event.name == name)).first()
    if event is None:
        return None
    games = ctx.session.exec(select(func.sum(Game.version), func.count()).where(Game.event_id == event[0])).one()
    return f"{event[1]}-{games[0]}-{games[1]}@{_minute(ctx)}"


def site_version(ctx: Context) -> str:
    """Changes with any game, challenge, event or rating: the front page, players' and rating pages."""
    games = ctx.session.exec(select(func.max(Game.updated_at), func.count(), func.sum(Game.version))).one()
    challenges = ctx.session.exec(select(func.max(Challenge.id), func.count())
                                  .where(Challenge.status == "seeking")).one()
    events = ctx.session.exec(select(func.sum(Event.version), func.count())).one()
    ratings = ctx.session.exec(select(func.max(Rating.updated_at), func.count())).one()
    return f"{games}|{challenges}|{events}|{ratings}@{_minute(ctx)}"
