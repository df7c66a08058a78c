"""Web speed: requests/s and latency of pbem's web listener (pages, API, event) over 1,000 seeded games."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing
import os
import platform
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pbem.app.clocks import pass_clock, start_clock  # noqa: E402
from pbem.app.context import Context, Services  # noqa: E402
from pbem.app.game_pictures import store_highlights  # noqa: E402
from pbem.app.game_state import engine_for  # noqa: E402
from pbem.app.games import close_game, game_over  # noqa: E402
from pbem.config import load_config  # noqa: E402
from pbem.engine.base import Outcome, Seat  # noqa: E402
from pbem.engine.capabilities import seal_action  # noqa: E402
from pbem.events.entries import add_players, create_event  # noqa: E402
from pbem.events.running import start_event  # noqa: E402
from pbem.startup import build_services  # noqa: E402
from pbem.store.db import Database  # noqa: E402
from pbem.store.models import Account, Game, MoveRecord  # noqa: E402
from pbem.store.vocabulary import GameStatus  # noqa: E402
from pbem.variants import get_variant  # noqa: E402

ABOUT = """\
The database is filled directly (accounts, games and move records as the worker stores them: random legal
moves played by the engines, clocks passed at plausible times, some games finished and rated) plus one round
robin started through pbem.events. pbem's WebServer runs in a process of its own; an aiohttp client in another
process measures, in turn: /games/N (random N) once per game (the cold renders); /games/N at --concurrency
clients; /games/N at a fixed --rate, latency counted from when each request was due (so a server that falls
behind shows it), for 60 s so that one turn of the minute, when cached pages showing clocks expire, falls
inside; /api/games/N and /events/NAME at --concurrency clients. The goal of issue 16: p99 under 50 ms at
500 requests/s for game pages. Exit status: 0 goal met, 1 goal missed, 2 a phase had failed requests.
"""

GOAL_P99_MS = 50.0
GOAL_RATE = 500
VARIANTS = ("hyperspace", "outer-space", "tri-d", "space-chess", "voidrider")
EVENT = "bench-cup"
EVENT_PLAYERS = 12  # a round robin of 12: 66 games, a 12 x 12 crosstable


# -- the database -------------------------------------------------------------------------------------------


class FakeNow:
    """The seeding's clock: moves are stored at plausible past times, as if played over weeks."""

    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def _services(directory: Path, url: str) -> tuple[Database, Services]:
    config_path = directory / "bench.toml"
    config_path.write_text(f'[database]\nurl = "{url}"\n')
    config = load_config(config_path, environ={"PBEM_SERVER_SECRET_KEY": "bench-key"})
    db = Database(url)
    db.create_all()
    return db, build_services(config, db)


def _play(ctx: Context, game: Game, plies: int, rng: random.Random, now: FakeNow, gaps: list[timedelta]) -> None:
    """Random legal moves, stored as pbem.app.games._store_turn stores them (without the mails)."""
    engine = engine_for(game)
    state = engine.load(game.state)
    assert game.id is not None
    for gap in gaps[:plies]:
        seat = engine.to_act(state)
        if seat is None or engine.outcome(state) is not None:
            break
        actions = list(engine.legal_actions(state))
        if not actions:
            break
        number = engine.move_number(state)
        action = seal_action(engine, state, rng.choice(actions), ctx.services.new_nonce())
        now.moment += gap
        transition = engine.apply(state, action)
        state = transition.state
        game.ply += 1
        game.state = engine.dump(state)
        ctx.session.add(MoveRecord(game_id=game.id, ply=game.ply, seat=seat.value, move_number=number,
                                   record=transition.record, state_after=game.state, played_at=now.moment))
        game.version += 1
        game.updated_at = now.moment
        store_highlights(game, transition.highlights)
        pass_clock(ctx, game, seat, engine.to_act(state))
        outcome = engine.outcome(state)
        if outcome is not None:
            close_game(game, outcome)
            game_over(ctx, game)
    ctx.session.add(game)


def _finish(ctx: Context, game: Game, rng: random.Random, now: FakeNow) -> None:
    """End a game as its players would: mostly a resignation, sometimes an agreed draw; rated, scored."""
    if game.status != GameStatus.ACTIVE:
        return
    now.moment += timedelta(hours=rng.uniform(1, 30))
    outcome = (Outcome.draw("agreement") if rng.random() < 0.2
               else Outcome.win(rng.choice((Seat.WHITE, Seat.BLACK)), "resignation"))
    close_game(game, outcome)
    game.version += 1
    game.updated_at = now.moment
    ctx.session.add(game)
    game_over(ctx, game)  # ratings, and an event's scores


