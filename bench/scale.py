"""Scale: per-move CPU, latency, the sweep, start-up and memory of pbem on databases of 1,000 to 100,000 games."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import make_msgid
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import e2e  # noqa: E402
from move_cost import Pbem, body_of, only  # noqa: E402
from seed import ActiveGame, Seeded, seed  # noqa: E402
from sqlmodel import col, select  # noqa: E402

from pbem.engine.base import Seat  # noqa: E402
from pbem.store.models import Account, Game  # noqa: E402
from pbem.store.retention import purge_old_mail  # noqa: E402
from pbem.sweep import Sweeper  # noqa: E402
from pbem.variants import all_variants, get_variant  # noqa: E402
from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available  # noqa: E402
from tests.helpers.serving import SERVING  # noqa: E402

KEY = f"scale-{uuid.uuid4().hex}"
#: The issue's targets, checked between the largest and the smallest size measured.
TARGET_GROWTH = 1.2
TARGET_SWEEP_S = 1.0
TARGET_RSS_MB = 200.0
TARGET_STARTUP_S = 3.0


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


# -- (a) the worker's CPU per move ----------------------------------------------------------------------


def choose(engine: Any, state: Any, rng: random.Random) -> str | None:
    """A random legal board move (phase-outs need a secret), or None when there is none."""
    if engine.outcome(state) is not None:
        return None
    moves = sorted(engine.describe(state, action) for action in engine.legal_actions(state))
    board_moves = [text for text in moves if "@" not in text]
    return rng.choice(board_moves) if board_moves else None


def yardstick_games(pbem: Pbem, count: int) -> list[ActiveGame]:
    """``count`` new games, the variants in turn, between new players, started by mail as players start them
    (register, challenge, accept): the same games at every size, so that the worker's CPU per move compares
    the databases and not the positions the seeder happened to give the games it picked."""
    variants = sorted(variant.key for variant in all_variants())
    games = []
    for number in range(count):
        handles = (f"yard{number}w", f"yard{number}b")
        emails = [f"{handle}@{e2e.PLAYER_DOMAIN}" for handle in handles]
        personal = []
        for handle, email in zip(handles, emails, strict=True):
            pbem.deliver(pbem.mail(email, pbem.addresses.public, f"register {handle}"), email, pbem.addresses.public)
            personal.append(str(only(pbem.drain_outbox(), email, "welcome")["Reply-To"]))
        variant = variants[number % len(variants)]
        pbem.deliver(pbem.mail(emails[0], personal[0], f"challenge {handles[1]} {variant} white days 7"),
                     emails[0], personal[0])
        accept = re.search(r"accept \d+", body_of(only(pbem.drain_outbox(), emails[1], "challenge")))
        if accept is None:
            raise e2e.BenchError(f"{handles[1]} got no challenge to accept")
        pbem.deliver(pbem.mail(emails[1], personal[1], accept.group(0)), emails[1], personal[1])
        pbem.drain_outbox()
        with pbem.db.read() as session:
            game = session.exec(select(Game).join(Account, col(Game.white_id) == Account.id)
                                .where(Account.handle == handles[0])).one()
            assert game.id is not None
            games.append(ActiveGame(id=game.id, variant=variant, white=handles[0], black=handles[1],
                                    white_id=game.white_id, black_id=game.black_id, state=game.state))
    return games


def worker_cpu(pbem: Pbem, games: list[ActiveGame], moves: int, warmup: int, rng: random.Random) -> dict[str, Any]:
    """Move mails stored as the listener stores them and applied by pbem's Worker, in turn in every game;
    the CPU (time.process_time) of each ``process_next``, the first ``warmup`` moves left out."""
    cpu: list[float] = []
    wall: list[float] = []
    for _ in range(moves):
        for game in games:
            engine = get_variant(game.variant)
            state = engine.load(game.state)
            text = choose(engine, state, rng)
            if text is None:
                continue
            seat = Seat(str(engine.to_act(state)))
            handle, account = (game.white, game.white_id) if seat is Seat.WHITE else (game.black, game.black_id)
            sender = f"{handle}@{e2e.PLAYER_DOMAIN}"
            to = pbem.addresses.seat(game.id, seat, account)
            took, used = pbem.deliver(pbem.mail(sender, to, text), sender, to)
            reply = body_of(only(pbem.drain_outbox(), sender, "reply"))
            if "Played" not in reply or "Not played" in reply:
                raise e2e.BenchError(f"game {game.id}: {text} was not played; the reply says:\n{reply}")
            game.state = engine.dump(engine.apply(state, engine.parse_action(state, text)).state)
            wall.append(took)
            cpu.append(used)
    counted, counted_wall = cpu[warmup:] or cpu, wall[warmup:] or wall
    return {"moves": len(counted), "cpu_ms": 1000 * statistics.median(counted),
            "cpu_p90_ms": 1000 * statistics.quantiles(counted, n=10)[-1] if len(counted) > 1 else 1000 * counted[0],
            "wall_ms": 1000 * statistics.median(counted_wall)}


# -- (c) the sweep --------------------------------------------------------------------------------------


def timed(function: Any) -> tuple[Any, float]:
    started = time.perf_counter()
    value = function()
    return value, time.perf_counter() - started


def sweep(pbem: Pbem) -> dict[str, Any]:
    """The retention purge alone, then a sweep with the due deadlines (purge left out: it runs hourly), then
    a sweep with nothing due, and ``next_event`` (what the scheduler asks after every worker round)."""
    retention = pbem.config.retention
    _, purge_s = timed(lambda: purge_old_mail(pbem.db, pbem.services.now(), retention.inbound_days,
                                              retention.outbound_days))
    sweeper = Sweeper(pbem.db, pbem.services)
    sweeper._purged_at = pbem.services.now()  # as after the hourly purge: the sweep proper is timed
    changed, sweep_s = timed(sweeper.sweep)

    def write_notices() -> int:
        written = 0
        while pbem.worker.notices.write_next():
            written += 1
        return written

    notices, notices_s = timed(write_notices)  # the mails of what the sweep decided, by the worker
    idle_changed, idle_s = timed(sweeper.sweep)
    _, next_s = timed(sweeper.next_event)
    return {"sweep_s": sweep_s, "sweep_changed": changed, "sweep_idle_s": idle_s, "sweep_idle_changed": idle_changed,
            "next_event_ms": 1000 * next_s, "purge_s": purge_s, "notices": notices, "notices_s": notices_s}


# -- (b), (d) `pbem serve`: start-up, memory, latency ----------------------------------------------------


def _memory_kb(pid: int, path: str, field: str) -> int:
    try:
        for line in Path(f"/proc/{pid}/{path}").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1])
    except OSError:  # gone meanwhile
        pass
    return 0


def rss_mb(pid: int) -> float:
    """The memory `pbem serve` holds: the proportional set size (PSS) of the server, its fork server and its
    mail worker together. PSS counts a page shared by n processes as 1/n in each, so the pages the worker
    shares with the fork server it was forked from count once (their RSS would count them twice); for a
    single process it is its RSS less its share of the libraries other programs map too."""
    return sum(_memory_kb(member, "smaps_rollup", "Pss:") for member in e2e.process_tree(pid)) / 1024


def rss_sum_mb(pid: int) -> float:
    """The plain sum of VmRSS over the server's processes (pages shared between them counted in each)."""
    return sum(_memory_kb(member, "status", "VmRSS:") for member in e2e.process_tree(pid)) / 1024


