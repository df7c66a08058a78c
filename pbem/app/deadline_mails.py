"""The mails of a deadline event the sweep decided: a reminder, a late notice, a game ended on time."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from pbem.app.context import Context
from pbem.app.game_mail import board_block, final_mail, game_mail
from pbem.app.game_state import handles, state_of
from pbem.app.news import when
from pbem.app.observers import notify_observers
from pbem.engine.base import Outcome, Seat
from pbem.store.models import Game, GameNotice
from pbem.store.vocabulary import GameStatus, NoticeKind

__all__ = ["ended_notice", "late_notice", "reminder_notice", "write_notice"]

log = logging.getLogger(__name__)


def reminder_notice(game: Game, seat: Seat, deadline: datetime, left: str) -> GameNotice:
    return _notice(game, NoticeKind.REMINDER, seat, deadline=deadline.isoformat(), left=left)


def late_notice(game: Game, seat: Seat, forfeit_at: datetime, aborts: bool) -> GameNotice:
    return _notice(game, NoticeKind.LATE, seat, forfeit_at=forfeit_at.isoformat(), aborts=aborts)


def ended_notice(game: Game, seat: Seat, outcome: Outcome) -> GameNotice:
    return _notice(game, NoticeKind.ENDED, seat, result=outcome.result, reason=outcome.reason)


def _notice(game: Game, kind: NoticeKind, seat: Seat, **details: Any) -> GameNotice:
    assert game.id is not None
    return GameNotice(game_id=game.id, kind=kind, seat=seat.value, ply=game.ply, details=details)


def write_notice(ctx: Context, game: Game, notice: GameNotice) -> bool:
    """Send (through ``ctx``) the mails of ``notice``; False if it no longer applies: a reminder or late
    notice whose turn has been played (or whose game has ended) since the sweep decided it."""
    kind, seat, details = NoticeKind(notice.kind), Seat(notice.seat), notice.details
    if kind is NoticeKind.ENDED:
        _ended(ctx, game, Outcome(details["result"], details["reason"]))
        return True
    if game.status != GameStatus.ACTIVE or game.ply != notice.ply:
        log.info("deadline: game %s, %s for %s dropped: the turn was played since", game.id, kind, seat.value)
        return False
    if kind is NoticeKind.REMINDER:
        _remind(ctx, game, seat, datetime.fromisoformat(details["deadline"]), details["left"])
    else:
        _late(ctx, game, seat, datetime.fromisoformat(details["forfeit_at"]), bool(details["aborts"]))
    return True


def _remind(ctx: Context, game: Game, seat: Seat, deadline: datetime, left: str) -> None:
    headline = f"Reminder: your move in game {game.id}; deadline {when(deadline)} ({left} left)."
    state = state_of(game)
    ctx.send(game_mail(ctx, game, seat, "player/reminder.txt", headline=headline, left=left,
                       board=board_block(ctx, game, state, seat)))


def _late(ctx: Context, game: Game, seat: Seat, forfeit_at: datetime, aborts: bool) -> None:
    names = handles(ctx, game)
    state = state_of(game)
    for recipient in Seat:
        if recipient is seat:
            ending = "the game is aborted" if aborts else "lose on time"
            headline = f"Your time is up in game {game.id}: move by {when(forfeit_at)} or {ending}."
        elif aborts:
            headline = (f"{names[seat]}'s time is up in game {game.id}; with no first move by "
                        f"{when(forfeit_at)} the game is aborted.")
        else:
            headline = f"{names[seat]}'s time is up in game {game.id}; no move by {when(forfeit_at)} wins you it."
        ctx.send(game_mail(ctx, game, recipient, "player/late.txt", headline=headline, late=seat,
                           forfeit_at=forfeit_at.strftime("%Y-%m-%d %H:%M UTC"),
                           board=board_block(ctx, game, state, recipient)))


def _ended(ctx: Context, game: Game, outcome: Outcome) -> None:
    """The observers' mail and both players' last mails, with the record and the game's GIF."""
    notify_observers(ctx, game)
    state = state_of(game)
    for recipient in Seat:
        ctx.send(final_mail(ctx, game, recipient, outcome, state))
