"""Starting an event, and carrying it on after each finished game: standings mails, next rounds, the result."""

from __future__ import annotations

import random

from pbem.app.context import Context
from pbem.events.entries import entries
from pbem.events.errors import EventError
from pbem.events.formats.registry import format_of
from pbem.events.mails import event_mail, players
from pbem.events.store import EventData, load, lock_event, rate_game
from pbem.events.tables import mail_tables
from pbem.store.event_models import Event
from pbem.store.models import Game
from pbem.store.vocabulary import EntryStatus, EventStatus

__all__ = ["game_finished", "progress", "start_event"]


def start_event(ctx: Context, event: Event) -> str:
    """Close registration, fix the start numbers and start the first games (all of them in a round robin)."""
    event = lock_event(ctx.session, event.id or 0)  # a join, or a second start, waits for this one's commit
    if event.status != EventStatus.REGISTRATION:
        raise EventError(f"{event.name} has already started")
    fmt = format_of(event.format)
    everyone = entries(ctx, event)
    entered = [e for e in everyone if e.status == EntryStatus.ENTERED and e.account_id is not None]
    dropped = [e.email for e in everyone if e.status == EntryStatus.INVITED]
    if len(entered) < 2:
        raise EventError(f"{event.name} has {len(entered)} entered players; it needs at least 2")
    for entry in everyone:
        if entry.status == EntryStatus.INVITED:
            ctx.session.delete(entry)
    seeded = fmt.order(load(ctx.session, event), entered, random.SystemRandom())
    for seed, entry in enumerate(seeded, start=1):
        entry.seed = seed
        ctx.session.add(entry)
    event.status, event.started_at = EventStatus.RUNNING, ctx.services.now()
    ctx.session.add(event)
    ctx.session.flush()
    fmt.start(ctx, event, [e.account_id or 0 for e in seeded])
    report = f"{event.name} has started with {len(seeded)} players."
    if dropped:
        report += f" Invited but never joined, so left out: {', '.join(dropped)}."
    return report


def game_finished(ctx: Context, game: Game) -> None:
    """Rate the game; for an event's game, score it, mail the standings, and pair on or finish.

    Any ending counts alike: a loss on time (from the clock rules) is a loss as any other. ``rate_game``
    leaves out aborted games (result ``*``, see pbem.sweep) and games with ``option rated=no``; event games are
    never aborted, so an event never sees a game without a score.
    """
    rate_game(ctx.session, game)
    if game.event_id is None:
        return
    event = lock_event(ctx.session, game.event_id)
    if event.status != EventStatus.RUNNING:
        return
    progress(ctx, event, game)


def progress(ctx: Context, event: Event, game: Game | None) -> None:
    """After ``game`` finished (None: after a withdrawal): the standings mail, the next round, or the end."""
    fmt = format_of(event.format)
    fmt.update(ctx, load(ctx.session, event))
    data = load(ctx.session, event)  # again: the update may have decided matches and started games
    if not fmt.round_complete(data):
        _mail_standings(ctx, data, game)
        return
    if not fmt.last_round(data):
        _mail_standings(ctx, data, game)
        if fmt.pair_next_round(ctx, data):
            return
    _finish(ctx, load(ctx.session, event), game)


def _mail_standings(ctx: Context, data: EventData, game: Game | None) -> None:
    news = ""
    if game is not None:
        news = (f"Game {game.id} is over: {data.handle(game.white_id)} - {data.handle(game.black_id)} "
                f"{game.result} ({game.reason}).")
    for account in players(data):
        event_mail(ctx, data.event, account, "standings", "event/standings.txt", news=news, **mail_tables(data))


def _finish(ctx: Context, data: EventData, game: Game | None) -> None:
    event = data.event
    event.status, event.finished_at, event.round_deadline = EventStatus.FINISHED, ctx.services.now(), None
    event.version += 1
    ctx.session.add(event)
    winner = format_of(event.format).winner(data)
    news = ""
    if game is not None:
        news = (f"The last game, {game.id}, is over: {data.handle(game.white_id)} - {data.handle(game.black_id)} "
                f"{game.result} ({game.reason}).")
    for account in players(data, everybody=True):
        event_mail(ctx, event, account, "final result", "event/final.txt", winner=winner, news=news,
                   **mail_tables(data))
