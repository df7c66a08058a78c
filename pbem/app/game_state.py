"""A stored game's engine, players, move rows and notes."""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cache
from typing import Any

from sqlalchemy import ColumnElement
from sqlmodel import and_, col, or_, select

from pbem.app.context import Context
from pbem.app.game_options import split_options
from pbem.app.news import computer_name
from pbem.engine.base import Seat, Variant
from pbem.store import json_text
from pbem.store.models import Game, MoveRecord
from pbem.store.vocabulary import GameStatus
from pbem.variants import get_variant

__all__ = [
    "COMPUTER_EMAIL",
    "active_game_of",
    "computer_level",
    "computer_name",
    "computer_seat",
    "engine_for",
    "handles",
    "notes_of",
    "player_id",
    "records",
    "state_of",
    "store_state",
]


def active_game_of(account_id: int | None) -> ColumnElement[bool]:
    """The condition "an active game in which ``account_id`` plays".

    The status test sits inside each branch of the OR on purpose: written as ``status = 'active' AND
    (white_id = ? OR black_id = ?)``, SQLite (which has no statistics: pbem never runs ANALYZE) walks
    the status index through every active game; this way it looks the player up in the two seat indexes.
    """
    active = col(Game.status) == GameStatus.ACTIVE
    return or_(and_(active, col(Game.white_id) == account_id), and_(active, col(Game.black_id) == account_id))


@cache
def _engine(key: str, options_json: str) -> Variant[Any, Any]:
    return get_variant(key, json_text.loads(options_json))


def engine_for(game: Game) -> Variant[Any, Any]:
    if not game.options:  # most games, and a dozen calls a move: no options to split and sort
        return _engine(game.variant, "{}")
    rules, _ = split_options(game.options)
    return _engine(game.variant, json_text.canonical(rules).decode("utf-8"))


#: Games whose engine state each thread keeps loaded (a busy server's games in play).
STATE_CACHE_SIZE = 256
_loaded = threading.local()


#: A loaded state: its engine, the stored JSON it was loaded from (keys sorted), the state, and the stored dict
#: itself (a game object holding that very dict holds that JSON: nothing here changes a stored dict in place).
_Loaded = tuple[Variant[Any, Any], bytes, Any, dict[str, Any]]


def _states() -> OrderedDict[int, _Loaded]:
    cache_of: OrderedDict[int, _Loaded] | None = getattr(_loaded, "states", None)
    if cache_of is None:
        cache_of = _loaded.states = OrderedDict()
    return cache_of


def _keep(cache_of: OrderedDict[int, _Loaded], game_id: int, entry: _Loaded) -> None:
    cache_of[game_id] = entry
    cache_of.move_to_end(game_id)
    if len(cache_of) > STATE_CACHE_SIZE:
        cache_of.popitem(last=False)


def store_state(game: Game, state: Any) -> None:
    """Set ``game``'s stored state to ``state`` and keep ``state`` as the loaded one: the move's mails and
    the game's next move read it without loading it again (the same rule as :func:`state_of`: a hit needs
    the stored JSON to be equal)."""
    engine = engine_for(game)
    game.state = engine.dump(state)
    if game.id is not None:
        _keep(_states(), game.id, (engine, json_text.canonical(game.state), state, game.state))


def state_of(game: Game) -> Any:
    """``game``'s engine state as stored, loaded once while the stored JSON stays the same: the readers of
    one mail share it, and the next move of a busy game finds it loaded.

    A hit needs the stored JSON to be equal to what was loaded, so no version number, rollback or other
    instance can ever serve a stale state; the cache is per thread, so no state is shared between the
    worker, the sweep and the web threads (the engines keep mutable boards inside some states).
    """
    engine = engine_for(game)
    if game.id is None:
        return engine.load(game.state)
    cache_of = _states()
    hit = cache_of.get(game.id)
    if hit is not None and hit[0] is engine and hit[3] is game.state:
        return hit[2]  # the dict it was loaded from, or stored as: the JSON need not be written to compare
    stored = json_text.canonical(game.state)
    if hit is not None and hit[0] is engine and hit[1] == stored:
        _keep(cache_of, game.id, (engine, stored, hit[2], game.state))  # the next reader of this dict: no JSON
        return hit[2]
    state = engine.load(game.state)
    _keep(cache_of, game.id, (engine, stored, state, game.state))
    return state


def notes_of(extras: dict[str, object]) -> list[dict[str, object]]:
    """The notes stored with a game (``say``): dicts with ply, seat, text and at (ISO time)."""
    found = extras.get("notes", [])
    return list(found) if isinstance(found, list) else []


def player_id(game: Game, seat: Seat) -> int:
    return game.white_id if seat is Seat.WHITE else game.black_id


#: The reserved computer account's address: under .invalid (RFC 2606), so no mail can ever reach it, and
#: mails the games address to it are dropped before the outbox (pbem.app.secrecy).
COMPUTER_EMAIL = "computer@pbem.invalid"


def computer_seat(game: Game) -> Seat | None:
    """The seat the server's engine plays in ``game`` (pbem.app.computer), or None in a game of people."""
    found = game.extras.get("computer")
    return Seat(found["seat"]) if isinstance(found, dict) else None


def computer_level(game: Game) -> int:
    """The computer's level (1-5) in a game against it; 0 in a game of people."""
    found = game.extras.get("computer")
    return int(found["level"]) if isinstance(found, dict) else 0


def handles(ctx: Context, game: Game) -> dict[Seat, str]:
    """Each seat's name as the game's mails show it (the computer with its level)."""
    white = ctx.account_by_id(game.white_id)
    black = ctx.account_by_id(game.black_id)
    assert white is not None and black is not None
    names = {Seat.WHITE: white.handle, Seat.BLACK: black.handle}
    seat = computer_seat(game)
    if seat is not None:
        names[seat] = computer_name(computer_level(game))
    return names


def records(ctx: Context, game: Game) -> list[MoveRecord]:
    statement = select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(col(MoveRecord.ply))
    return list(ctx.session.exec(statement).all())
