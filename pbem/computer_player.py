"""The computer's turns in the server: find the games that wait for it, search in worker processes, play once.

What the computer owes is derived from the stored games (``Game.computer_due_at``), never kept in
memory, so a server killed while the computer thinks simply thinks again after its restart. Each turn:

1. claim the game (on PostgreSQL a per-game advisory lock on a connection of its own, so of several
   instances exactly one thinks about a game; it dies with its instance);
2. in one short transaction, build the question from the computer's seat view (pbem.app.computer);
3. search in a process of the pool (``[computer] workers``), outside the event loop and the GIL, so the
   SMTP listener and the mail worker stay responsive;
4. in one transaction with the game row locked, play the move if the game is still the one searched.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Integer, bindparam, exists, literal, or_
from sqlmodel import col, select

from pbem.app.analysis import AnalysisPlan, finish_analysis, plan_analysis
from pbem.app.computer import Plan, carry_out, plan_turn, tell_computer_stuck
from pbem.app.context import Context, Services
from pbem.app.secrecy import queue_outgoing
from pbem.app.thinking import Answer, Question, think, watch_parent
from pbem.children import named
from pbem.metrics import COMPUTER_MOVES, COMPUTER_SECONDS
from pbem.store.db import Database, GameClaims
from pbem.store.models import AnalysisRequest, Game

__all__ = ["ComputerPlayer", "computer_work_waiting"]

# Built once: the worker asks after every round of mail whether the computer has any work (_ANY_DUE), and the
# server's computer loop, woken by that, which work (_DUE_GAMES, _DUE_ANALYSES).
_DUE_GAMES = (select(Game.id).where(col(Game.computer_due_at).is_not(None)).order_by(col(Game.computer_due_at))
              .limit(bindparam("limit", type_=Integer)))
_DUE_ANALYSES = (select(AnalysisRequest.id).where(col(AnalysisRequest.done_at).is_(None))
                 .order_by(col(AnalysisRequest.id)).limit(bindparam("limit", type_=Integer)))
_ANY_DUE = select(literal(1)).where(or_(exists(select(Game.id).where(col(Game.computer_due_at).is_not(None))),
                                         exists(select(AnalysisRequest.id).where(col(AnalysisRequest.done_at).is_(None)))))

log = logging.getLogger(__name__)

#: An analysis by mail thinks this long (capped by max_seconds_per_move).
ANALYSIS_SECONDS = 5.0
#: After a failed turn the game waits this long before the next try, doubling up to MAX_BACKOFF.
FIRST_BACKOFF = timedelta(seconds=5)
MAX_BACKOFF = timedelta(minutes=10)
#: After this many failed tries in a row the human player of the game is told (once per streak).
TELL_AFTER = 3


def computer_work_waiting(db: Database) -> bool:
    """Whether any game owes a computer move or answer, or an analysis is asked: the worker tells the server after
    each round of mail, whose computer loop then looks for the work (it looked after every round, two statements
    in a thread, on servers where nobody plays the computer too). A poll on the queues' bare connection
    (``Database.waiting``): 130 µs in a read session, most of it the session's."""
    return db.waiting(_ANY_DUE)