def start_serve(workdir: Path, url: str, domain: str, sink_port: int,
                worker_process: bool | None = None) -> tuple[e2e.ServerProcess, float]:
    """`pbem serve` on the seeded database; the seconds from process start to its "pbem serving" line."""
    config = workdir / "serve.toml"
    config.write_text(f'[server]\ndomain = "{domain}"\nsecret_key = "{KEY}"\n'
                      f"{e2e.worker_setting(worker_process)}"
                      '[smtp]\nhost = "127.0.0.1"\nport = 0\n'
                      f'[outbound]\nsmtp_host = "127.0.0.1"\nsmtp_port = {sink_port}\n'
                      f'[database]\nurl = "{url}"\n[web]\nport = 0\n', encoding="utf-8")
    argv = [sys.executable, "-m", "pbem", "serve", "--config", str(config)]
    started = time.monotonic()
    server = e2e.ServerProcess("pbem", argv, 0, workdir, e2e.clean_environment())
    while True:
        server.check()
        found = SERVING.search(server.stdout_path.read_bytes())
        if found:
            server.port = int(found.group(1))
            return server, time.monotonic() - started
        if time.monotonic() - started > 120:
            raise e2e.BenchError(f"pbem serve did not start in 120 s:\n{server.stderr_tail()}")
        time.sleep(0.005)


