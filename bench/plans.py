"""Query plans of the hot path and the sweep: every statement pbem runs, caught live on a seeded database, explained.

The statements are not listed by hand: the bench seeds a database (bench/seed.py), then stores and applies
mails (a move in an observed game whose opponent reads digests, a refused move, 'help' to the public
address, 'games' to a personal one), delivers the outbox, asks the computer's loop what is due (and the
worker whether anything is), and sweeps with deadlines, a vacation end and a digest due, catching each
statement SQLAlchemy sends and each poll the database runs on its own connections. Each distinct one is then
explained (EXPLAIN QUERY PLAN on SQLite, EXPLAIN on PostgreSQL) and run again, timed, in a transaction that is
rolled back. A plan that reads a large table
whole, or a large table's rows by their status alone, is flagged.
"""

from __future__ import annotations

import argparse
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from move_cost import Pbem  # noqa: E402
from scale import KEY, choose, database, pick, say  # noqa: E402
from seed import ActiveGame, seed  # noqa: E402
from sqlalchemy import event, update  # noqa: E402
from sqlmodel import col, select  # noqa: E402

from pbem.computer_player import ComputerPlayer, computer_work_waiting  # noqa: E402
from pbem.engine.base import Seat  # noqa: E402
from pbem.mail.delivery import Deliverer  # noqa: E402
from pbem.mail.smtpd import store_inbound  # noqa: E402
from pbem.store.db import Database  # noqa: E402
from pbem.store.models import Account, Observation  # noqa: E402
from pbem.sweep import Sweeper  # noqa: E402
from pbem.variants import get_variant  # noqa: E402

#: Tables that grow with the games played and the mail exchanged: reading one whole is O(games).
LARGE = ("game", "moverecord", "account", "inboxitem", "outboxitem", "observation", "digestitem", "challenge")
#: Transaction control and the advisory locks: nothing to plan.
_SKIP = re.compile(r"^\s*(BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|PRAGMA|SET |SELECT 1\s*$|SELECT pg_)", re.IGNORECASE)
_SQLITE_SCAN = re.compile(r"^SCAN (\w+)(?! USING (?:COVERING )?INDEX)")
_SQLITE_STATUS_ONLY = re.compile(r"^SEARCH (\w+) USING (?:COVERING )?INDEX ix_\w+_status \(status=\?\)$")
_PG_SEQ = re.compile(r"Seq Scan on (\w+)")
_PG_STATUS_ONLY = re.compile(r"Index (?:Only )?Scan using (ix_\w+_status) on (\w+)")


@dataclass
class Statement:
    """One distinct statement: where it was first seen, how often, one set of its parameters, its plan."""

    phase: str
    sql: str
    parameters: Any
    count: int = 1
    plan: list[str] = field(default_factory=list)
    ms: float | None = None
    flags: list[str] = field(default_factory=list)


class Catcher:
    """Keeps each distinct statement sent while a phase is named."""

    def __init__(self) -> None:
        self.phase = ""
        self.found: dict[str, Statement] = {}

    def __call__(self, conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
                 executemany: bool) -> None:
        if not self.phase or _SKIP.match(statement):
            return
        if executemany and isinstance(parameters, list) and parameters and isinstance(parameters[0], tuple | dict):
            parameters = parameters[0]  # one row's worth explains the statement
        key = " ".join(statement.split())
        if key in self.found:
            self.found[key].count += 1
        else:
            self.found[key] = Statement(self.phase, key, parameters)

    def during(self, phase: str, work: Callable[[], object]) -> None:
        self.phase = phase
        try:
            work()
        finally:
            self.phase = ""


# -- the work whose statements are caught ---------------------------------------------------------------


def move_mail(pbem: Pbem, game: ActiveGame, text: str | None) -> tuple[bytes, str, str]:
    """A mail from the player to move, to their seat address: ``text``, or a random legal move."""
    engine = get_variant(game.variant)
    state = engine.load(game.state)
    seat = Seat(str(engine.to_act(state)))
    handle, account = (game.white, game.white_id) if seat is Seat.WHITE else (game.black, game.black_id)
    sender = f"{handle}@players.example"
    to = pbem.addresses.seat(game.id, seat, account)
    return pbem.mail(sender, to, text or choose(engine, state, random.Random(1)) or "resign"), sender, to


