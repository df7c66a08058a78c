"""The mails of one game: subject, thread, board block, clock block, referee copies."""

from __future__ import annotations

import dataclasses
import re
from datetime import datetime
from typing import Any

from pbem.app.clocks import clock_lines
from pbem.app.context import Context
from pbem.app.game_files import animation_left_out, final_attachments
from pbem.app.game_pictures import html_source
from pbem.app.game_state import engine_for, handles, player_id, records, state_of
from pbem.app.local_time import stamp
from pbem.app.news import result_news
from pbem.app.records import mail_movetext
from pbem.app.settings import may_want_pictures, white_bottom_for
from pbem.app.text import preview
from pbem.engine.base import Audience, Note, Outcome, Seat
from pbem.mail.compose import Outgoing
from pbem.mail.html_part import WEB_LINE
from pbem.mail.render import render
from pbem.store.models import Game
from pbem.store.vocabulary import GameStatus

__all__ = [
    "board_block",
    "deadline_text",
    "final_mail",
    "final_text",
    "game_mail",
    "move_label",
    "notes_for",
    "referee_mail",
    "subject_of",
    "thread_root",
    "web_link",
    "with_clock",
    "with_link",
]


def subject_of(ctx: Context, game: Game) -> str:
    names = handles(ctx, game)
    title = engine_for(game).title
    return f"[pbem #{game.id}] {names[Seat.WHITE]} vs {names[Seat.BLACK]} ({title})"


def thread_root(ctx: Context, game: Game) -> str:
    return f"<pbem.game-{game.id}@{ctx.services.addresses.domain}>"


def move_label(move_number: int, seat: Seat) -> str:
    return f"{move_number}." if seat is Seat.WHITE else f"{move_number}..."


def deadline_text(deadline: datetime | None) -> str:
    return stamp(deadline) if deadline else "none"


#: The variants' status line of a running game ("White to move (move 3)."): false once the game is over.
_TO_MOVE = re.compile(r"^(White|Black) to move\b")


def board_block(ctx: Context, game: Game, state: Any, audience: Seat | Audience) -> str:
    """The diagram and status lines of ``state`` as ``audience`` may see them (turned as they like it)."""
    view = engine_for(game).view(state, audience, picture=False, white_bottom=white_bottom_for(ctx, game, audience))
    if game.status != "active" and game.result:
        status = [line for line in view.status if not _TO_MOVE.match(line)]
        view = dataclasses.replace(view, status=(f"Final position: {game.result} ({game.reason}).", *status))
    return render("player/_view.txt", view=view)


def notes_for(notes: tuple[Note, ...], audience: Seat | Audience) -> list[str]:
    return [note.text for note in notes if note.to is None or note.to == audience]


#: Game mails that go at once to a player who reads a digest: a game's start and end, and deadlines.
_AT_ONCE = frozenset({"player/game_started.txt", "player/final.txt", "player/reminder.txt", "player/late.txt"})


def game_mail(ctx: Context, game: Game, seat: Seat, template: str, headline: str, **context: Any) -> Outgoing:
    """A mail of ``game`` to the player in ``seat``, from that seat's address, in the game's thread.

    ``headline`` is the news, the body's first line (what a mail client previews): the subject
    is the same for the whole game. The mail is unprompted (``auto-generated``): the answer
    to a player's own mail is the worker's reply.
    """
    account = ctx.account_by_id(player_id(game, seat))
    assert account is not None and game.id is not None and account.id is not None
    root = thread_root(ctx, game)
    names = handles(ctx, game)
    body = render(template, game=game, seat=seat, handles=names,
                  title=engine_for(game).title, deadline=deadline_text(game.deadline), **context)
    clock = clock_lines(ctx, game, names)
    link = web_link(ctx, f"/games/{game.id}")
    body = with_link(with_clock(f"{preview(headline)}\n\n{body}", clock), link)
    state = state_of(game)
    finished = game.status != GameStatus.ACTIVE
    return Outgoing(
        to=account.email,
        subject=subject_of(ctx, game),
        body=body,
        reply_to=ctx.services.addresses.seat(game.id, seat, account.id),
        in_reply_to=root,
        references=(root,),
        auto_submitted="auto-generated",
        game_id=game.id,
        html_source=html_source(game, state, seat, ctx.services.addresses.domain, clock,
                                records(ctx, game) if finished else (),
                                white_bottom=white_bottom_for(ctx, game, seat), link=link)
        if may_want_pictures(ctx, account) else None,
        attachments=final_attachments(ctx, game) if finished else (),
        digestible=not finished and template not in _AT_ONCE,
    )


def final_text(ctx: Context, game: Game, state: Any, audience: Seat | Audience) -> str:
    """The end of a game as the final mail shows it: result, players, final position, whole record."""
    names = handles(ctx, game)
    return render("player/game_over.txt", game=game, handles=names, board=board_block(ctx, game, state, audience),
                  record=mail_movetext(game, records(ctx, game)), no_animation=animation_left_out(ctx, game),
                  replay=web_link(ctx, f"/games/{game.id}/1"))


def final_mail(ctx: Context, game: Game, seat: Seat, outcome: Outcome, state: Any) -> Outgoing:
    """The last mail of a game that ended outside a move (resignation, draw, time, adjudication)."""
    reader = seat
    return game_mail(ctx, game, seat, "player/final.txt", headline=result_news(outcome, handles(ctx, game), reader),
                     final=final_text(ctx, game, state, seat))


def web_link(ctx: Context, path: str) -> str:
    """The page at ``path`` (e.g. ``/games/12``) under ``[web] public_url``; "" when mails carry no links."""
    base = ctx.services.config.public_url
    return f"{base}{path}" if base else ""


def with_link(body: str, link: str) -> str:
    """A mail's body with the web page's link on its last line (unchanged without a link)."""
    return body.rstrip("\n") + f"\n\n{WEB_LINE}{link}\n" if link else body


def with_clock(body: str, lines: list[str]) -> str:
    """A game mail's body with the clock block at its foot."""
    if not lines:
        return body
    return body.rstrip("\n") + "\n\n" + "\n".join(lines) + "\n"


def referee_mail(ctx: Context, game: Game, lines: list[str]) -> None:
    referee = ctx.services.config.referee
    if not referee or not lines:
        return
    root = thread_root(ctx, game)
    ctx.send(Outgoing(
        to=referee,
        subject=f"{subject_of(ctx, game)} referee copy",
        body=render("referee/secrets.txt", game=game, lines=lines),
        reply_to=ctx.services.addresses.public,
        in_reply_to=root,
        references=(root,),
        auto_submitted="auto-generated",
        game_id=game.id,
    ))
