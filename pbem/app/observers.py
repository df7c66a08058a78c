"""What observers of a game see, delayed as the game's options say, and their mails."""

from __future__ import annotations

from typing import Any

from sqlalchemy import bindparam
from sqlmodel import col, select

from pbem.app.clocks import clock_lines
from pbem.app.context import Context
from pbem.app.game_files import final_attachments
from pbem.app.game_mail import (
    board_block,
    final_text,
    move_label,
    subject_of,
    thread_root,
    web_link,
    with_clock,
    with_link,
)
from pbem.app.game_options import game_option
from pbem.app.game_pictures import html_source
from pbem.app.game_state import engine_for, handles, records, state_of
from pbem.app.news import result_news, turn_news
from pbem.app.notes import after_news, notes_for_observers
from pbem.app.settings import may_want_pictures, setting
from pbem.engine.base import Audience, Outcome, Seat
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.models import Game, MoveRecord, Observation
from pbem.store.prepared import Prepared
from pbem.store.vocabulary import GameStatus

__all__ = [
    "notify_observers",
    "observer_state",
]


def observer_state(ctx: Context, game: Game) -> Any:
    """The position observers may see: ``observer-delay`` plies behind while the game runs."""
    engine = engine_for(game)
    delay = game_option(game.options, "observer-delay")
    if not delay or game.status != GameStatus.ACTIVE:
        return state_of(game)
    ply = max(0, game.ply - delay)
    if ply == 0:
        return engine.setup()
    row = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply == ply)).one()
    return engine.load(row.state_after)


_OBSERVERS = Prepared(select(col(Observation.account_id)).where(col(Observation.game_id) == bindparam("game_id")))


def notify_observers(ctx: Context, game: Game) -> None:
    """Mail every observer the public position (delayed as the game says) and the last move they may see."""
    # A Core read on the session's connection: an ORM query would first flush the move just stored,
    # a second pass of the unit of work for a question that nearly always finds no one.
    observers = [row.account_id for row in _OBSERVERS.rows(ctx.session, {"game_id": game.id})]
    delay = game_option(game.options, "observer-delay") if game.status == GameStatus.ACTIVE else 0
    visible_ply = max(0, game.ply - delay)
    said = notes_for_observers(ctx, game, visible_ply)  # with or without observers: a later one gets only newer
    if not observers:
        return
    if visible_ply == 0 and game.status == GameStatus.ACTIVE:
        return  # nothing observers may see has changed yet
    row = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id,
                                                    MoveRecord.ply == visible_ply)).first()
    last = f"{move_label(row.move_number, Seat(row.seat))} {row.record}" if row else ""
    state = observer_state(ctx, game)
    board = board_block(ctx, game, state, Audience.PUBLIC)
    names = handles(ctx, game)
    root = thread_root(ctx, game)
    played = f"{names[Seat(row.seat)]} played {last}" if row else "no move yet"
    headline = _headline(game, names, played, delay, engine_for(game).to_act(state))
    final = final_text(ctx, game, state, Audience.PUBLIC) if game.status != GameStatus.ACTIVE else ""
    for account_id in observers:
        account = ctx.account_by_id(account_id)
        if account is None or account.id is None:
            continue
        if game.status == GameStatus.ACTIVE and setting(account, "notify-observed") == "end":
            continue  # this observer asked for the result only
        body = render("player/observer.txt", game=game, handles=names, last=last, board=board, delay=delay,
                      title=engine_for(game).title, headline=headline, final=final)
        clock = clock_lines(ctx, game, names) if not delay else []
        finished = game.status != GameStatus.ACTIVE
        # Observers who see the game late get no highlight: it would show a move they may not see yet.
        source = html_source(game, state, Audience.PUBLIC, ctx.services.addresses.domain, clock,
                             records(ctx, game) if finished else (), highlight=not delay,
                             link=web_link(ctx, f"/games/{game.id}")) if may_want_pictures(ctx, account) else None
        ctx.send(Outgoing(to=account.email, subject=f"{subject_of(ctx, game)} (observing)",
                          body=with_link(with_clock(after_news(body, said), clock),
                                         web_link(ctx, f"/games/{game.id}")),
                          reply_to=ctx.services.addresses.personal(account.id),
                          in_reply_to=root, references=(root,), auto_submitted="auto-generated", game_id=game.id,
                          html_source=source, own_words=said,
                          attachments=final_attachments(ctx, game, public=True) if finished else ()))


def _headline(game: Game, names: dict[Seat, str], played: str, delay: int, to_move: Seat | None) -> str:
    """An observer's news: the result at the end, else the last move they may see and whose move it is."""
    if game.status != GameStatus.ACTIVE:
        return f"Game {game.id}: {result_news(Outcome(game.result, game.reason), names, None)}"
    if delay:  # the clock would tell the moves not shown yet
        return f"Game {game.id}, {delay} moves late: {played}."
    return f"Game {game.id}: {played}. {turn_news(names, None, to_move, game.deadline)}"