def opponent_id(game: ActiveGame) -> int:
    state = get_variant(game.variant).load(game.state)
    to_move = str(get_variant(game.variant).to_act(state))
    return game.black_id if to_move == "white" else game.white_id


def prepare(pbem: Pbem, moved: ActiveGame, now: datetime) -> None:
    """What the phases need beyond the seed: the moved game observed, its opponent reading digests, one
    vacation ending now and one digest due now."""
    with pbem.db.transaction() as session:
        session.add(Observation(game_id=moved.id, account_id=1 if moved.white_id != 1 else 2))
        session.execute(update(Account).where(Account.id == opponent_id(moved))
                        .values(settings={"mail": "digest"}, next_digest_at=now + timedelta(hours=10)))
        away = session.exec(select(Account.id).where(col(Account.vacation_until).is_not(None)).limit(1)).first()
        if away is not None:
            session.execute(update(Account).where(col(Account.id) == away)
                            .values(vacation_until=now - timedelta(minutes=1)))
        reader = session.exec(select(Account.id).where(col(Account.next_digest_at).is_not(None),
                                                       col(Account.id) != opponent_id(moved)).limit(1)).first()
        if reader is not None:
            session.execute(update(Account).where(col(Account.id) == reader)
                            .values(next_digest_at=now - timedelta(minutes=1)))


def run_phases(pbem: Pbem, catcher: Catcher, games: list[ActiveGame], workdir: Path) -> None:
    moved, refused = games[0], games[1]
    prepare(pbem, moved, pbem.services.now())
    player = f"{moved.white}@players.example"
    mails = [(*move_mail(pbem, moved, None), "move"), (*move_mail(pbem, refused, "Zz9-z9"), "refused move"),
             (pbem.mail(player, pbem.addresses.public, "help"), player, pbem.addresses.public, "public address"),
             (pbem.mail(player, pbem.addresses.personal(moved.white_id), "games"), player,
              pbem.addresses.personal(moved.white_id), "games")]
    for raw, sender, to, phase in mails:
        catcher.during(f"listener: store ({phase})",
                       lambda r=raw, s=sender, t=to: store_inbound(pbem.db, r, s, [t], pbem.addresses.domain))
        catcher.during(f"worker: {phase}", lambda: pbem.worker.process_next(16))
    # Rounds of one mail: a full round also reads the next round's picture mails, to draw them while it sends.
    deliverer = Deliverer(pbem.db, "", 0, str(workdir / "maildir"), batch=1)
    catcher.during("delivery", deliverer.deliver_due)
    catcher.during("delivery", deliverer.next_due_in)
    catcher.during("computer loop", ComputerPlayer(pbem.db, pbem.services).due)
    catcher.during("worker: computer work waiting", lambda: computer_work_waiting(pbem.db))
    sweeper = Sweeper(pbem.db, pbem.services)
    catcher.during("sweep", sweeper.sweep)
    catcher.during("sweep: next_event", sweeper.next_event)


# -- explaining -----------------------------------------------------------------------------------------


def explain_sqlite(cursor: Any, statement: Statement) -> None:
    rows = cursor.execute(f"EXPLAIN QUERY PLAN {statement.sql}", statement.parameters or ()).fetchall()
    depth: dict[int, int] = {0: -1}
    for node, parent, _unused, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        statement.plan.append("  " * depth[node] + detail)
        if (found := _SQLITE_SCAN.match(detail)) and found.group(1) in LARGE:
            statement.flags.append(f"reads {found.group(1)} whole")
        elif (found := _SQLITE_STATUS_ONLY.match(detail)) and found.group(1) in LARGE:
            statement.flags.append(f"{found.group(1)} by status alone: every row of that status")