class ComputerPlayer:
    """Plays the computer's turns and answers analyses; ``workers`` searches at a time."""

    def __init__(self, db: Database, services: Services, on_mail: Callable[[], None] = lambda: None) -> None:
        self.db = db
        self.services = services
        self.settings = services.config.computer
        self.claims = GameClaims(db)
        self._on_mail = on_mail  # wakes the delivery loop once a move's mails are queued
        self._pool: ProcessPoolExecutor | None = None
        self._busy: set[str] = set()  # "game:N" / "analysis:N" being worked on here
        self._backoff: dict[str, tuple[datetime, timedelta]] = {}
        self._failures: dict[str, int] = {}  # failed tries in a row, by key
        self._tasks: set[asyncio.Task[None]] = set()

    # -- what is due ----------------------------------------------------------------------------

    def due(self) -> list[str]:
        """Work waiting, oldest first: games that owe a move or answer, then analyses asked by mail."""
        if not self.settings.enabled:
            return []
        limit = {"limit": self.settings.workers * 4}
        with self.db.read() as session:
            games = session.exec(_DUE_GAMES, params=limit).all()
            analyses = session.exec(_DUE_ANALYSES, params=limit).all()
        now = self.services.now()
        keys = [f"game:{n}" for n in games] + [f"analysis:{n}" for n in analyses]
        return [key for key in keys if key not in self._busy and self._backoff.get(key, (now, None))[0] <= now]

    # -- one turn, in steps (each a transaction of its own; the search in between holds none) --------

    def prepare(self, key: str) -> Plan | AnalysisPlan | None:
        kind, number = key.split(":")
        with self.db.transaction() as session:
            ctx = Context(session=session, services=self.services)
            plan: Plan | AnalysisPlan | None
            if kind == "game":
                game = session.exec(self.db.locked(select(Game).where(Game.id == int(number)))).first()
                if game is None:
                    return None
                ctx.touched_games[int(number)] = game
                plan = plan_turn(ctx, game, self.settings.max_seconds_per_move)
                session.add(game)
            else:
                plan = plan_analysis(ctx, int(number), min(ANALYSIS_SECONDS, self.settings.max_seconds_per_move))
            queue_outgoing(ctx)  # an offer answered without a search, an analysis that needs none
            return plan

    def finish(self, plan: Plan | AnalysisPlan, answer: Answer | None) -> str:
        with self.db.transaction() as session:
            ctx = Context(session=session, services=self.services)
            if isinstance(plan, Plan):
                game = session.exec(self.db.locked(select(Game).where(Game.id == plan.game_id))).first()
                if game is None:
                    return "dropped: the game is gone"
                ctx.touched_games[plan.game_id] = game
                assert answer is not None
                done = carry_out(ctx, game, plan, answer)
                session.add(game)
            else:
                done = finish_analysis(ctx, plan, answer)
            queue_outgoing(ctx)
            return done

    def play_due_inline(self) -> int:
        """Do everything due now in this process, one after the other (tests and ``pbem admin``)."""
        done = 0
        for key in self.due():
            plan = self.prepare(key)
            if plan is not None:
                self.finish(plan, think(plan.question) if plan.question is not None else None)
                done += 1
        return done

    # -- the server's loop --------------------------------------------------------------------------

    async def start_due(self) -> int:
        """Start a task for each waiting turn while workers are free; how many were started."""
        started = 0
        for key in await asyncio.to_thread(self.due):
            if len(self._busy) >= self.settings.workers:
                break
            self._busy.add(key)
            task = asyncio.create_task(self._turn(key), name=f"pbem-computer-{key}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            started += 1
        return started

    async def _turn(self, key: str) -> None:
        claimed = False
        try:
            claimed = await asyncio.to_thread(self.claims.claim, key)
            if not claimed:
                return  # another instance is thinking about it
            plan = await asyncio.to_thread(self.prepare, key)
            if plan is None:
                return
            answer = await self._search(plan.question) if plan.question is not None else None
            done = await asyncio.to_thread(self.finish, plan, answer)
            self._backoff.pop(key, None)
            self._failures.pop(key, None)
            if answer is not None:
                COMPUTER_SECONDS.observe(answer.seconds)
            COMPUTER_MOVES.labels(key.split(":")[0]).inc()
            log.info("computer, %s: %s", key.replace(":", " "), done)
            self._on_mail()
        except asyncio.CancelledError:
            raise
        except Exception:
            wait = self._backoff.get(key, (self.services.now(), FIRST_BACKOFF / 2))[1] * 2
            wait = min(wait, MAX_BACKOFF)
            self._backoff[key] = (self.services.now() + wait, wait)
            log.exception("computer, %s failed; trying again in %d s", key.replace(":", " "), wait.total_seconds())
            self._failures[key] = self._failures.get(key, 0) + 1
            if self._failures[key] == TELL_AFTER and key.startswith("game:"):
                await asyncio.to_thread(self._tell_stuck, key, self._failures[key])
        finally:
            if claimed:
                await asyncio.to_thread(self.claims.release, key)
            self._busy.discard(key)

    def _tell_stuck(self, key: str, tries: int) -> None:
        try:
            with self.db.transaction() as session:
                game = session.exec(self.db.locked(select(Game).where(Game.id == int(key.split(":")[1])))).first()
                if game is None:
                    return
                ctx = Context(session=session, services=self.services)
                ctx.touched_games[game.id or 0] = game
                if tell_computer_stuck(ctx, game, tries):
                    queue_outgoing(ctx)
                    log.error("computer, %s: failed %d times in a row; the player was told", key.replace(":", " "),
                              tries)
            self._on_mail()
        except Exception:  # telling is a courtesy: it must not stop the tries
            log.exception("computer, %s: could not tell the player it is stuck", key.replace(":", " "))

    async def _search(self, question: Question) -> Answer:
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        try:
            answer = await loop.run_in_executor(self._executor(), think, question)
        except BrokenProcessPool:
            # A worker process died (killed, out of memory): a fresh pool for the next try.
            self._pool = None
            raise
        log.debug("computer searched %s in %.2f s (depth %d, %d nodes)", question.variant,
                  time.monotonic() - started, answer.depth, answer.nodes)
        return answer

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the server has threads (asyncio.to_thread, the database pool) that a fork
            # would copy in whatever state they are.
            self._pool = ProcessPoolExecutor(max_workers=self.settings.workers,
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=named,
                                             initargs=("pbem-computer", watch_parent, os.getpid()))
        return self._pool

    async def stop(self) -> None:
        """Stop thinking: running searches are abandoned (their games are still due at the next start)."""
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._pool is not None:
            pool, self._pool = self._pool, None
            processes: dict[Any, Any] = getattr(pool, "_processes", None) or {}
            pool.shutdown(wait=False, cancel_futures=True)
            # Python 3.11's executor has no terminate_workers(): a search may have seconds left to run,
            # and a stopping server must not wait for a result it will throw away.
            for process in list(processes.values()):
                with contextlib.suppress(Exception):
                    process.terminate()
        await asyncio.to_thread(self.claims.release_all)
