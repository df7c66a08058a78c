"""Cheap reads that change whenever a page's content does: the keys of the response cache."""

from __future__ import annotations

from datetime import timedelta

from sqlmodel import func, select

from pbem.app.context import Context
from pbem.store.event_models import Event, Rating
from pbem.store.models import Challenge, ComputerRating, Game

__all__ = ["event_version", "game_version", "site_version"]


def _minute(ctx: Context, spread: int = 0) -> str:
    # Clocks and deadlines are shown relative to now ("2d 3h from now"): no page is older than a minute.
    # Each game's (event's) minute turns at its own second, so the pages of all games do not expire at
    # once: made anew together, they kept a server at 500 requests/s seconds behind at every minute's turn.
    return f"{ctx.services.now() - timedelta(seconds=spread % 60):%Y%m%d%H%M}"


def game_version(ctx: Context, game_id: int, timed: bool = True) -> str | None:
    """The game's version (every move and every change bumps it); None when there is no such game.

    ``timed=False`` for what never shows the time (pictures, records, feeds): kept past the minute's turn."""
    version = ctx.session.exec(select(Game.version).where(Game.id == game_id)).first()
    if version is None:
        return None
    return f"{version}@{_minute(ctx, game_id)}" if timed else str(version)


def event_version(ctx: Context, name: str) -> str | None:
    """The event's version and that of its games; None when there is no such event."""
    event = ctx.session.exec(select(Event.id, Event.version).where(Event.name == name)).first()
    if event is None:
        return None
    games = ctx.session.exec(select(func.sum(Game.version), func.count()).where(Game.event_id == event[0])).one()
    return f"{event[1]}-{games[0]}-{games[1]}@{_minute(ctx, event[0] or 0)}"


def site_version(ctx: Context) -> str:
    """Changes with any game, challenge, event or rating: the front page, players' and rating pages."""
    games = ctx.session.exec(select(func.max(Game.updated_at), func.count(), func.sum(Game.version))).one()
    challenges = ctx.session.exec(select(func.max(Challenge.id), func.count())
                                  .where(Challenge.status == "seeking")).one()
    events = ctx.session.exec(select(func.sum(Event.version), func.count())).one()
    ratings = ctx.session.exec(select(func.max(Rating.updated_at), func.count())).one()
    computer = ctx.session.exec(select(func.max(ComputerRating.updated_at), func.count())).one()
    return f"{games}|{challenges}|{events}|{ratings}|{computer}@{_minute(ctx)}"