def _gaps(rng: random.Random, plies: int) -> list[timedelta]:
    return [timedelta(hours=rng.uniform(0.5, 60)) for _ in range(plies)]


@dataclass
class Seeded:
    games: list[int] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    moves: int = 0
    finished: int = 0
    seconds: float = 0.0


def seed(directory: Path, games: int, players: int, rng: random.Random) -> tuple[str, Seeded]:
    """A SQLite database with ``games`` games (the event's included); its URL and what it holds."""
    started = time.perf_counter()
    url = f"sqlite:///{directory / 'web-bench.sqlite3'}"
    db, services = _services(directory, url)
    real_now = datetime.now(UTC)
    now = FakeNow(real_now - timedelta(days=120))
    services.now = now
    seeded = Seeded()
    with db.transaction() as session:
        ctx = Context(session=session, services=services)
        accounts = [Account(handle=f"player{n:03d}", email=f"player{n:03d}@players.example",
                            created_at=now.moment) for n in range(1, players + 1)]
        session.add_all(accounts)
        session.flush()
        # The event: started through pbem.events, as `pbem event start` does, three weeks ago.
        now.moment = real_now - timedelta(days=21)
        event = create_event(ctx, EVENT, "hyperspace", "round-robin", time_control="days 7")
        add_players(ctx, event, [a.handle for a in accounts[:EVENT_PLAYERS]])
        start_event(ctx, event)
        seeded.events.append(EVENT)
        event_games = list(session.exec(_event_games(event.id or 0)).all())
        for game in event_games:
            now.moment = game.started_at
            plies = rng.randint(0, 40)
            _play(ctx, game, plies, rng, now, _gaps(rng, plies))
            if rng.random() < 0.3:
                _finish(ctx, game, rng, now)
        ctx.outgoing.clear()  # the event's mails are never sent
        session.flush()
    # The casual games, in batches of 100 per transaction.
    remaining = games - len(event_games)
    while remaining > 0:
        with db.transaction() as session:
            ctx = Context(session=session, services=services)
            for _ in range(min(100, remaining)):
                white, black = rng.sample(accounts, 2)
                variant = rng.choice(VARIANTS)
                plies = rng.randint(0, 60)
                gaps = _gaps(rng, plies)
                now.moment = real_now - sum(gaps, timedelta()) - timedelta(hours=rng.uniform(0, 48))
                engine = get_variant(variant)
                state = engine.setup()
                game = Game(variant=engine.key, options={}, state=engine.dump(state), white_id=white.id or 0,
                            black_id=black.id or 0, time_control=rng.choice(("days 3", "days 5", "time 10/30")),
                            started_at=now.moment, updated_at=now.moment)
                start_clock(ctx, game, engine.to_act(state))
                session.add(game)
                session.flush()
                _play(ctx, game, plies, rng, now, gaps)
                if rng.random() < 0.3:
                    _finish(ctx, game, rng, now)
                remaining -= 1
            ctx.outgoing.clear()
    with db.read() as session:
        seeded.games = [g for g in session.exec(_all(Game.id)).all() if g is not None]
        seeded.moves = len(session.exec(_all(MoveRecord.id)).all())
        seeded.finished = len(session.exec(_all(Game.id).where(Game.status != GameStatus.ACTIVE)).all())
    db.dispose()
    seeded.seconds = time.perf_counter() - started
    return url, seeded


def _event_games(event_id: int) -> Any:
    from sqlmodel import col, select

    return select(Game).where(Game.event_id == event_id).order_by(col(Game.id))


def _all(column: Any) -> Any:
    from sqlmodel import select

    return select(column)


# -- the server process -------------------------------------------------------------------------------------


def serve(directory: str, url: str, conn: Connection) -> None:
    """pbem's web listener on a free port over the seeded database; runs until terminated."""
    from pbem.web.site import WebServer

    db, services = _services(Path(directory), url)

    async def run() -> None:
        server = WebServer(db, services, "127.0.0.1", 0)
        await server.start()
        conn.send(server.port)
        await asyncio.Event().wait()

    asyncio.run(run())


# -- the client process -------------------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    path: str  # with {n} for a random game, {event} for the event
    seconds: float = 0.0  # closed loop for this long ...
    rate: int = 0  # ... or open loop at this many requests/s
    once_per_game: bool = False  # ... or every game once (the cold renders)