def settle(pid: int, limit: float = 60.0) -> float:
    """Wait until the server is idle (its start-up sweep done): under 5% of a core over half a second."""
    started = time.monotonic()
    while time.monotonic() - started < limit:
        before = e2e.process_cpu_seconds(pid)
        time.sleep(0.5)
        if e2e.process_cpu_seconds(pid) - before < 0.025:
            break
    return time.monotonic() - started


def opening(address: str, game: ActiveGame, handle: str) -> e2e.Mail:
    """A stand-in for the last game mail a seeded player got: what their reply answers."""
    headers = {"From": f"pbem <{e2e.PUBLIC}>", "To": f"{handle}@{e2e.PLAYER_DOMAIN}",
               "Subject": f"[pbem #{game.id}] {game.white} vs {game.black}",
               "Message-ID": make_msgid(domain="pbem.localhost"), "Reply-To": address,
               "References": f"<pbem.game-{game.id}@pbem.localhost>"}
    return e2e.Mail(e2e.compose(headers, "Your move."), 0.0)


def latency_games(pbem: Pbem, games: list[ActiveGame], sink: e2e.Sink, server: e2e.ServerProcess,
                  timeout: float, seed_value: int, plies: int) -> list[e2e.Game]:
    """The seeded active games as bench players play them, each with ``plies`` moves planned from its position."""
    found = []
    for index, game in enumerate(games):
        white = e2e.Player(game.white, sink, server.check, timeout)
        black = e2e.Player(game.black, sink, server.check, timeout)
        engine = get_variant(game.variant)
        played = e2e.Game(index=index + 1, white=white, black=black, client=e2e.Client(server.port), engine=engine,
                          rng=random.Random(seed_value * 1_000_003 + index), state=engine.load(game.state),
                          number=game.id)
        for player, seat, account in ((white, Seat.WHITE, game.white_id), (black, Seat.BLACK, game.black_id)):
            played.last[player.handle] = opening(pbem.addresses.seat(game.id, seat, account), game, player.handle)
        e2e.plan(played, plies)
        found.append(played)
    return found


def serve(pbem: Pbem, workdir: Path, url: str, games: list[ActiveGame], args: argparse.Namespace) -> dict[str, Any]:
    sink = e2e.Sink()
    server: e2e.ServerProcess | None = None
    played: list[e2e.Game] = []
    try:
        server, startup_s = start_serve(workdir, url, pbem.config.domain, sink.port, args.worker_process)
        rss_start = rss_mb(server.proc.pid)
        settle_s = settle(server.proc.pid)
        rss_idle = rss_mb(server.proc.pid)
        played = latency_games(pbem, games, sink, server, args.timeout, args.seed, 1 + args.latency_moves)
        # One move per game first, not counted: the first mails of a fresh process compile templates, load
        # fonts and fill caches, which says nothing about the database's size.
        e2e.pbem_phase(played, 1, args.latency_seconds, rate=None)
        with e2e.cpu_use(server.proc.pid) as cpu:
            result = e2e.pbem_phase(played, args.latency_moves, args.latency_seconds, rate=args.rate)
        server.check()
        return {"startup_s": startup_s, "settle_s": settle_s, "rss_start_mb": rss_start, "rss_idle_mb": rss_idle,
                "rss_after_mb": rss_mb(server.proc.pid), "rss_sum_after_mb": rss_sum_mb(server.proc.pid),
                "latency_moves": result["moves"],
                "offered_rate": args.rate, "achieved_rate": result["rate"], "p50_ms": result["p50_ms"],
                "p99_ms": result["p99_ms"], "max_ms": result["max_ms"], "serve_cpu_pct": cpu["server_cpu_pct"],
                "serve_errors_logged": len(server.error_lines())}
    finally:
        e2e.shut_down(played, [server], sink)


