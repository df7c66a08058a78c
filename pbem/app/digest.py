"""The daily digest: game mails held for a player who reads one mail a day, sent at their digest hour.

A held mail leaves its news line and any notes it relayed (a DigestItem). At the
player's hour the sweep sends one mail listing every running game where it is their
move, each with the news and moves since the last digest, the board as they see it
(text diagram, and its picture unless they turned pictures off) and the address a
move goes to; news of games where it is not their move follows under "Other news".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import col, select

from pbem.app.context import Context
from pbem.app.game_mail import board_block, deadline_text, move_label, subject_of
from pbem.app.game_pictures import html_source
from pbem.app.game_state import active_game_of, engine_for
from pbem.app.local_time import localise
from pbem.app.settings import wants_pictures, white_bottom_for, zone_of
from pbem.engine.base import Seat
from pbem.mail.compose import InlineImage, Outgoing
from pbem.mail.html_part import digest_html
from pbem.mail.render import render
from pbem.store.models import Account, DigestItem, Game, MoveRecord

__all__ = ["PICTURE_BUDGET", "digest_mail", "hold"]

#: The pictures one digest carries, in bytes before base64: the rest of its games are shown as text.
PICTURE_BUDGET = 70_000


@dataclass
class _Section:
    """One game of the digest as the template shows it."""

    title: str
    status: str
    address: str
    news: list[str] = field(default_factory=list)
    moves: str = ""
    board: str = ""
    picture: InlineImage | None = None
    size: tuple[int, int] = (0, 0)


def hold(ctx: Context, reader: Account, mail: Outgoing) -> None:
    """Keep ``mail`` for ``reader``'s next digest instead of sending it: its news line and its notes."""
    assert reader.id is not None and mail.game_id is not None
    news = mail.body.strip("\n").split("\n\n", 1)[0].strip()
    ctx.session.add(DigestItem(account_id=reader.id, game_id=mail.game_id, news=news,
                               notes="\n\n".join(mail.own_words), created_at=ctx.services.now()))


def digest_mail(ctx: Context, account: Account) -> Outgoing | None:
    """``account``'s digest as of now; None when there is nothing to tell (no game waits for them, no news)."""
    assert account.id is not None
    items = list(ctx.session.exec(select(DigestItem).where(DigestItem.account_id == account.id)
                                  .order_by(col(DigestItem.id))))
    games = ctx.session.exec(select(Game).where(active_game_of(account.id)).order_by(col(Game.id))).all()
    since = account.last_digest_at
    pictures = wants_pictures(account)
    budget = PICTURE_BUDGET
    sections: list[_Section] = []
    listed: set[int] = set()
    for game in games:
        assert game.id is not None
        seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
        engine = engine_for(game)
        state = engine.load(game.state)
        if engine.to_act(state) is not seat:
            continue
        listed.add(game.id)
        ctx.touched_games[game.id] = game  # the secret scan checks the digest against this game
        section = _Section(
            title=subject_of(ctx, game).removeprefix("[pbem ").replace("]", "", 1),
            status=f"Your move (move {engine.move_number(state)}); deadline {deadline_text(game.deadline)}.",
            address=ctx.services.addresses.seat(game.id, seat, account.id),
            news=_news(items, game.id),
            moves=_moves(ctx, game, since),
            board=board_block(ctx, game, state, seat),
        )
        if pictures and budget > 0:
            source = html_source(game, state, seat, ctx.services.addresses.domain,
                                 white_bottom=white_bottom_for(ctx, game, seat))
            if source.picture is not None and len(source.picture.data) <= budget:
                budget -= len(source.picture.data)
                section.picture, section.size = source.picture, source.size
        sections.append(section)
    others = [(subject_of(ctx, game), _news(items, game.id)) for game in _games_of(ctx, items)
              if game.id is not None and game.id not in listed]
    others = [(title, news) for title, news in others if news]
    if not sections and not others:
        return None
    now = ctx.services.now()
    zone = zone_of(account)
    body = localise(render("player/digest.txt", account=account, sections=sections, others=others), zone, now,
                    keep=[item.notes for item in items if item.notes])
    count = len(sections)
    subject = (f"[pbem] your daily digest: {count} game{'s' if count != 1 else ''} where it is your move"
               if count else "[pbem] your daily digest: news of your games")
    images = tuple(section.picture for section in sections if section.picture is not None)
    html = digest_html(body, title=subject, sections=[
        (section.board, section.picture, section.size) for section in sections]) if pictures else ""
    return Outgoing(to=account.email, subject=subject, body=body,
                    reply_to=ctx.services.addresses.personal(account.id), auto_submitted="auto-generated",
                    html=html, images=images if html else (),
                    own_words=tuple(item.notes for item in items if item.notes))


def _news(items: list[DigestItem], game_id: int) -> list[str]:
    """The held news of one game, oldest first, each with the notes it relayed."""
    lines: list[str] = []
    for item in items:
        if item.game_id == game_id:
            lines.append(item.news)
            if item.notes:
                lines.append(item.notes)
    return lines


def _moves(ctx: Context, game: Game, since: datetime | None) -> str:
    """The moves of ``game`` played since ``since`` (the last digest), in the game's record."""
    query = select(MoveRecord).where(MoveRecord.game_id == game.id).order_by(col(MoveRecord.ply))
    if since is not None:
        query = query.where(col(MoveRecord.played_at) >= since)  # one listed twice beats one missed
    rows = ctx.session.exec(query).all()
    return " ".join(f"{move_label(row.move_number, Seat(row.seat))} {row.record}" for row in rows)


def _games_of(ctx: Context, items: list[DigestItem]) -> list[Game]:
    ids = sorted({item.game_id for item in items})
    if not ids:
        return []
    return list(ctx.session.exec(select(Game).where(col(Game.id).in_(ids)).order_by(col(Game.id))))
