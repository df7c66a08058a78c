"""A stored game's engine, players, move rows and notes."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from sqlmodel import col, select

from pbem.app.context import Context
from pbem.app.game_options import split_options
from pbem.engine.base import Seat, Variant
from pbem.store.models import Game, MoveRecord
from pbem.variants import get_variant

__all__ = [
    "engine_for",
    "handles",
    "notes_of",
    "player_id",
    "records",
]


@cache
def _engine(key: str, options_json: str) -> Variant[Any, Any]:
    return get_variant(key, json.loads(options_json))


def engine_for(game: Game) -> Variant[Any, Any]:
    rules, _ = split_options(game.options)
    return _engine(game.variant, json.dumps(rules, sort_keys=True))


def notes_of(extras: dict[str, object]) -> list[dict[str, object]]:
    """The notes stored with a game (``say``): dicts with ply, seat, text and at (ISO time)."""
    found = extras.get("notes", [])
    return list(found) if isinstance(found, list) else []


def player_id(game: Game, seat: Seat) -> int:
    return game.white_id if seat is Seat.WHITE else game.black_id


def handles(ctx: Context, game: Game) -> dict[Seat, str]:
    white = ctx.account_by_id(game.white_id)
    black = ctx.account_by_id(game.black_id)
    assert white is not None and black is not None
    return {Seat.WHITE: white.handle, Seat.BLACK: black.handle}


def records(ctx: Context, game: Game) -> list[MoveRecord]:
    statement = select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(col(MoveRecord.ply))
    return list(ctx.session.exec(statement).all())
