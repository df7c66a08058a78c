"""The HTML pages: what each shows, built from the public views (pbem.app.public) and the events' tables."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sqlmodel import col, func, select

from pbem.app.computer import COMPUTER_HANDLE, LEVEL_RATINGS
from pbem.app.context import Context
from pbem.app.news import is_computer_name
from pbem.app.public import (
    PublicGame,
    computer_rating_list,
    game_list,
    open_seeks,
    player_games,
    public_game,
    public_position,
    rating_list,
)
from pbem.engine.base import Seat
from pbem.events.formats.registry import format_of
from pbem.events.ratings import Elo
from pbem.events.store import load
from pbem.events.tables import crosstable, standings_table, summary
from pbem.store.event_models import Event, Rating
from pbem.store.models import Account, Game
from pbem.store.vocabulary import EventFormat
from pbem.variants import all_variants, get_variant
from pbem.web.render import page

__all__ = ["event_page", "find_account", "game_page", "index_page", "not_found_page", "player_page",
           "ratings_page", "result_for", "url_of_event", "url_of_player"]


def url_of_player(handle: str) -> str:
    """The page of the player a game names (the computer, named with its level, has one page: its account's)."""
    if is_computer_name(handle):
        handle = COMPUTER_HANDLE
    return f"/players/{quote(handle, safe='')}"


def url_of_event(name: str) -> str:
    return f"/events/{quote(name, safe='')}"


def result_for(game: PublicGame, handle: str) -> str:
    """Win, loss or draw for ``handle`` in a finished game."""
    if game.result == "1/2-1/2":
        return "draw"
    won = (game.result == "1-0" and game.white == handle) or (game.result == "0-1" and game.black == handle)
    return "win" if won else ("loss" if game.result in ("1-0", "0-1") else game.result)


def index_page(ctx: Context) -> str:
    events = ctx.session.exec(select(Event).order_by(col(Event.id).desc()).limit(20)).all()
    return page("index.html", title="pbem: correspondence space chess",
                active=game_list(ctx, active=True, limit=30), finished=game_list(ctx, active=False, limit=20),
                seeks=open_seeks(ctx), events=[(event, url_of_event(event.name), get_variant(event.variant).title,
                                                EventFormat(event.format).label) for event in events],
                variants=[(cls.key, cls.title) for cls in all_variants()], url_of_player=url_of_player)


def game_page(ctx: Context, game_id: int, ply: int | None = None) -> str | None:
    """The game at ``ply`` (None: the latest position the public may see); None when there is no such page."""
    found = public_position(ctx, game_id, ply)
    if found is None:
        return None
    game, view = found
    shown_ply = game.visible_ply if ply is None else ply
    event = ctx.session.get(Event, game.event_id) if game.event_id else None
    record_ext = "pgn" if _exports_pgn(game) else "txt"
    return page("game.html", title=f"Game {game.id}: {game.white} vs {game.black} ({game.title})", game=game,
                view=view, ply=shown_ply, latest=shown_ply == game.visible_ply,
                picture=f"/games/{game.id}/{shown_ply}.png" if view.board is not None else "",
                record_url=f"/games/{game.id}.{record_ext}", record_ext=record_ext,
                event=(event.name, url_of_event(event.name)) if event else None,
                last_move=game.moves[shown_ply - 1] if shown_ply else None,
                url_of_player=url_of_player, Seat=Seat)


def _exports_pgn(game: PublicGame) -> bool:
    from pbem.engine.capabilities import RecordExport

    return isinstance(get_variant(game.variant), RecordExport)


def find_account(ctx: Context, handle: str) -> Account | None:
    return ctx.session.exec(select(Account).where(func.lower(Account.handle) == handle.lower())).first()


@dataclass(frozen=True)
class _Standing:
    variant: str
    title: str
    elo: Elo
    url: str


def player_page(ctx: Context, handle: str) -> str | None:
    account = find_account(ctx, handle)
    if account is None or account.id is None:
        return None
    games = player_games(ctx, account)
    ratings = [_Standing(row.variant, get_variant(row.variant).title, Elo(row.rating, row.games),
                         f"/ratings/{row.variant}")
               for row in ctx.session.exec(select(Rating).where(Rating.account_id == account.id)
                                           .order_by(col(Rating.variant))).all()]
    finished = [game for game in games if not game.active]
    outcomes = [result_for(game, account.handle) for game in finished]
    tally = {word: outcomes.count(word) for word in ("win", "draw", "loss")}
    return page("player.html", title=f"{account.handle}: games and ratings", handle=account.handle,
                active=[game for game in games if game.active], finished=finished, ratings=ratings, tally=tally,
                since=account.created_at, result_for=result_for, url_of_player=url_of_player)


def event_page(ctx: Context, name: str) -> str | None:
    event = ctx.session.exec(select(Event).where(Event.name == name)).first()
    if event is None:
        return None
    data = load(ctx.session, event)
    rounds: dict[int, list[PublicGame]] = {}
    for game in data.games:
        if game.id is not None and (shown := public_game(ctx, game.id)) is not None:
            rounds.setdefault(game.event_round, []).append(shown)
    fmt = format_of(event.format)
    return page("event.html", title=f"{event.name}: {get_variant(event.variant).title} event", event=event,
                summary=summary(data), format_label=EventFormat(event.format).label,
                tiebreaks=list(event.tiebreaks), standings=standings_table(data), cross_title=fmt.cross_title,
                crosstable=crosstable(data), rounds=sorted(rounds.items()),
                players=[(data.handle(p.account_id), url_of_player(data.handle(p.account_id)), p.status)
                         for p in data.players if p.account_id is not None],
                url_of_player=url_of_player)


def ratings_page(ctx: Context, variant: str) -> str | None:
    found = rating_list(ctx, variant)
    if found is None:
        return None
    engine, rows = found
    table: list[dict[str, Any]] = [
        {"rank": rank, "handle": handle, "url": url_of_player(handle), "elo": Elo(rating, games)}
        for rank, (handle, rating, games) in enumerate(rows, start=1)]
    computer: list[dict[str, Any]] = [
        {"rank": rank, "handle": handle, "url": url_of_player(handle), "elo": Elo(rating, games)}
        for rank, (handle, rating, games) in enumerate(computer_rating_list(ctx, engine.key), start=1)]
    return page("ratings.html", title=f"{engine.title} ratings", variant=engine.title, key=engine.key, rows=table,
                computer=computer, levels=sorted(LEVEL_RATINGS.items()),
                variants=[(cls.key, cls.title) for cls in all_variants()])


def not_found_page(what: str) -> str:
    return page("error.html", title="Not found", heading="Not found", message=what)


def game_exists(ctx: Context, game_id: int) -> bool:
    return ctx.session.get(Game, game_id) is not None
