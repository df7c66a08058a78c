"""Where a game's mails go: the sender's active games and the subjects their game mails carry."""

from __future__ import annotations

from sqlmodel import col, select

from pbem.app.context import Context
from pbem.app.game_mail import subject_of
from pbem.app.game_state import active_game_of, engine_for, handles
from pbem.engine.base import Seat
from pbem.store.models import Account, Game

__all__ = ["active_games", "game_directory"]


def active_games(ctx: Context, account: Account) -> list[Game]:
    """The account's games still being played, oldest first."""
    statement = select(Game).where(active_game_of(account.id)).order_by(col(Game.id))
    return list(ctx.session.exec(statement).all())


def game_directory(ctx: Context, account: Account | None) -> list[str]:
    """Lines telling a player which mail to reply to for each of their active games.

    A player who sent a move to the wrong address finds the right thread by its subject, so
    each game is listed with the subject line its mails carry.
    """
    if account is None:
        return ["If you have no account yet, send 'register HANDLE' first."]
    games = active_games(ctx, account)
    if not games:
        return ["You have no game in progress; 'challenge HANDLE VARIANT' starts one."]
    lines = ["Your games in progress (reply to a mail with that subject):"]
    for game in games:
        seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
        lines.append(f"  Game {game.id}: against {handles(ctx, game)[seat.other]}, {engine_for(game).title}, "
                     f"you play {seat}")
        lines.append(f"    \"{subject_of(ctx, game)}\"")
    return lines