def explain_postgres(cursor: Any, statement: Statement) -> None:
    cursor.execute(f"EXPLAIN {statement.sql}", statement.parameters or None)
    for (line,) in cursor.fetchall():
        statement.plan.append(line)
        if (found := _PG_SEQ.search(line)) and found.group(1) in LARGE:
            statement.flags.append(f"reads {found.group(1)} whole")
        elif (found := _PG_STATUS_ONLY.search(line)) and found.group(2) in LARGE:
            statement.flags.append(f"{found.group(2)} by status alone: every row of that status")


def timed_run(cursor: Any, statement: Statement, sqlite: bool, rounds: int = 5) -> None:
    """The statement run ``rounds`` times, each in a savepoint rolled back; the median in ms."""
    times = []
    for _ in range(rounds):
        cursor.execute("SAVEPOINT plans")
        started = time.perf_counter()
        try:
            cursor.execute(statement.sql, statement.parameters or (() if sqlite else None))
            if cursor.description is not None:
                cursor.fetchall()
        except Exception:  # a unique key already taken by the caught run itself: no timing then
            cursor.execute("ROLLBACK TO SAVEPOINT plans")
            return
        times.append(time.perf_counter() - started)
        cursor.execute("ROLLBACK TO SAVEPOINT plans")
    statement.ms = 1000 * statistics.median(times)


def explain_all(db: Database, statements: list[Statement]) -> None:
    raw = db.engine.raw_connection()
    try:
        cursor = raw.cursor()
        if db.is_sqlite:
            cursor.execute("BEGIN")
        for statement in statements:
            (explain_sqlite if db.is_sqlite else explain_postgres)(cursor, statement)
            timed_run(cursor, statement, db.is_sqlite)
        raw.rollback() if not db.is_sqlite else cursor.execute("ROLLBACK")
    finally:
        raw.close()


# -- the report -----------------------------------------------------------------------------------------


def report(kind: str, size: int, statements: list[Statement]) -> str:
    lines = [f"## {kind}, {size:,} games", ""]
    flagged = [s for s in statements if s.flags]
    lines.append(f"{len(statements)} distinct statements, {len(flagged)} flagged.")
    for number, statement in enumerate(statements, start=1):
        timing = f"{statement.ms:.2f} ms" if statement.ms is not None else "not re-run"
        flags = f" **{'; '.join(dict.fromkeys(statement.flags))}**" if statement.flags else ""
        lines += ["", f"### {number}. {statement.phase} (x{statement.count}, {timing}){flags}", "", "```sql",
                  statement.sql if len(statement.sql) < 1500 else statement.sql[:1500] + " ...", "```", "", "```",
                  *statement.plan, "```"]
    return "\n".join(lines)


def plans(kind: str, size: int, workdir: Path, due: int) -> str:
    with database(kind, workdir) as url:
        pbem = Pbem(workdir, database_url=url, PBEM_SERVER_SECRET_KEY=KEY)
        try:
            seeded = seed(pbem.db, pbem.config, size, datetime.now(UTC), due=due)
            say(f"{kind}: seeded {size:,} games in {seeded.seconds:.1f} s")
            catcher = Catcher()
            event.listen(pbem.db.engine, "before_cursor_execute", catcher)
            # The polls (the queues', the next sweep event, the computer's waiting work) run on connections of
            # their own, outside SQLAlchemy: their SQL comes from the database's observers.
            pbem.db.poll_observers.append(lambda sql: catcher(None, None, sql, (), None, False))
            run_phases(pbem, catcher, pick(seeded, 2, set()), workdir)
            pbem.db.poll_observers.clear()
            event.remove(pbem.db.engine, "before_cursor_execute", catcher)
            statements = list(catcher.found.values())
            explain_all(pbem.db, statements)
            return report(kind, size, statements)
        finally:
            pbem.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000, help="games seeded [100000]")
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--due", type=int, default=100, help="deadlines due at the sweep [100]")
    parser.add_argument("--output", type=Path, help="write the Markdown here instead of standard output")
    args = parser.parse_args(argv)
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    parts = []
    for kind in kinds:
        workdir = Path(tempfile.mkdtemp(prefix=f"pbem-plans-{kind}-"))
        try:
            parts.append(plans(kind, args.size, workdir, args.due))
        finally:
            shutil.rmtree(workdir, ignore_errors=True)
    text = "\n\n".join(parts) + "\n"
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