@dataclass
class Measured:
    name: str
    mode: str
    requests: int
    failed: int
    seconds: float
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    max_ms: float
    server_cpu: float  # CPU seconds of the server per wall second (2.0 = both cores of a 2-core machine)
    client_cpu: float
    statuses: dict[str, int]
    p99_by_second_ms: list[float]  # where in the phase the slow requests were


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (Linux /proc), 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _percentile(sorted_values: list[float], fraction: float) -> float:
    if not sorted_values:
        return 0.0
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * fraction))]


async def _measure(base: str, phase: Phase, concurrency: int, paths: Callable[[], str], server_pid: int,
                   count: int) -> Measured:
    import aiohttp

    latencies: list[float] = []
    seconds: dict[int, list[float]] = {}  # latencies by the second of the phase each request was due in
    statuses: dict[str, int] = {}
    failed = 0

    async def fetch(session: aiohttp.ClientSession, path: str, due: float) -> None:
        nonlocal failed
        try:
            async with session.get(base + path) as response:
                await response.read()
                statuses[str(response.status)] = statuses.get(str(response.status), 0) + 1
                if response.status != 200:
                    failed += 1
        except (TimeoutError, aiohttp.ClientError) as error:
            statuses[type(error).__name__] = statuses.get(type(error).__name__, 0) + 1
            failed += 1
        latencies.append(time.perf_counter() - due)
        seconds.setdefault(int(due - started), []).append(latencies[-1])

    started = time.perf_counter()
    limit = concurrency if not phase.rate else max(concurrency, phase.rate)
    timeout = aiohttp.ClientTimeout(total=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit), timeout=timeout) as session:
        cpu_server, cpu_client, started = _cpu_seconds(server_pid), time.process_time(), time.perf_counter()
        if phase.rate:
            tasks = []
            total = int(phase.rate * phase.seconds)
            for i in range(total):
                due = started + i / phase.rate
                delay = due - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(fetch(session, paths(), due)))
            await asyncio.gather(*tasks)
        else:
            end = started + phase.seconds
            queue = iter(range(count)) if phase.once_per_game else None

            async def worker() -> None:
                while True:
                    if queue is not None:
                        if next(queue, None) is None:
                            return
                    elif time.perf_counter() >= end:
                        return
                    now = time.perf_counter()
                    await fetch(session, paths(), now)

            await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - started
        cpu_server = _cpu_seconds(server_pid) - cpu_server
        cpu_client = time.process_time() - cpu_client
    latencies.sort()
    timeline = [round(_percentile(sorted(seconds[second]), 0.99) * 1000, 1) for second in sorted(seconds)]
    mode = f"{phase.rate}/s fixed" if phase.rate else ("each game once" if phase.once_per_game
                                                       else f"{concurrency} clients")
    return Measured(phase.name, mode, len(latencies), failed, wall, len(latencies) / wall,
                    _percentile(latencies, 0.5) * 1000, _percentile(latencies, 0.9) * 1000,
                    _percentile(latencies, 0.99) * 1000, (latencies[-1] if latencies else 0) * 1000,
                    cpu_server / wall, cpu_client / wall, statuses, timeline)


def drive(port: int, server_pid: int, phases: list[Phase], games: list[int], events: list[str], concurrency: int,
          seed_value: int, conn: Connection) -> None:
    """The client process: every phase in turn, each result sent back as it is measured."""
    rng = random.Random(seed_value)
    base = f"http://127.0.0.1:{port}"

    def paths_for(phase: Phase) -> Callable[[], str]:
        if phase.once_per_game:
            order: Iterator[int] = iter(rng.sample(games, len(games)))
            return lambda: phase.path.format(n=next(order), event=events[0])
        return lambda: phase.path.format(n=rng.choice(games), event=rng.choice(events))

    async def run() -> None:
        for phase in phases:
            conn.send(asdict(await _measure(base, phase, concurrency, paths_for(phase), server_pid, len(games))))

    asyncio.run(run())
    conn.send(None)


