"""The sweep: reminders, late notices, losses on time (or aborts), vacation ends and daily digests, applied
idempotently.

Everything the sweep needs lives in the database (each game's clock and
``next_event_at``), so a sweep can run at any moment, twice, or late after
a restart, and does each thing exactly once: a reminder or late notice is
marked in the clock in the same transaction that records its notice, and a
game lost on time is finished, so the next sweep finds nothing left to do.
The sweep only decides: a notice's mails (boards, pictures, the game's GIF)
are written by the worker (pbem.notices), so a sweep with a hundred games
out of time takes its decisions' time, and the moves of other games go on.
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime, timedelta

from sqlmodel import Session, col, func, select

from pbem.app.clocks import clock_of, control_of, grace, resume_clocks, store_clock
from pbem.app.context import Context, Services
from pbem.app.deadline_mails import ended_notice, late_notice, reminder_notice
from pbem.app.digest import digest_mail
from pbem.app.game_state import engine_for, handles
from pbem.app.games import close_without_move, game_over
from pbem.app.secrecy import queue_outgoing
from pbem.app.settings import digest_reader, next_digest_time
from pbem.clock import Clock, duration, reminder_points
from pbem.engine.base import Outcome, Seat
from pbem.metrics import DEADLINE_EVENTS
from pbem.store.db import Database
from pbem.store.models import Account, DigestItem, Game, MoveRecord
from pbem.store.retention import purge_old_mail
from pbem.store.vocabulary import GameStatus

__all__ = ["Sweeper"]

# Built once: next_event runs after every round of the worker, and building the statement (and its cache key)
# each time cost more than SQLite's answer. The earliest game event, vacation end and digest in one statement (three
# statements were three round trips through SQLAlchemy); each subquery reads the first entry of its index.
_NEXT_EVENTS = select(
    select(func.min(Game.next_event_at)).where(col(Game.status) == GameStatus.ACTIVE).scalar_subquery(),
    select(func.min(Account.vacation_until)).scalar_subquery(),
    select(func.min(Account.next_digest_at)).scalar_subquery(),
)

log = logging.getLogger(__name__)

#: Due games decided per transaction: one commit for many (on PostgreSQL a commit is a WAL flush), while a
#: transaction still holds few game rows locked against the moves that might arrive meanwhile.
SWEEP_BATCH = 50
#: How often the sweep empties old mail bodies (the [retention] limits are in days).
PURGE_EVERY = timedelta(hours=1)


class Sweeper:
    """Applies what is due; one transaction per game, so one bad game cannot block the others."""

    def __init__(self, db: Database, services: Services) -> None:
        self.db = db
        self.services = services
        self._purged_at: datetime | None = None  # retention runs at most once an hour per process

    def sweep(self) -> int:
        """Apply everything due now; returns how many games or accounts it changed."""
        now = self.services.now()
        changed = self._end_vacations(now)
        changed += self._send_digests(now)
        self._purge(now)
        with self.db.read() as session:
            rows = session.exec(select(Game.id).where(Game.status == GameStatus.ACTIVE,
                                                      col(Game.next_event_at) <= now))
            due = [game_id for game_id in rows if game_id is not None]  # stored rows always have one
        for start in range(0, len(due), SWEEP_BATCH):
            changed += self._sweep_batch(due[start:start + SWEEP_BATCH], now)
        return changed

    def _sweep_batch(self, game_ids: list[int], now: datetime) -> int:
        """Several games in one transaction (one commit, one fsync), each in a savepoint of its own: a game
        that fails is rolled back alone, logged, and retried by the next sweep; the others still apply."""
        changed = 0
        with self.db.transaction() as session:
            # The batch's games (locked, in id order as a move would lock them) and their players, in two
            # looks instead of three a game: on PostgreSQL every look is a round trip.
            games = {game.id: game for game in session.exec(self.db.locked(
                select(Game).where(col(Game.id).in_(game_ids)).order_by(col(Game.id))))}
            players = {player for game in games.values() for player in (game.white_id, game.black_id)}
            accounts = {account.id: account for account in session.exec(
                select(Account).where(col(Account.id).in_(players)))}
            for game_id in game_ids:
                try:
                    with session.begin_nested():
                        changed += self._sweep_game(session, games.get(game_id), accounts, now)
                except Exception:
                    log.exception("sweep of game %s failed", game_id)
        return changed

    def next_event(self) -> datetime | None:
        """When the next sweep has work: the earliest game event, vacation end or digest."""
        row = self.db.polled_row(_NEXT_EVENTS)  # asked after every round of mail: no session
        moments = [m for m in row or () if m is not None]
        return min(moments) if moments else None

    # -- games -----------------------------------------------------------------------------

    def _sweep_game(self, session: Session, game: Game | None, accounts: dict[int | None, Account],
                    now: datetime) -> int:
        if (game is None or game.id is None or game.status != GameStatus.ACTIVE or game.next_event_at is None
                or game.next_event_at > now):
            return 0  # another sweep (or a move) got there first
        ctx = Context(session=session, services=self.services)
        ctx.accounts.update((player, accounts[player]) for player in (game.white_id, game.black_id)
                            if player in accounts)
        ctx.touched_games[game.id] = game
        clock = clock_of(self.services.config, game) or self._legacy_clock(ctx, game)
        if clock is None or clock.to_move is None or clock.deadline() is None:
            store_clock(self.services.config, game, clock)
        else:
            clock = self._apply(ctx, game, clock, now)
            if game.status == GameStatus.ACTIVE:
                store_clock(self.services.config, game, clock)
        game.version += 1
        session.add(game)
        queue_outgoing(ctx)
        return 1

    def _legacy_clock(self, ctx: Context, game: Game) -> Clock | None:
        """A clock for a game from before clocks were kept: its turn ends at the deadline it had."""
        if game.deadline is None:
            return None
        control = control_of(self.services.config, game.time_control)
        engine = engine_for(game)
        to_move = engine.to_act(engine.load(game.state))
        started = game.deadline - timedelta(seconds=control.time_to_spend(control.budget_seconds))
        return Clock.start(control, started, to_move.value if to_move else None)

    def _apply(self, ctx: Context, game: Game, clock: Clock, now: datetime) -> Clock:
        config = self.services.config
        deadline = clock.deadline()
        assert deadline is not None and clock.to_move is not None
        seat = Seat(clock.to_move)
        if now >= deadline + grace(config):
            self._lose_on_time(ctx, game, clock, seat)
            return clock
        if now >= deadline and not clock.late:
            self._late_notice(ctx, game, seat, deadline + grace(config))
            return dataclasses.replace(clock, late=True, reminded=tuple(range(99)))
        points = reminder_points(clock, list(config.games.reminders), config.games.remind_before_days)
        passed = sum(1 for point in points if point <= now)
        if passed > len(clock.reminded):
            self._remind(ctx, game, seat, deadline, now)
            return clock.mark_reminded(passed)
        return clock

    def _remind(self, ctx: Context, game: Game, seat: Seat, deadline: datetime, now: datetime) -> None:
        left = duration((deadline - now).total_seconds())
        log.info("deadline: game %s, reminder to %s (%s left)", game.id, seat.value, left)
        DEADLINE_EVENTS.labels("reminder").inc()
        ctx.session.add(reminder_notice(game, seat, deadline, left))

    def _late_notice(self, ctx: Context, game: Game, seat: Seat, forfeit_at: datetime) -> None:
        log.info("deadline: game %s, %s's time is up; late notices to follow (forfeit at %s)", game.id, seat.value,
                 forfeit_at.strftime("%Y-%m-%d %H:%M UTC"))
        DEADLINE_EVENTS.labels("late").inc()
        ctx.session.add(late_notice(game, seat, forfeit_at, self._aborts(ctx, game, seat)))

    def _lose_on_time(self, ctx: Context, game: Game, clock: Clock, seat: Seat) -> None:
        names = handles(ctx, game)
        if self._aborts(ctx, game, seat):
            outcome = Outcome("*", f"aborted: {names[seat]} made no first move")
        else:
            outcome = Outcome.win(seat.other, f"{names[seat]} lost on time")
        log.info("deadline: game %s, %s out of time: %s", game.id, seat.value, outcome.reason)
        DEADLINE_EVENTS.labels("aborted" if outcome.result == "*" else "timeout").inc()
        game.clock = clock.dump()
        close_without_move(ctx, game, outcome)
        game_over(ctx, game)  # scored and rated now; the mails follow from the worker
        ctx.session.add(ended_notice(game, seat, outcome))

    def _aborts(self, ctx: Context, game: Game, seat: Seat) -> bool:
        """Fair starts: a casual game whose side out of time never moved is aborted, not lost (if configured).

        Event games are lost on time as before: a pairing needs every game scored.
        """
        if not self.services.config.games.abort_without_first_move or game.event_id is not None:
            return False
        moved = ctx.session.exec(select(MoveRecord.id).where(MoveRecord.game_id == game.id,
                                                             MoveRecord.seat == seat.value).limit(1)).first()
        return moved is None

    # -- vacations -------------------------------------------------------------------------

    def _end_vacations(self, now: datetime) -> int:
        with self.db.read() as session:
            ended = list(session.exec(select(Account.id).where(col(Account.vacation_until) <= now)))
        for account_id in ended:
            with self.db.transaction() as session:
                account = session.get(Account, account_id)
                if account is None or account.vacation_until is None or account.vacation_until > now:
                    continue
                ctx = Context(session=session, services=self.services)
                account.vacation_until = None
                session.add(account)
                resume_clocks(ctx, account, now)
                queue_outgoing(ctx)
        return len(ended)

    # -- digests ---------------------------------------------------------------------------

    def _send_digests(self, now: datetime) -> int:
        """Each digest due: one mail (if there is anything to tell), the held items gone, the next one set."""
        with self.db.read() as session:
            due = list(session.exec(select(Account.id).where(col(Account.next_digest_at) <= now)))
        for account_id in due:
            try:
                with self.db.transaction() as session:
                    account = session.exec(self.db.locked(select(Account).where(Account.id == account_id))).first()
                    if account is None or account.next_digest_at is None or account.next_digest_at > now:
                        continue  # another sweep sent it
                    ctx = Context(session=session, services=self.services)
                    ctx.accounts[account.id or 0] = account
                    held = session.exec(select(DigestItem.id).where(DigestItem.account_id == account_id)).first()
                    # A player back to 'each' gets a last digest only if something was held for them.
                    mail = digest_mail(ctx, account) if digest_reader(account) or held is not None else None
                    if mail is not None:
                        ctx.send(mail)
                    for item in session.exec(select(DigestItem).where(DigestItem.account_id == account_id)):
                        session.delete(item)
                    account.last_digest_at = now
                    account.next_digest_at = next_digest_time(account, now) if digest_reader(account) else None
                    session.add(account)
                    queue_outgoing(ctx)
                    log.info("digest for account %s: %s", account_id, "sent" if mail else "nothing to tell")
            except Exception:  # logged and retried by the next sweep; the others still go
                log.exception("digest for account %s failed", account_id)
        return len(due)

    # -- retention -------------------------------------------------------------------------

    def _purge(self, now: datetime) -> None:
        """Empty old mail bodies ([retention]); hourly is plenty for a limit counted in days."""
        if self._purged_at is not None and now - self._purged_at < PURGE_EVERY:
            return
        retention = self.services.config.retention
        try:
            purged = purge_old_mail(self.db, now, retention.inbound_days, retention.outbound_days)
        except Exception:  # the next sweep retries; nothing else waits on it
            log.exception("retention purge failed")
            return
        self._purged_at = now
        if purged.inbound or purged.outbound:
            log.info("retention: emptied %d inbound and %d outbound mail bodies (older than %g / %g days)",
                     purged.inbound, purged.outbound, retention.inbound_days, retention.outbound_days)
