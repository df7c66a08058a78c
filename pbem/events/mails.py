"""The event's mails to its players, in one thread per event: any topic, and the pairing announcements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from pbem.app.context import Context
from pbem.app.game_mail import web_link, with_link
from pbem.events.store import EventData
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.event_models import Event
from pbem.store.models import Account, Game
from pbem.store.vocabulary import EntryStatus

__all__ = ["announce", "event_mail", "players"]


def _thread(ctx: Context, event: Event) -> str:
    return f"<pbem.event-{event.id}@{ctx.services.addresses.domain}>"


def event_mail(ctx: Context, event: Event, account: Account, topic: str, template: str, **context: Any) -> None:
    """Mail ``account`` the ``template`` about ``event``, from their personal address, in the event's thread."""
    assert account.id is not None
    root = _thread(ctx, event)
    link = web_link(ctx, f"/events/{quote(event.name, safe='')}")
    ctx.send(Outgoing(to=account.email, subject=f"[pbem event {event.name}] {topic}",
                      body=with_link(render(template, event=event, handle=account.handle, **context), link),
                      reply_to=ctx.services.addresses.personal(account.id), in_reply_to=root, references=(root,),
                      auto_submitted="auto-generated"))


def players(data: EventData, everybody: bool = False) -> list[Account]:
    """The accounts still playing (``everybody``: withdrawn players too)."""
    wanted = (EntryStatus.ENTERED, EntryStatus.WITHDRAWN) if everybody else (EntryStatus.ENTERED,)
    return [data.accounts[p.account_id] for p in data.players
            if p.account_id is not None and p.status in wanted and p.account_id in data.accounts]


def announce(ctx: Context, event: Event, games: Sequence[Game], bye: int | None, heading: str) -> None:
    """The pairing mail: each player's new games (and the bye), with the round deadline if any."""
    involved = {a for g in games for a in (g.white_id, g.black_id)} | ({bye} if bye else set())
    deadline = event.round_deadline.strftime("%Y-%m-%d %H:%M UTC") if event.round_deadline else ""
    for account_id in sorted(involved):
        account = ctx.account_by_id(account_id)
        assert account is not None
        lines = []
        for game in games:
            if account_id not in (game.white_id, game.black_id):
                continue
            white = account_id == game.white_id
            other = ctx.account_by_id(game.black_id if white else game.white_id)
            lines.append(f"game {game.id}: you play {'white' if white else 'black'} against "
                         f"{other.handle if other else '?'}")
        event_mail(ctx, event, account, heading.lower(), "event/round.txt", heading=heading, lines=lines,
                   bye=account_id == bye, deadline=deadline)
