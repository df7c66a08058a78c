"""A realistic database of N games written straight through the store (Core bulk inserts), for the scale benches."""

from __future__ import annotations

import dataclasses
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlalchemy.engine import Connection

from pbem.app.clocks import control_of, next_event
from pbem.clock import Clock
from pbem.config import Config
from pbem.store.db import Database
from pbem.store.models import Account, DigestItem, Game, InboxItem, MoveRecord, Observation, OutboxItem
from pbem.store.vocabulary import GameStatus, InboxStatus, OutboxKind, OutboxStatus
from pbem.variants import all_variants, get_variant

__all__ = ["ActiveGame", "Seeded", "seed"]

PLAYER_DOMAIN = "players.example"
#: Share of the games still being played; the rest are finished.
ACTIVE_SHARE = 0.2
#: Positions per variant to draw the games from (each a few plies in; played once, reused).
POSITIONS_PER_VARIANT = 16
#: Rows per INSERT batch: large enough to amortise round trips, small enough to keep memory flat.
BATCH = 5000
#: The time controls of the active games (empty: the server's default days per move).
TIME_CONTROLS = ("", "days 3", "days 5", "days 14", "time 10/30")


@dataclass(frozen=True)
class Ply:
    """One turn of a pooled position's history: what a MoveRecord row holds."""

    seat: str
    move_number: int
    record: str
    state_after: dict[str, Any]


@dataclass(frozen=True)
class Position:
    """A position a few plies from the start, with how it was reached."""

    variant: str
    plies: tuple[Ply, ...]
    state: dict[str, Any]


@dataclass
class ActiveGame:
    """An active seeded game the benches may play on: who sits where and the position."""

    id: int
    variant: str
    white: str  # handles; the email is HANDLE@players.example
    black: str
    white_id: int
    black_id: int
    state: dict[str, Any]
    due: bool = False  # its deadline has passed: the sweep ends it
    digest: bool = False  # a player reads digests: the mails about the opponent's moves wait for the digest


@dataclass
class Seeded:
    """What was written, and the active games by purpose."""

    games: int = 0
    active: int = 0
    accounts: int = 0
    moves: int = 0
    inbox: int = 0
    outbox: int = 0
    due: int = 0
    seconds: float = 0.0
    playable: list[ActiveGame] = field(default_factory=list)  # active, not due, clock running, humans only

    def figures(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in
                ("games", "active", "accounts", "moves", "inbox", "outbox", "due", "seconds")}


def positions(rng: random.Random) -> dict[str, list[Position]]:
    """A few positions per variant, each 2 to 8 random board moves (no phase-outs: they need a secret) in."""
    pool: dict[str, list[Position]] = {}
    for variant in all_variants():
        engine = get_variant(variant.key)
        found = []
        while len(found) < POSITIONS_PER_VARIANT:
            state, plies = engine.setup(), []
            for _ in range(rng.randint(2, 8)):
                if engine.outcome(state) is not None:
                    break
                moves = sorted(engine.describe(state, a) for a in engine.legal_actions(state))
                board_moves = [text for text in moves if "@" not in text]
                if not board_moves:
                    break
                seat, number = engine.to_act(state), engine.move_number(state)
                transition = engine.apply(state, engine.parse_action(state, rng.choice(board_moves)))
                state = transition.state
                plies.append(Ply(str(seat), number, transition.record, engine.dump(state)))
            if plies and engine.outcome(state) is None:
                found.append(Position(variant.key, tuple(plies), engine.dump(state)))
        pool[variant.key] = found
    return pool


