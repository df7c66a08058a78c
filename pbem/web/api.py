"""The JSON API: the same public views as the pages, as documents the OpenAPI description (openapi.py) specifies."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import col, select

from pbem.app.context import Context
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
from pbem.engine.base import View
from pbem.engine.board_view import BoardView
from pbem.events.ratings import Elo
from pbem.events.store import load
from pbem.events.tables import crosstable, standings_table, summary
from pbem.store.event_models import Event, Rating
from pbem.web.pages import find_account, result_for

__all__ = ["event_document", "game_document", "games_document", "player_document", "ratings_document"]


def _time(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _board(board: BoardView | None) -> dict[str, Any] | None:
    """The board as data: per panel, each piece and mark by the square's own file and rank labels."""
    if board is None:
        return None
    return {
        "panels": [{
            "title": panel.title,
            "files": list(panel.file_labels),
            "ranks": list(panel.rank_labels),
            "pieces": [{"file": panel.file_labels[c], "rank": panel.rank_labels[r], "kind": piece.kind.value,
                        "colour": "white" if piece.white else "black"} for (c, r), piece in panel.pieces],
            "marks": [{"file": panel.file_labels[c], "rank": panel.rank_labels[r], "mark": mark.value}
                      for (c, r), mark in panel.marks],
        } for panel in board.panels],
        "notes": list(board.notes),
    }


def _position(view: View, ply: int) -> dict[str, Any]:
    return {"ply": ply, "diagram": view.diagram, "to_move": view.to_move.value if view.to_move else None,
            "move_number": view.move_number, "status": list(view.status), "board": _board(view.board)}


def _summary(game: PublicGame) -> dict[str, Any]:
    return {"id": game.id, "url": f"/games/{game.id}", "variant": game.variant, "title": game.title,
            "white": game.white, "black": game.black, "status": game.status, "result": game.result,
            "reason": game.reason, "visible_ply": game.visible_ply, "updated_at": _time(game.updated_at)}


def game_document(ctx: Context, game_id: int) -> dict[str, Any] | None:
    found = public_position(ctx, game_id)
    if found is None:
        return None
    game, view = found
    return {
        **_summary(game),
        "rated": game.rated, "time_control": game.time_control, "started_at": _time(game.started_at),
        "delay": game.delay, "deadline": _time(game.deadline), "event_id": game.event_id,
        "position": _position(view, game.visible_ply),
        "moves": [{"ply": m.ply, "move_number": m.move_number, "seat": m.seat.value, "record": m.record,
                   "played_at": _time(m.played_at)} for m in game.moves],
        "clock": list(game.clock),
        "notes": [{"ply": n.ply, "handle": n.handle, "text": n.text} for n in game.notes],
    }


def position_document(ctx: Context, game_id: int, ply: int) -> dict[str, Any] | None:
    found = public_position(ctx, game_id, ply)
    return None if found is None else {"game": game_id, **_position(found[1], ply)}


def games_document(ctx: Context) -> dict[str, Any]:
    return {"active": [_summary(g) for g in game_list(ctx, active=True)],
            "finished": [_summary(g) for g in game_list(ctx, active=False)],
            "seeks": [{"id": s.id, "handle": s.handle, "variant": s.variant, "colour": s.colour,
                       "time_control": s.time_control, "expires_at": _time(s.expires_at)} for s in open_seeks(ctx)]}


def _elo(elo: Elo) -> dict[str, Any]:
    return {"rating": round(elo.rating), "games": elo.games, "provisional": elo.provisional}


def player_document(ctx: Context, handle: str) -> dict[str, Any] | None:
    account = find_account(ctx, handle)
    if account is None:
        return None
    games = player_games(ctx, account)
    ratings = ctx.session.exec(select(Rating).where(Rating.account_id == account.id)
                               .order_by(col(Rating.variant))).all()
    return {"handle": account.handle, "since": _time(account.created_at),
            "ratings": {row.variant: _elo(Elo(row.rating, row.games)) for row in ratings},
            "games": [{**_summary(g), "outcome": None if g.active else result_for(g, account.handle)}
                      for g in games]}


def event_document(ctx: Context, name: str) -> dict[str, Any] | None:
    event = ctx.session.exec(select(Event).where(Event.name == name)).first()
    if event is None:
        return None
    data = load(ctx.session, event)
    games = [(shown, game.event_round) for game in data.games
             if game.id is not None and (shown := public_game(ctx, game.id)) is not None]
    return {"name": event.name, "variant": event.variant, "format": event.format, "status": event.status,
            "summary": summary(data), "tiebreaks": list(event.tiebreaks), "current_round": event.current_round,
            "round_deadline": _time(event.round_deadline), "standings": standings_table(data),
            "crosstable": crosstable(data),
            "players": [data.handle(p.account_id) for p in data.players if p.account_id is not None],
            "games": [{**_summary(shown), "round": round_} for shown, round_ in games]}


def ratings_document(ctx: Context, variant: str) -> dict[str, Any] | None:
    found = rating_list(ctx, variant)
    if found is None:
        return None
    engine, rows = found
    return {"variant": engine.key, "title": engine.title,
            "ratings": [{"rank": rank, "handle": handle, **_elo(Elo(rating, games))}
                        for rank, (handle, rating, games) in enumerate(rows, start=1)],
            "computer": [{"rank": rank, "handle": handle, **_elo(Elo(rating, games))}
                         for rank, (handle, rating, games) in enumerate(computer_rating_list(ctx, engine.key), 1)]}
