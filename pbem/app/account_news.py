"""Account-wide news (a vacation begins or ends): one mail to each opponent, listing the games concerned."""

from __future__ import annotations

from collections import defaultdict

from pbem.app.context import Context
from pbem.app.game_state import engine_for, handles, player_id
from pbem.app.news import turn_news
from pbem.engine.base import Seat
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.models import Account, Game

__all__ = ["tell_opponents"]


def tell_opponents(ctx: Context, account: Account, games: list[Game], news: str, topic: str) -> None:
    """Mail ``news`` once to every opponent of ``account`` in ``games``, with the state of each game they share.

    One mail per person, not one per game: a player with many games would otherwise get a pile of
    mails for one event. It comes from the opponent's personal address: it is about several games.
    """
    shared: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        assert game.id is not None
        ctx.touched_games[game.id] = game
        seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
        shared[player_id(game, seat.other)].append(game)
    for opponent_id, their_games in shared.items():
        opponent = ctx.account_by_id(opponent_id)
        if opponent is None or opponent.id is None:
            continue
        rows = [_row(ctx, game, opponent) for game in their_games]
        ctx.send(Outgoing(to=opponent.email, subject=f"[pbem] {account.handle} {topic}",
                          body=render("player/account_news.txt", news=news, other=account.handle, rows=rows),
                          reply_to=ctx.services.addresses.personal(opponent.id), auto_submitted="auto-generated"))


def _row(ctx: Context, game: Game, reader: Account) -> str:
    """One game as the list shows it: number, variant, colour, whose move and until when."""
    names = handles(ctx, game)
    seat = Seat.WHITE if game.white_id == reader.id else Seat.BLACK
    engine = engine_for(game)
    to_move = engine.to_act(engine.load(game.state))
    return f"#{game.id} {engine.title}, you play {seat}: {turn_news(names, seat, to_move, game.deadline)}"