def batches(rows: Iterator[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    batch: list[dict[str, Any]] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH:
            yield batch
            batch = []
    if batch:
        yield batch


def insert_all(connection: Connection, table: Any, rows: Iterator[dict[str, Any]]) -> int:
    count = 0
    for batch in batches(rows):
        connection.execute(insert(table), batch)
        count += len(batch)
    return count


class Seeder:
    """Writes accounts, games, their moves and mail history; ``now`` is the moment the clocks are set against."""

    def __init__(self, config: Config, size: int, now: datetime, seed: int, due: int) -> None:
        self.config = config
        self.size = size
        self.now = now
        self.rng = random.Random(seed)
        self.pool = positions(random.Random(seed))
        self.variants = sorted(self.pool)
        self.accounts = max(20, size // 4)  # about 8 games per player over the server's life
        self.digest_readers = set(self.rng.sample(range(1, self.accounts + 1), self.accounts // 20))
        self.on_vacation = set(self.rng.sample(range(1, self.accounts + 1), self.accounts // 50))
        active = int(size * ACTIVE_SHARE)
        self.active_ids = set(self.rng.sample(range(1, size + 1), active))
        # The due games are spread over the table, not bunched at its start.
        self.due_ids = set(self.rng.sample(sorted(self.active_ids), min(due, active // 2)))
        self.report = Seeded(games=size, active=active, accounts=self.accounts, due=len(self.due_ids))

    # -- accounts ---------------------------------------------------------------------------

    def account_rows(self) -> Iterator[dict[str, Any]]:
        for number in range(1, self.accounts + 1):
            digest = number in self.digest_readers
            vacation = number in self.on_vacation
            yield {"id": number, "handle": f"p{number}", "email": f"p{number}@{PLAYER_DOMAIN}",
                   "created_at": self.now - timedelta(days=400), "vacation_year": self.now.year,
                   "vacation_used_days": 3 if vacation else 0,
                   "vacation_until": self.now + timedelta(days=self.rng.uniform(1, 10)) if vacation else None,
                   "settings": {"mail": "digest"} if digest else {},
                   "next_digest_at": self.now + timedelta(hours=self.rng.uniform(1, 24)) if digest else None,
                   "last_digest_at": self.now - timedelta(hours=12) if digest else None,
                   "disabled": False}

    # -- games ------------------------------------------------------------------------------

    def game_rows(self) -> Iterator[tuple[dict[str, Any], Position]]:
        for number in range(1, self.size + 1):
            variant = self.variants[number % len(self.variants)]
            position = self.rng.choice(self.pool[variant])
            white, black = self.rng.sample(range(1, self.accounts + 1), 2)
            active = number in self.active_ids
            started = self.now - timedelta(days=self.rng.uniform(1, 60) if active else self.rng.uniform(60, 900))
            row: dict[str, Any] = {
                "id": number, "variant": variant, "options": {}, "state": position.state,
                "white_id": white, "black_id": black, "ply": len(position.plies), "event_id": None,
                "event_round": 0, "extras": {}, "draw_offer": "", "computer_due_at": None,
                "version": len(position.plies) + 1, "started_at": started, "updated_at": started,
            }
            if active:
                row.update(self.running_clock(number, position, started, white, black))
            else:
                result = self.rng.choice(("1-0", "0-1", "1/2-1/2"))
                row.update(status=GameStatus.FINISHED, result=result, reason="resigned" if result != "1/2-1/2"
                           else "draw agreed", time_control="days 7", deadline=None, next_event_at=None,
                           clock={})
            yield row, position

    def running_clock(self, number: int, position: Position, started: datetime, white: int,
                      black: int) -> dict[str, Any]:
        """An active game's clock: the turn started before any reminder point, or past the deadline if due."""
        control = control_of(self.config, self.rng.choice(TIME_CONTROLS))
        to_move = "white" if len(position.plies) % 2 == 0 else "black"
        mover = white if to_move == "white" else black
        budget = control.budget_seconds
        if number in self.due_ids:
            turn_started: datetime | None = self.now - timedelta(seconds=budget + 3600)
        elif mover in self.on_vacation:
            turn_started = None  # paused: no deadline while its player is away
        else:  # before the first reminder point (50% of the turn), so that nothing else is due
            turn_started = self.now - timedelta(seconds=self.rng.uniform(0, 0.45) * budget)
        moved = {"white": (len(position.plies) + 1) // 2, "black": len(position.plies) // 2}
        clock = dataclasses.replace(Clock.start(control, started, to_move), turn_started=turn_started, moves=moved,
                                    last_move=turn_started or self.now - timedelta(days=1))
        event = next_event(self.config, clock)
        assert number in self.due_ids or event is None or event > self.now, (number, event, self.now)
        return {"status": GameStatus.ACTIVE, "result": "*", "reason": "", "time_control": str(control),
                "clock": clock.dump(), "deadline": clock.deadline(), "next_event_at": event}

    def move_rows(self, games: list[tuple[dict[str, Any], Position]]) -> Iterator[dict[str, Any]]:
        for row, position in games:
            played = row["started_at"]
            for ply, turn in enumerate(position.plies, start=1):
                played = played + timedelta(hours=self.rng.uniform(1, 48))
                yield {"game_id": row["id"], "ply": ply, "seat": turn.seat, "move_number": turn.move_number,
                       "record": turn.record, "state_after": turn.state_after, "played_at": played}

    def mail_rows(self, games: list[tuple[dict[str, Any], Position]]) -> tuple[list[dict[str, Any]],
                                                                                 list[dict[str, Any]]]:
        """The mail a game's moves left behind: one inbound mail per move, two replies, bodies purged long ago
        (the rows stay for duplicate detection, as retention keeps them)."""
        inbox: list[dict[str, Any]] = []
        outbox: list[dict[str, Any]] = []
        for row, position in games:
            for ply in range(1, len(position.plies) + 1):
                at = row["started_at"] + timedelta(hours=ply)
                mover, other = (row["white_id"], row["black_id"]) if ply % 2 else (row["black_id"], row["white_id"])
                inbox.append({"message_id": f"<seed-{row['id']}-{ply}@{PLAYER_DOMAIN}>",
                              "envelope_from": f"p{mover}@{PLAYER_DOMAIN}", "recipients": [], "raw": b"",
                              "status": InboxStatus.DONE, "error": "", "received_at": at, "processed_at": at})
                for recipient in (mover, other):
                    outbox.append({"recipient": f"p{recipient}@{PLAYER_DOMAIN}",
                                   "message_id": f"<seed-{row['id']}-{ply}-{recipient}@pbem.localhost>",
                                   "raw": b"", "game_id": row["id"], "kind": OutboxKind.REPLY,
                                   "status": OutboxStatus.SENT, "attempts": 1, "next_attempt_at": at,
                                   "leased_by": "", "last_error": "", "created_at": at, "sent_at": at})
        return inbox, outbox

    def playable(self, row: dict[str, Any]) -> ActiveGame:
        return ActiveGame(id=row["id"], variant=row["variant"], white=f"p{row['white_id']}",
                          black=f"p{row['black_id']}", white_id=row["white_id"], black_id=row["black_id"],
                          state=row["state"], due=row["id"] in self.due_ids,
                          digest=bool({row["white_id"], row["black_id"]} & self.digest_readers))

    def write(self, connection: Connection, mail_history: bool) -> Seeded:
        report = self.report
        insert_all(connection, Account.__table__, self.account_rows())
        chunk: list[tuple[dict[str, Any], Position]] = []
        for pair in self.game_rows():
            chunk.append(pair)
            if len(chunk) >= BATCH:
                self.write_games(connection, chunk, mail_history)
                chunk = []
        if chunk:
            self.write_games(connection, chunk, mail_history)
        return report

    def write_games(self, connection: Connection, chunk: list[tuple[dict[str, Any], Position]],
                    mail_history: bool) -> None:
        report = self.report
        connection.execute(insert(Game.__table__), [row for row, _ in chunk])
        report.moves += insert_all(connection, MoveRecord.__table__, self.move_rows(chunk))
        if mail_history:
            inbox, outbox = self.mail_rows(chunk)
            report.inbox += insert_all(connection, InboxItem.__table__, iter(inbox))
            report.outbox += insert_all(connection, OutboxItem.__table__, iter(outbox))
        for row, _ in chunk:
            if row["status"] == GameStatus.ACTIVE and row["clock"]["turn_started"] is not None:
                game = self.playable(row)
                if game.due or not ({row["white_id"], row["black_id"]} & self.on_vacation):
                    report.playable.append(game)
        # Some games are watched, and digest readers hold a day's news.
        observed = [row for row, _ in chunk if self.rng.random() < 0.05]
        insert_all(connection, Observation.__table__, iter([
            {"game_id": row["id"], "account_id": self.rng.randint(1, self.accounts), "since": row["started_at"]}
            for row in observed]))
        held = [row for row, _ in chunk if row["status"] == GameStatus.ACTIVE
                and ({row["white_id"], row["black_id"]} & self.digest_readers)]
        insert_all(connection, DigestItem.__table__, iter([
            {"account_id": next(iter({row["white_id"], row["black_id"]} & self.digest_readers)),
             "game_id": row["id"], "news": "a move was played", "notes": "", "created_at": self.now}
            for row in held]))


def seed(db: Database, config: Config, size: int, now: datetime, seed_value: int = 1, due: int = 100,
         mail_history: bool = True) -> Seeded:
    """Write ``size`` games (20% active) into ``db``; ``due`` of the active games are past their deadline."""
    started = time.perf_counter()
    seeder = Seeder(config, size, now, seed_value, due)
    with db.engine.begin() as connection:
        report = seeder.write(connection, mail_history)
    if not db.is_sqlite:
        # Sequences follow explicit ids only when told. VACUUM ANALYZE does what autovacuum would do soon
        # after a load like this one on a live server (statistics for the planner, the visibility map, hint
        # bits), so that it does not run, or first reads set hint bits, in the middle of a measurement.
        with db.engine.begin() as connection:
            for table in ("account", "game"):
                connection.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")
            # The load's pages written out now, not by a checkpoint spread over the next minutes (what a server
            # running for a while has long done): otherwise the measurement's commits wait on the load's I/O.
            connection.exec_driver_sql("CHECKPOINT")
    else:
        raw = db.engine.raw_connection()  # outside a transaction (SQLAlchemy's would begin one: no checkpoint then)
        try:
            raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()
    os.sync()  # and the files' dirty pages, which the kernel would otherwise write back during the measurement
    report.seconds = time.perf_counter() - started
    return report
