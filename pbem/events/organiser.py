"""The organiser's interventions in an event (adjudication, withdrawal) and the list of events."""

from __future__ import annotations

from sqlmodel import col, select

from pbem.app.analysis import PUBLIC_ONLY, engine_opinion
from pbem.app.context import Context
from pbem.app.game_state import engine_for, handles
from pbem.app.games import game_over
from pbem.engine.base import Audience, Outcome, Seat
from pbem.events.entries import entries
from pbem.events.errors import EventError
from pbem.events.formats.registry import format_of
from pbem.events.games import end_game
from pbem.events.running import progress
from pbem.events.store import load, lock_event
from pbem.events.tables import summary
from pbem.mail.render import render
from pbem.store.event_models import Event
from pbem.store.models import Game
from pbem.store.vocabulary import EntryStatus, EventStatus, GameStatus

__all__ = ["adjudicate", "list_events", "position_report", "withdraw"]

_RESULTS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "1/2": "1/2-1/2", "draw": "1/2-1/2",
            "=": "1/2-1/2", "white": "1-0", "black": "0-1"}


def adjudicate(ctx: Context, event: Event, game_id: int, result: str) -> str:
    """The organiser decides an unfinished game (e.g. at a round deadline); the event goes on as after any game."""
    outcome_result = _RESULTS.get(result.strip().lower())
    if outcome_result is None:
        raise EventError(f"a result is 1-0, 0-1 or 1/2-1/2, not {result!r}")
    game = ctx.session.exec(select(Game).where(Game.id == game_id).with_for_update()).first()
    if game is None or game.event_id != event.id:
        raise EventError(f"game {game_id} is not a game of {event.name}")
    if game.status != GameStatus.ACTIVE:
        raise EventError(f"game {game_id} is already over ({game.result}, {game.reason})")
    end_game(ctx, game, Outcome(outcome_result, "adjudicated by the organiser"))
    game_over(ctx, game)
    return f"Game {game_id} adjudicated {outcome_result}."


def position_report(ctx: Context, event: Event, game_id: int, seconds: float) -> str:
    """Game ``game_id`` of ``event`` as the organiser weighs it: players, the public position, and the
    engine's score, best move and line (public position only: no Hyperspace return square is read)."""
    game = ctx.session.get(Game, game_id)
    if game is None or game.event_id != event.id:
        raise EventError(f"game {game_id} is not a game of {event.name}")
    engine = engine_for(game)
    state = engine.load(game.state)
    names = handles(ctx, game)
    board = engine.view(state, Audience.PUBLIC, picture=False)
    lines = [f"Game {game_id} of {event.name}: {names[Seat.WHITE]} (white) vs {names[Seat.BLACK]} (black), "
             f"after ply {game.ply}" + ("" if game.status == GameStatus.ACTIVE else f", over: {game.result}"),
             "", render("player/_view.txt", view=board).rstrip("\n"), ""]
    return "\n".join([*lines, *engine_opinion(game, state, seconds), PUBLIC_ONLY])


def withdraw(ctx: Context, event: Event, who: str) -> str:
    """Take a player out of the event: before the start the entry goes; after it, by the format's rule."""
    everyone = entries(ctx, event)
    needle = who.strip().strip("<>").lower()
    entry = None
    for candidate in everyone:
        account = ctx.account_by_id(candidate.account_id) if candidate.account_id else None
        if candidate.email == needle or (account is not None and account.handle.lower() == needle):
            entry = candidate
    if entry is None or entry.status == EntryStatus.WITHDRAWN:
        raise EventError(f"{who!r} is not playing in {event.name}")
    if event.status == EventStatus.REGISTRATION:
        ctx.session.delete(entry)
        return f"{who} is no longer entered in {event.name}."
    if event.status == EventStatus.FINISHED:
        raise EventError(f"{event.name} is over")
    event = lock_event(ctx.session, event.id or 0)
    fmt = format_of(event.format)
    data = load(ctx.session, event)
    me = entry.account_id or 0
    mine = [g for g in data.games if me in (g.white_id, g.black_id)]
    played = [g for g in mine if g.status == GameStatus.FINISHED]
    entry.status, entry.withdrawn_round = EntryStatus.WITHDRAWN, event.current_round
    report = f"{data.handle(me)} has withdrawn from {event.name}"
    if fmt.annuls_withdrawal(len(played), len(mine)):
        entry.annulled = True
        report += f" after {len(played)} of {len(mine)} games: all their results are annulled"
    else:
        report += ": their unfinished games are forfeited"
    ctx.session.add(entry)
    for game in mine:
        if game.status == GameStatus.ACTIVE:
            seat = Seat.WHITE if game.white_id == me else Seat.BLACK
            end_game(ctx, game, Outcome.win(seat.other, f"forfeit: {data.handle(me)} withdrew"))
    fmt.withdrawn(ctx, event, me)
    ctx.session.flush()
    progress(ctx, event, None)
    return report + "."


def list_events(ctx: Context) -> list[str]:
    """One line per event, newest last; an overdue round deadline is flagged for the organiser."""
    lines = []
    now = ctx.services.now()
    for event in ctx.session.exec(select(Event).order_by(col(Event.id))).all():
        line = summary(load(ctx.session, event))
        deadline = event.round_deadline
        if deadline is not None and event.status == EventStatus.RUNNING:
            if deadline.tzinfo is None:
                deadline = deadline.replace(tzinfo=now.tzinfo)
            line += f"; round deadline {deadline:%Y-%m-%d %H:%M} UTC"
            if deadline <= now:
                line += " PASSED: adjudicate the unfinished games (pbem event adjudicate)"
        lines.append(line)
    return lines
