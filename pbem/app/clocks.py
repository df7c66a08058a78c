"""Clocks of stored games: start, pass on, pause for vacations, and the clock block of game mails."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from sqlmodel import col, select

from pbem.app.context import Context
from pbem.app.game_state import active_game_of, computer_seat
from pbem.app.local_time import stamp
from pbem.clock import Clock, TimeControl, duration, reminder_points
from pbem.config import Config
from pbem.engine.base import Seat
from pbem.store.models import Account, Game
from pbem.store.vocabulary import GameStatus

__all__ = [
    "clock_lines",
    "clock_of",
    "control_of",
    "next_event",
    "on_vacation",
    "pass_clock",
    "pause_clocks",
    "player_games",
    "restart_clock",
    "resume_clocks",
    "start_clock",
    "store_clock",
    "vacation_days_left",
]


def control_of(config: Config, time_control: str) -> TimeControl:
    return TimeControl.parse(time_control, default_days=config.games.days_per_move)


def clock_of(config: Config, game: Game) -> Clock | None:
    return Clock.load(game.clock) if game.clock else None


def on_vacation(account: Account | None, now: datetime) -> bool:
    return account is not None and account.vacation_until is not None and account.vacation_until > now


def grace(config: Config) -> timedelta:
    return timedelta(days=config.games.grace_days)


def next_event(config: Config, clock: Clock) -> datetime | None:
    """The earliest moment the sweep has something to do for this clock."""
    deadline = clock.deadline()
    if deadline is None:
        return None
    points = reminder_points(clock, _fractions(config), config.games.remind_before_days)
    pending = points[len(clock.reminded):]
    candidates = [*pending[:1], deadline + grace(config)]
    if not clock.late:
        candidates.append(deadline)
    return min(candidates)


def _fractions(config: Config) -> list[float]:
    return list(config.games.reminders)


def store_clock(config: Config, game: Game, clock: Clock | None) -> None:
    """Write the clock and what the sweep indexes on (deadline, next event) to the game row."""
    if clock is None or game.status != GameStatus.ACTIVE:
        game.deadline = None
        game.next_event_at = None
        if clock is not None:
            game.clock = clock.dump()
        return
    game.clock = clock.dump()
    game.deadline = clock.deadline()
    computer = computer_seat(game)
    # The computer's turn has no reminders and no deadline to miss: it moves as soon as it has thought
    # (after a restart, at once), so the sweep must never time it out while the server was down.
    thinking = computer is not None and clock.to_move == computer.value
    game.next_event_at = None if thinking else next_event(config, clock)


def _paused(ctx: Context, game: Game, seat: Seat | None, now: datetime) -> bool:
    if seat is None:
        return False
    player = ctx.account_by_id(game.white_id if seat is Seat.WHITE else game.black_id)
    return on_vacation(player, now)


def start_clock(ctx: Context, game: Game, to_move: Seat | None) -> None:
    now = ctx.services.now()
    control = control_of(ctx.services.config, game.time_control)
    game.time_control = str(control)
    clock = Clock.start(control, now, to_move.value if to_move else None, _paused(ctx, game, to_move, now))
    store_clock(ctx.services.config, game, clock)


def pass_clock(ctx: Context, game: Game, mover: Seat, to_move: Seat | None) -> None:
    """``mover`` has moved; the clock of ``to_move`` starts (paused if they are on vacation)."""
    clock = clock_of(ctx.services.config, game)
    if clock is None:
        return start_clock(ctx, game, to_move)
    now = ctx.services.now()
    clock = clock.moved(mover.value, now, to_move.value if to_move else None, _paused(ctx, game, to_move, now))
    store_clock(ctx.services.config, game, clock)
    return None


def restart_clock(ctx: Context, game: Game, to_move: Seat | None) -> None:
    """After a takeback: the side to move thinks afresh from now, budgets as they were."""
    clock = clock_of(ctx.services.config, game)
    if clock is None:
        return start_clock(ctx, game, to_move)
    now = ctx.services.now()
    clock = dataclasses.replace(clock, to_move=to_move.value if to_move else None, reminded=(), late=False,
                                turn_started=None if _paused(ctx, game, to_move, now) else now)
    store_clock(ctx.services.config, game, clock)
    return None


def vacation_days_left(config: Config, account: Account, now: datetime) -> int:
    allowance = config.games.vacation_days_per_year
    used = account.vacation_used_days if account.vacation_year == now.year else 0
    return max(0, allowance - used)


def clock_lines(ctx: Context, game: Game, names: dict[Seat, str]) -> list[str]:
    """The clock block of a game mail, in the manner of Richard's PBeM Server: written once for the mails of one
    unit of work (a move's reply and its opponent's mail show the same block) while what it shows is unchanged."""
    players = [ctx.account_by_id(game.white_id if seat is Seat.WHITE else game.black_id) for seat in Seat]
    shown = (game.status, tuple(names.items()),
             tuple((p.vacation_until, p.vacation_used_days, p.vacation_year) if p else None for p in players))
    key = f"clock lines {game.id}"
    written = ctx.memo.get(key)
    # The clock is a new dict whenever it changes (store_clock), and a context with another clock to read the time
    # from (pbem.app.public's, for a finished game) has services of its own: both kept here, compared by identity.
    if written is not None and written[0] is game.clock and written[1] is ctx.services and written[2] == shown:
        return list(written[3])
    lines = _clock_lines(ctx, game, names, players)
    ctx.memo[key] = (game.clock, ctx.services, shown, lines)
    return list(lines)


def _clock_lines(ctx: Context, game: Game, names: dict[Seat, str], players: list[Account | None]) -> list[str]:
    config = ctx.services.config
    clock = clock_of(config, game)
    if clock is None:
        return []
    now = ctx.services.now()
    lines = [f"Time control: {clock.control.describe()}",
             f"Started:      {stamp(clock.started)}",
             f"Last move:    {stamp(clock.last_move) if clock.last_move else '-'}"]
    for seat, account in zip(Seat, players, strict=True):
        left = clock.left(seat.value, now)
        running = ""
        if game.status == GameStatus.ACTIVE and clock.to_move == seat.value:
            running = " (paused: on vacation)" if clock.turn_started is None else " (running)"
        vacation = f", vacation days left {vacation_days_left(config, account, now)}" if account else ""
        lines.append(f"{seat.value.capitalize():<6} {names[seat]:<16} time left {duration(left)}{running}{vacation}")
    deadline = clock.deadline()
    if game.status == GameStatus.ACTIVE and deadline is not None:
        until = duration((deadline - now).total_seconds())
        lines.append(f"Deadline:     {stamp(deadline)} ({until} from now)")
        if grace(config).total_seconds() > 0:
            lines.append(f"Grace:        {duration(grace(config).total_seconds())} after the deadline")
    return lines


def resume_clocks(ctx: Context, account: Account, now: datetime) -> None:
    """Restart the paused clocks of ``account``'s games (its vacation is over)."""
    for game in player_games(ctx, account):
        clock = clock_of(ctx.services.config, game)
        if clock is None or clock.turn_started is not None or on_vacation(account, now):
            continue
        store_clock(ctx.services.config, game, clock.resume(now))
        game.version += 1
        ctx.session.add(game)


def pause_clocks(ctx: Context, account: Account, now: datetime) -> list[Game]:
    """Stop the running clocks of ``account``'s games where it is to move; returns all its active games."""
    games = player_games(ctx, account)
    for game in games:
        clock = clock_of(ctx.services.config, game)
        seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
        if clock is None or clock.to_move != seat.value:
            continue
        store_clock(ctx.services.config, game, clock.pause(now))
        game.version += 1
        ctx.session.add(game)
    return games


def player_games(ctx: Context, account: Account) -> list[Game]:
    """``account``'s active games, locked (and read afresh) for their clocks to be written: a move committed on
    another instance between this read and that write would otherwise have its clock overwritten."""
    statement = select(Game).where(active_game_of(account.id)).order_by(col(Game.id)).with_for_update()
    return list(ctx.session.exec(statement.execution_options(populate_existing=True)))