def hold_active(url: str) -> None:
    """The bench's ``--hold``: load every active game and its engine state, as a worker that cached them would
    hold them, and print this process's RSS before and after (MB) and the games held."""
    from sqlmodel import select

    from pbem.app.game_state import engine_for
    from pbem.store.db import Database
    from pbem.store.models import Game
    from pbem.store.vocabulary import GameStatus

    db = Database(url)
    for variant in all_variants():  # the code and tables every engine loads once, not counted per game
        engine = get_variant(variant.key)
        engine.load(engine.dump(engine.setup()))
    before = rss_mb(os.getpid())
    with db.read() as session:
        games = list(session.exec(select(Game).where(Game.status == GameStatus.ACTIVE)))
        held = [(game, engine_for(game).load(game.state)) for game in games]
    print(json.dumps({"before_mb": before, "after_mb": rss_mb(os.getpid()), "games": len(held)}))
    db.dispose()


def held_memory(url: str) -> dict[str, float]:
    """What holding every active game in memory would cost: ``--hold`` in a process of its own."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--hold", url], capture_output=True,
                          text=True, timeout=600, env=e2e.clean_environment(), check=True)
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return {"held_games": found["games"], "held_mb": found["after_mb"] - found["before_mb"]}


# -- one size on one database ----------------------------------------------------------------------------


@contextlib.contextmanager
def database(kind: str, workdir: Path) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{workdir / 'pbem.sqlite3'}"
        return
    url = fresh_postgres_url()
    try:
        yield url
    finally:
        drop_postgres(url)


def pick(seeded: Seeded, count: int, skip: set[int], mailed: bool = False) -> list[ActiveGame]:
    """``count`` playable games, the variants in turn, none of ``skip``; ``mailed``: only games whose players
    get each move by mail (no digest reader)."""
    by_variant: dict[str, list[ActiveGame]] = {}
    for game in seeded.playable:
        if not game.due and game.id not in skip and not (mailed and game.digest):
            by_variant.setdefault(game.variant, []).append(game)
    chosen: list[ActiveGame] = []
    while len(chosen) < count and any(by_variant.values()):
        for variant in sorted(by_variant):
            if by_variant[variant] and len(chosen) < count:
                chosen.append(by_variant[variant].pop(0))
    return chosen


def measure(kind: str, size: int, args: argparse.Namespace) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix=f"pbem-scale-{kind}-{size}-"))
    load_before = os.getloadavg()
    try:
        with database(kind, workdir) as url:
            pbem = Pbem(workdir, database_url=url, PBEM_SERVER_SECRET_KEY=KEY)
            try:
                seeded = seed(pbem.db, pbem.config, size, datetime.now(UTC), args.seed, args.due,
                              mail_history=not args.no_mail_history)
                say(f"{kind} {size}: seeded {seeded.games} games ({seeded.active} active, {seeded.due} due), "
                    f"{seeded.accounts} accounts, {seeded.moves} moves, {seeded.inbox + seeded.outbox} mail rows "
                    f"in {seeded.seconds:.1f} s")
                swept = sweep(pbem)
                say(f"{kind} {size}: sweep {swept['sweep_s']:.3f} s ({swept['sweep_changed']} changed), their "
                    f"{swept['notices']} notices' mails written by the worker in {swept['notices_s']:.3f} s, "
                    f"idle sweep "
                    f"{swept['sweep_idle_s'] * 1000:.1f} ms, next_event {swept['next_event_ms']:.1f} ms, "
                    f"purge {swept['purge_s']:.3f} s")
                worker_games = yardstick_games(pbem, args.worker_games)
                worked = worker_cpu(pbem, worker_games, args.worker_moves, args.warmup, random.Random(args.seed))
                say(f"{kind} {size}: worker {worked['cpu_ms']:.2f} ms CPU per move (median of {worked['moves']})")
                smtp_games = pick(seeded, args.latency_games, {game.id for game in worker_games}, mailed=True)
            finally:
                pbem.close()
            served = serve(pbem, workdir, url, smtp_games, args)
            served.update(held_memory(url))
            say(f"{kind} {size}: start-up {served['startup_s']:.2f} s, RSS {served['rss_idle_mb']:.0f} MB idle, "
                f"{served['rss_after_mb']:.0f} MB after (PSS of its processes; their RSS summed "
                f"{served['rss_sum_after_mb']:.0f} MB); latency p50 {served['p50_ms']:.0f} ms, "
                f"p99 {served['p99_ms']:.0f} ms at {served['achieved_rate']:.1f} moves/s; holding the "
                f"{served['held_games']:,} active games loaded would take {served['held_mb']:.0f} MB")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"seed": seeded.figures(), **swept, **{f"worker_{k}": v for k, v in worked.items()}, **served,
            "load_before": load_before, "load_after": os.getloadavg()}


# -- the report ------------------------------------------------------------------------------------------

#: The table's rows: label, key, format.
ROWS = [
    ("games (active / due)", None, ""),
    ("moves stored", "seed.moves", "{:,.0f}"),
    ("seeding", "seed.seconds", "{:.1f} s"),
    ("worker CPU per move, median", "worker_cpu_ms", "{:.2f} ms"),
    ("worker CPU per move, p90", "worker_cpu_p90_ms", "{:.2f} ms"),
    ("worker wall per move (commit included)", "worker_wall_ms", "{:.2f} ms"),
    ("latency p50 (mail in to opponent's mail out)", "p50_ms", "{:.0f} ms"),
    ("latency p99", "p99_ms", "{:.0f} ms"),
    ("load offered / achieved", None, ""),
    ("sweep with the due deadlines", "sweep_s", "{:.3f} s"),
    ("sweep, per due game (each lost on time)", None, ""),
    ("the worker writing their mails (two final mails a game, with the GIF)", "notices_s", "{:.3f} s"),
    ("sweep with nothing due (finding the work)", "sweep_idle_s", "{:.4f} s"),
    ("next_event", "next_event_ms", "{:.2f} ms"),
    ("retention purge (hourly)", "purge_s", "{:.3f} s"),
    ("pbem serve start-up", "startup_s", "{:.2f} s"),
    ("pbem serve memory (PSS, all its processes) at start / idle / after the moves", None, ""),
    ("memory to hold every active game loaded (not done by pbem)", "held_mb", "{:.0f} MB"),
    ("load average before / after", None, ""),
]


def lookup(figures: dict[str, Any], key: str) -> Any:
    value: Any = figures
    for part in key.split("."):
        value = value[part]
    return value


def cell(figures: dict[str, Any], label: str, key: str | None, fmt: str) -> str:
    if key is not None:
        return fmt.format(lookup(figures, key))
    if label.startswith("games"):
        seeded = figures["seed"]
        return f"{seeded['games']:,} ({seeded['active']:,} / {seeded['due']})"
    if label.startswith("load offered"):
        return f"{figures['offered_rate']:.1f} / {figures['achieved_rate']:.1f} moves/s"
    if label.startswith("sweep, per due"):
        due = figures["sweep_changed"]
        return f"{(figures['sweep_s'] - figures['sweep_idle_s']) / due * 1000:.0f} ms" if due else "-"
    if label.startswith("pbem serve memory"):
        return f"{figures['rss_start_mb']:.0f} / {figures['rss_idle_mb']:.0f} / {figures['rss_after_mb']:.0f} MB"
    return f"{figures['load_before'][0]:.1f} / {figures['load_after'][0]:.1f}"


def targets(results: dict[str, dict[str, Any]]) -> list[str]:
    """The issue's targets, checked between the smallest and the largest size measured."""
    sizes = sorted(results, key=int)
    small, large = results[sizes[0]], results[sizes[-1]]
    lines = []
    if len(sizes) > 1:
        for name, key in (("CPU per move", "worker_cpu_ms"), ("p99 latency", "p99_ms")):
            ratio = large[key] / small[key] if small[key] else 0.0
            lines.append(f"- {name} at {int(sizes[-1]):,} games / at {int(sizes[0]):,}: {ratio:.2f} "
                         f"(target <= {TARGET_GROWTH}: {'met' if ratio <= TARGET_GROWTH else 'not met'})")
    lines.append(f"- sweep at {int(sizes[-1]):,} games with {large['seed']['due']} due: {large['sweep_s']:.3f} s "
                 f"(target < {TARGET_SWEEP_S:g} s: {'met' if large['sweep_s'] < TARGET_SWEEP_S else 'not met'}); "
                 f"the worker then wrote their mails in {large['notices_s']:.3f} s")
    lines.append(f"- start-up at {int(sizes[-1]):,} games: {large['startup_s']:.2f} s "
                 f"(target < {TARGET_STARTUP_S:g} s: {'met' if large['startup_s'] < TARGET_STARTUP_S else 'not met'})")
    for size in sizes:
        active = results[size]["seed"]["active"]
        if active >= 10_000:
            rss = results[size]["rss_after_mb"]
            lines.append(f"- memory (PSS of the server's processes) with {active:,} active games: {rss:.0f} MB "
                         f"(target < {TARGET_RSS_MB:g} MB: {'met' if rss < TARGET_RSS_MB else 'not met'})")
    return lines


