"""The text `pbem admin` prints: games, one game, players, the queues and the failed mails, for a terminal."""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlmodel import col, func, select

from pbem.app.clocks import clock_lines
from pbem.app.context import Context
from pbem.app.game_mail import board_block
from pbem.app.game_state import engine_for, handles, records
from pbem.app.records import numbered_movetext
from pbem.clock import duration
from pbem.engine.base import Audience, Seat
from pbem.store.event_models import Event
from pbem.store.models import Account, Game, InboxItem, OutboxItem
from pbem.store.queues import QueueCount
from pbem.store.vocabulary import GameStatus, InboxStatus, OutboxStatus

__all__ = ["failed_report", "game_report", "games_report", "players_report", "queue_report"]

#: The statuses of mails that wait for nothing any more: no age of the oldest for them.
_SETTLED = frozenset({InboxStatus.DONE, OutboxStatus.SENT})


def stamp(moment: datetime | None) -> str:
    """A time as the reports print it (UTC, to the minute); ``-`` for none."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if moment is not None else "-"


def age(moment: datetime, now: datetime) -> str:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
    return duration((now - aware).total_seconds())


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: frozenset[int] = frozenset()) -> str:
    """Columns padded to their widest cell (``right``: the columns of numbers); no trailing spaces."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [cell.rjust(width) if index in right else cell.ljust(width)
                 for index, (cell, width) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(parts).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)])


def _handles(ctx: Context) -> dict[int, str]:
    return {account.id or 0: account.handle for account in ctx.session.exec(select(Account))}


def games_report(ctx: Context, status: str | None, player: Account | None) -> str:
    """One line per game, oldest first: number, variant, players, status and result, ply, deadline, last change."""
    statement = select(Game).order_by(col(Game.id))
    if status is not None:
        statement = statement.where(Game.status == status)
    if player is not None:
        statement = statement.where((Game.white_id == player.id) | (Game.black_id == player.id))
    games = ctx.session.exec(statement).all()
    if not games:
        return "(no games)"
    names = _handles(ctx)
    rows = []
    for game in games:
        result = "active" if game.status == GameStatus.ACTIVE else f"{game.result} {game.reason}".strip()
        rows.append([str(game.id), game.variant,
                     f"{names.get(game.white_id, '?')} vs {names.get(game.black_id, '?')}", result,
                     str(game.ply), stamp(game.deadline), stamp(game.updated_at)])
    return _table(["game", "variant", "white vs black", "status", "ply", "deadline", "updated"], rows,
                  right=frozenset({0, 4}))


def _seat_line(ctx: Context, game: Game, seat: Seat) -> str:
    account = ctx.account_by_id(game.white_id if seat is Seat.WHITE else game.black_id)
    if account is None:
        return f"  {seat.value.capitalize():<6} (account missing)"
    flags = " (disabled)" if account.disabled else ""
    return f"  {seat.value.capitalize():<6} {account.handle:<16} {account.email}{flags}"


def game_report(ctx: Context, game: Game) -> str:
    """One game for the operator: status, seats with their addresses, clocks, the position as the public sees
    it (never a secret) and the moves."""
    engine = engine_for(game)
    names = handles(ctx, game)
    state = engine.load(game.state)
    if game.status == GameStatus.ACTIVE:
        to_move = engine.to_act(state)
        status = f"active, {to_move.value} to move" if to_move is not None else "active"
    else:
        status = f"finished {game.result} ({game.reason})"
    lines = [f"Game {game.id}: {engine.title} ({game.variant}), {names[Seat.WHITE]} vs {names[Seat.BLACK]}",
             f"Status:   {status}, ply {game.ply}",
             f"Started:  {stamp(game.started_at)}; last change {stamp(game.updated_at)}"]
    if game.event_id is not None:
        event = ctx.session.get(Event, game.event_id)
        lines.append(f"Event:    {event.name if event else game.event_id}, round {game.event_round}")
    if game.options:
        lines.append("Options:  " + " ".join(f"{key}={value}" for key, value in sorted(game.options.items())))
    if game.draw_offer:
        lines.append(f"Draw offer standing from {game.draw_offer}")
    lines += ["", "Seats:", *(_seat_line(ctx, game, seat) for seat in Seat)]
    clock = clock_lines(ctx, game, names)
    if clock:
        lines += ["", "Clock:", *(f"  {line}" for line in clock)]
    lines += ["", "Position (as the public sees it):", board_block(ctx, game, state, Audience.PUBLIC).rstrip("\n")]
    words = numbered_movetext(records(ctx, game))
    lines += ["", "Moves:", textwrap.fill(" ".join(words), width=76, initial_indent="  ", subsequent_indent="  ",
                                          break_long_words=False, break_on_hyphens=False) if words else "  (none)"]
    return "\n".join(lines)


