"""pbem's maximum alone, several times, with each process's CPU a move: for comparing two versions in alternate runs.

bench/e2e.py compares pbem with a do-nothing relay measured before and after it; the VM's speed drifts by a
quarter within a minute, so a change worth a few percent hides in its spread. This script runs only pbem's
maximum phase (bench/e2e.py's, the same players, sink and mails), ``--runs`` times with fresh games each time,
and prints for each run its moves/s and the CPU a move of pbem's server process, its mail worker, its picture
process, the bench and the relay sink. Alternate runs of two checkouts (``python /path/to/other/bench/pbem_max.py``
runs that checkout's pbem) side by side show a change's effect on moves/s and on each process; ``--config-extra``
adds lines to the configuration pbem serve is given (a setting tried against its default).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import e2e  # this checkout's bench: its REPO is what pbem serve runs


def per_move(cpu: dict[str, float], phase: dict[str, Any]) -> dict[str, float]:
    """Milliseconds of CPU a move of each process, from the phase's CPU shares (% of a core) and its moves."""
    scale = 10 * phase["seconds"] / phase["moves"]  # % of a core over the phase -> ms a move
    return {"server_ms": cpu["server_process_cpu_pct"] * scale, "worker_ms": e2e.worker_cpu_pct(cpu) * scale,
            "pictures_ms": cpu["picture_process_cpu_pct"] * scale, "pbem_ms": cpu["server_cpu_pct"] * scale,
            "bench_ms": cpu["bench_cpu_pct"] * scale, "sink_ms": cpu["sink_cpu_pct"] * scale}


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    workdir = Path(tempfile.mkdtemp(prefix="pbem-max-"))
    sink = e2e.Sink()
    pbem: e2e.ServerProcess | None = None
    games: list[e2e.Game] = []
    try:
        pbem = e2e.start_pbem(workdir, sink.port, extra=args.config_extra)
        games = e2e.make_games(args.games * args.runs, 0, sink, pbem, args.timeout, args.seed)
        e2e.set_up_all(games)
        for game in games:
            e2e.plan(game, args.moves_per_game)
        results = []
        for number in range(args.runs):
            batch = games[number * args.games:(number + 1) * args.games]
            with e2e.cpu_use(pbem.proc.pid, sink.pid) as cpu:
                phase = e2e.pbem_phase(batch, args.moves_per_game, args.seconds, rate=None)
            if not phase["moves"]:
                raise e2e.BenchError("no move was played")
            figures = {"run": number + 1, "games": args.games, "moves": phase["moves"], "moves_per_s": phase["rate"],
                       "p50_ms": phase["p50_ms"], "p99_ms": phase["p99_ms"], **per_move(cpu, phase)}
            # The bench's and the sink's work a move is the same whatever pbem does: pbem's CPU over theirs
            # varies less with the VM's speed than either alone.
            figures["pbem_over_bench_and_sink"] = figures["pbem_ms"] / max(figures["bench_ms"] + figures["sink_ms"],
                                                                            1e-9)
            results.append(figures)
            print(f"run {number + 1}: {phase['rate']:.1f} moves/s ({phase['moves']} moves, {args.games} games), p99 "
                  f"{phase['p99_ms']:.0f} ms; CPU a move: server process {figures['server_ms']:.2f} ms, worker "
                  f"{figures['worker_ms']:.2f}, pictures {figures['pictures_ms']:.2f}, "
                  f"bench {figures['bench_ms']:.2f}, sink {figures['sink_ms']:.2f}; "
                  f"pbem / (bench + sink) {figures['pbem_over_bench_and_sink']:.3f}", flush=True)
        pbem.check()
        return results
    finally:
        e2e.shut_down(games, [pbem], sink)
        shutil.rmtree(workdir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=80, help="concurrent games (and SMTP clients) a run [80]")
    parser.add_argument("--runs", type=int, default=3, help="runs, each with games of its own [3]")
    parser.add_argument("--moves-per-game", type=int, default=30, help="moves (plies) per game and run [30]")
    parser.add_argument("--seconds", type=float, default=60.0, help="time cap of a run [60]")
    parser.add_argument("--timeout", type=float, default=30.0, help="longest wait for any one mail [30]")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random move choice [1]")
    parser.add_argument("--config-extra", default="", metavar="TOML",
                        help='lines added to pbem serve\'s configuration, e.g. \'[log]\\nlevel = "WARNING"\'')
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    args.config_extra = args.config_extra.replace("\\n", "\n")
    try:
        results = run(args)
    except e2e.BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        return 2
    if args.json:
        args.json.write_text(json.dumps(results, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