def table(kind: str, results: dict[str, dict[str, Any]]) -> str:
    sizes = sorted(results, key=int)
    lines = [f"### {kind}", "", "| figure | " + " | ".join(f"{int(s):,} games" for s in sizes) + " |",
             "| --- |" + " --- |" * len(sizes)]
    for label, key, fmt in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(results[s], label, key, fmt) for s in sizes) + " |")
    return "\n".join([*lines, "", *targets(results)])


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000], help="games [1000 10000 100000]")
    parser.add_argument("--database", choices=("sqlite", "postgresql", "both"), default="both")
    e2e.add_worker_options(parser)
    parser.add_argument("--due", type=int, default=100, help="deadlines due at the sweep (at most half the "
                        "active games) [100]")
    parser.add_argument("--worker-games", type=int, default=40,
                        help="new games the worker plays in, started by mail at every size [40]")
    parser.add_argument("--worker-moves", type=int, default=4, help="moves per game for the worker [4]")
    parser.add_argument("--warmup", type=int, default=5, help="first worker moves not counted [5]")
    parser.add_argument("--latency-games", type=int, default=20, help="games played over SMTP at once [20]")
    parser.add_argument("--latency-moves", type=int, default=10, help="moves per game over SMTP [10]")
    parser.add_argument("--rate", type=float, default=20.0, help="moves/s offered over SMTP (the fixed load) [20]")
    parser.add_argument("--latency-seconds", type=float, default=120.0, help="time cap of the SMTP phase [120]")
    parser.add_argument("--timeout", type=float, default=60.0, help="longest wait for any one mail [60]")
    parser.add_argument("--no-mail-history", action="store_true", help="seed no old inbox and outbox rows")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--hold", metavar="URL", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.hold:
        hold_active(args.hold)
        return 0
    kinds = ["sqlite", "postgresql"] if args.database == "both" else [args.database]
    if "postgresql" in kinds and (reason := postgres_available()):
        say(f"PostgreSQL left out: {reason}")
        kinds.remove("postgresql")
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, e2e.interrupt)  # as Ctrl-C: the server stopped, the throw-away database dropped
    try:
        for kind in kinds:
            for size in args.sizes:
                results.setdefault(kind, {})[str(size)] = measure(kind, size, args)
    except e2e.BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bench interrupted", file=sys.stderr)
        return 2
    report = {"parameters": {**{k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
                             "cores": os.cpu_count(), "python": platform.python_version(),
                             "machine": platform.machine()},
              "results": results}
    print("\n\n".join(table(kind, found) for kind, found in results.items()))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