def _game_counts(ctx: Context) -> dict[tuple[int, str], int]:
    """Games by (account id, status), counting both seats."""
    counts: dict[tuple[int, str], int] = {}
    for seat in (col(Game.white_id), col(Game.black_id)):
        rows = ctx.session.exec(select(seat, col(Game.status), func.count()).group_by(seat, col(Game.status))).all()
        for account, status, count in rows:
            counts[(int(account), str(status))] = counts.get((int(account), str(status)), 0) + int(count)
    return counts


def players_report(ctx: Context) -> str:
    """One line per account: handle, address, registration, games active and finished, disabled, vacation."""
    accounts = ctx.session.exec(select(Account).order_by(col(Account.handle))).all()
    if not accounts:
        return "(no players)"
    counts = _game_counts(ctx)
    now = ctx.services.now()

    def games(account: Account, status: str) -> str:
        return str(counts.get((account.id or 0, status), 0))

    rows = []
    for account in accounts:
        away = account.vacation_until is not None and account.vacation_until > now
        rows.append([account.handle, account.email, stamp(account.created_at), games(account, GameStatus.ACTIVE),
                     games(account, GameStatus.FINISHED), "disabled" if account.disabled else "-",
                     f"until {stamp(account.vacation_until)}" if away else "-"])
    return _table(["handle", "email", "created", "active", "finished", "disabled", "vacation"], rows,
                  right=frozenset({3, 4}))


def queue_report(counts: Sequence[QueueCount], now: datetime) -> str:
    """The inbox and outbox counts by status, each waiting status with the age of its oldest row (answered and
    sent mails wait for nothing)."""
    rows = [[count.queue, count.status, str(count.count),
             f"{age(count.oldest, now)} ({stamp(count.oldest)})"
             if count.oldest is not None and count.status not in _SETTLED else "-"]
            for count in counts]
    return _table(["queue", "status", "count", "oldest waiting"], rows, right=frozenset({2}))


def _error_lines(text: str, full: bool) -> list[str]:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines if full else lines[-1:]


def failed_report(inbox: Sequence[InboxItem], outbox: Sequence[OutboxItem], full: bool = False) -> str:
    """The inbound mails whose processing failed and the outbound mails given up, with (the end of) the error."""
    lines = [f"Inbox: {len(inbox)} failed (requeue with 'pbem admin requeue ID' or '--all')"]
    for item in inbox:
        lines.append(f"  {item.id}  received {stamp(item.received_at)}  from {item.envelope_from or '(none)'}  "
                     f"{item.message_id}")
        lines += [f"      {line}" for line in _error_lines(item.error, full) or ["(no error kept)"]]
    lines.append(f"Outbox: {len(outbox)} given up")
    for row in outbox:
        lines.append(f"  {row.id}  queued {stamp(row.created_at)}  to {row.recipient}  {row.message_id}  "
                     f"{row.attempts} attempts")
        lines += [f"      {line}" for line in _error_lines(row.last_error, full) or ["(no error kept)"]]
    return "\n".join(lines)