# -- the report ---------------------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    cpu = ""
    with contextlib.suppress(OSError):
        cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                    if line.startswith("model name")), "")
    return {"cpus": os.cpu_count(), "cpu": cpu or platform.processor(), "python": platform.python_version(),
            "system": platform.platform()}


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'phase':<26} {'mode':<16} {'requests':>8} {'failed':>6} {'req/s':>8} {'p50 ms':>7} {'p90 ms':>7} "
             f"{'p99 ms':>7} {'max ms':>7} {'server CPU':>10} {'client CPU':>10}"]
    for row in rows:
        lines.append(f"{row['name']:<26} {row['mode']:<16} {row['requests']:>8} {row['failed']:>6} "
                     f"{row['rps']:>8.0f} {row['p50_ms']:>7.1f} {row['p90_ms']:>7.1f} {row['p99_ms']:>7.1f} "
                     f"{row['max_ms']:>7.1f} {row['server_cpu']:>10.0%} {row['client_cpu']:>10.0%}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, epilog=ABOUT,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000, help="games in the database (the event's included)")
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each measured phase")
    parser.add_argument("--concurrency", type=int, default=50, help="clients in the closed-loop phases")
    parser.add_argument("--rate", type=int, default=GOAL_RATE, help="requests/s of the fixed-rate phase")
    parser.add_argument("--rate-seconds", type=float, default=60.0,
                        help="length of the fixed-rate phase (60 s spans one turn of the minute, when every "
                             "cached page's version changes and pages are made anew)")
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--json", type=Path, help="write the figures here")
    args = parser.parse_args()
    if args.games < 66 or args.players < EVENT_PLAYERS:
        parser.error(f"at least 66 games (the event's) and {EVENT_PLAYERS} players")

    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory(prefix="pbem-web-bench-") as directory:
        print(f"seeding {args.games} games ...", flush=True)
        url, seeded = seed(Path(directory), args.games, args.players, random.Random(args.seed))
        print(f"seeded {len(seeded.games)} games ({seeded.finished} finished, {seeded.moves} moves) and event "
              f"{EVENT} in {seeded.seconds:.1f} s", flush=True)
        server_end, server_conn = spawn.Pipe()
        server = spawn.Process(target=serve, args=(directory, url, server_conn), daemon=True)
        server.start()
        try:
            if not server_end.poll(60):
                raise RuntimeError("the web server did not start")
            port = server_end.recv()
            assert server.pid is not None
            phases = [
                Phase("/games/N cold (first view)", "/games/{n}", once_per_game=True),
                Phase("/games/N", "/games/{n}", seconds=args.seconds),
                # Straight after the game pages: the API phase would first push them out of the response
                # cache (2,048 entries; 1,000 pages and 1,000 API documents do not both fit).
                Phase("/games/N fixed rate", "/games/{n}", seconds=args.rate_seconds, rate=args.rate),
                Phase("/api/games/N", "/api/games/{n}", seconds=args.seconds),
                Phase("/events/NAME", "/events/{event}", seconds=args.seconds),
            ]
            client_end, client_conn = spawn.Pipe()
            client = spawn.Process(target=drive, args=(port, server.pid, phases, seeded.games, seeded.events,
                                                       args.concurrency, args.seed, client_conn), daemon=True)
            client.start()
            rows: list[dict[str, Any]] = []
            while (row := client_end.recv()) is not None:
                rows.append(row)
                print(f"  {row['name']}: {row['rps']:.0f} req/s, p99 {row['p99_ms']:.1f} ms", flush=True)
            client.join(30)
        finally:
            server.terminate()
            server.join(30)
    fixed = next(row for row in rows if row["mode"].endswith("fixed"))
    met = (args.rate >= GOAL_RATE and fixed["rps"] >= 0.95 * args.rate and fixed["p99_ms"] < GOAL_P99_MS
           and fixed["failed"] == 0)
    print()
    print(table(rows))
    print()
    print(f"goal: p99 under {GOAL_P99_MS:.0f} ms at {GOAL_RATE} requests/s for game pages: p99 "
          f"{fixed['p99_ms']:.1f} ms at {fixed['rps']:.0f} requests/s -> {'met' if met else 'MISSED'}")
    about = machine()
    print(f"machine: {about['cpus']} CPUs, {about['cpu']}, Python {about['python']}, {about['system']}")
    if args.json:
        args.json.write_text(json.dumps({"machine": about, "games": len(seeded.games), "moves": seeded.moves,
                                         "finished": seeded.finished, "event": EVENT, "seed_seconds": seeded.seconds,
                                         "concurrency": args.concurrency, "seconds": args.seconds,
                                         "phases": rows, "goal": {"p99_ms": GOAL_P99_MS, "rate": GOAL_RATE,
                                                                  "met": met}}, indent=2))
    if any(row["failed"] for row in rows):
        return 2
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
