"""Who may read which secret: the leak scan every outgoing mail passes before it is queued."""

from __future__ import annotations

from pbem.app.context import Context
from pbem.app.digest import hold
from pbem.app.game_state import COMPUTER_EMAIL, engine_for, player_id, state_of
from pbem.app.settings import digest_reader, for_reader
from pbem.app.text import tidy
from pbem.engine.capabilities import secrets_of
from pbem.mail.compose import HtmlSource, Outgoing
from pbem.mail.html_part import game_html
from pbem.mail.outbox import queue_mail

__all__ = [
    "forbidden_for",
    "queue_outgoing",
    "secrets_by_owner",
]


def secrets_by_owner(ctx: Context) -> list[tuple[str, tuple[str, ...]]]:
    """Each unrevealed secret of the games this mail touched or is about, with its owner's address."""
    owned: list[tuple[str, tuple[str, ...]]] = []
    games = dict(ctx.touched_games)
    if ctx.game is not None and ctx.game.id is not None:
        games.setdefault(ctx.game.id, ctx.game)  # one it did not change: its 'history', its 'board'
    for game in games.values():
        engine = engine_for(game)
        for seat, strings in secrets_of(engine, state_of(game)).items():
            owner = ctx.account_by_id(player_id(game, seat))
            if strings:
                owned.append((owner.email.lower() if owner else "", strings))
    return owned


def forbidden_for(ctx: Context, secrets: list[tuple[str, tuple[str, ...]]], recipient: str) -> tuple[str, ...]:
    """The secrets in ``secrets`` that ``recipient`` may not read: all but their own (the referee: none)."""
    recipient = recipient.lower()
    if ctx.services.config.referee and recipient == ctx.services.config.referee.lower():
        return ()
    return tuple(string for owner, strings in secrets if owner != recipient for string in strings)


def with_html(mail: Outgoing, source: HtmlSource) -> None:
    """Give ``mail`` its HTML part, made from its final text: the same content, the picture by cid."""
    mail.html = game_html(mail.body, title=mail.subject, diagram=tidy(source.diagram).rstrip("\n"),
                          clock=tidy("\n".join(source.clock)).splitlines() if source.clock else (),
                          picture=source.picture, size=source.size, moves=source.moves, link=source.link)
    mail.images = (source.picture,) if source.picture is not None else ()


def queue_outgoing(ctx: Context) -> None:
    """Fit every outgoing mail of ``ctx`` to its reader's settings (or hold it for their digest), tidy it,
    scan it for secrets its recipient may not read, then queue it."""
    secrets = secrets_by_owner(ctx)
    now = ctx.services.now()
    for mail in ctx.outgoing:
        if mail.to.lower() == COMPUTER_EMAIL:
            continue  # the computer reads its games from the database, not from mail
        reader = ctx.account_by_email(mail.to)
        if reader is not None and mail.digestible and digest_reader(reader):
            hold(ctx, reader, mail)
            continue
        for_reader(mail, reader, now)
        mail.body = tidy(mail.body)  # every text part within 78 columns, whoever wrote it
        if mail.html_source is not None:
            with_html(mail, mail.html_source)
        queue_mail(ctx.session, mail, ctx.services.addresses, forbidden_for(ctx, secrets, mail.to), ctx.services.now())
    ctx.outgoing.clear()
