"""A move's work counted in machine instructions (valgrind's callgrind): the same figure on any hour of the VM.

bench/move_cost.py times the worker in CPU milliseconds, and the VM's speed drifts by a third from one hour to
the next, so a change worth a few percent can only be seen there in runs side by side, and barely. Instructions
do not drift: the same code and load count the same to a few in ten thousand. This script plays the same
hyperspace games through the worker under callgrind, once with ``--moves`` moves and once with ``--more``
more; the difference over the extra moves is the work of one move (everything else, from start-up to the
games' set-up, is the same in both runs). That is the worker's whole path (claim, apply, both mails
composed and queued, the game row, the mark, the commit; the mail's parse too in versions whose listener does
not read it for the worker, before 2026-11-30) and this script's own loop (the move's mail written and stored
as the listener stores it, with its reading, the outbox rows read back raw; the moves are chosen beforehand); two
more runs measure the loop alone, nobody applying the mails, and the worker's figure is the difference. With
nobody applying them there are no outbox rows to read, so the reading of a move's two rows stays in the
worker's figure (for every version alike: a ratio between two versions comes out a little nearer to 1).
Compare two versions of pbem with it (it runs on every version since issue 19 was opened, 70105df), not
pbem with another program. It is no measure of time: a cache miss costs many instructions' time.

Needs valgrind (Debian's package). ``--inner N`` is the loop itself, for callgrind to run.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

#: Games played side by side (a mail's Reply-To and Message-ID name the next move's).
GAMES = 4
_REPLY_TO = re.compile(rb"^Reply-To: (\S+)\r$", re.MULTILINE)
_MESSAGE_ID = re.compile(rb"^Message-ID: (\S+)\r$", re.MULTILINE)


def play(moves: int, planned: int, pictures: bool = True, worker: bool = True) -> int:
    """Set up GAMES games and choose their next ``planned`` moves, then play the first ``moves`` of them through
    the worker; how many were played. Both runs plan as many moves, so that the choosing is no part of the
    difference between them. ``worker=False``: the mails are stored and the outbox read, but nobody applies
    them (this script's own share of a move)."""
    from email.utils import make_msgid

    import move_cost
    from sqlmodel import col, select

    from pbem.mail.smtpd import store_inbound
    from pbem.store.models import OutboxItem

    try:
        from pbem.heap import freeze_startup_heap
    except ImportError:  # a version of pbem from before the heap was frozen (issue 19's start, 70105df)
        freeze_startup_heap = gc.collect

    workdir = Path(tempfile.mkdtemp(prefix="pbem-move-instructions-"))
    pbem = move_cost.Pbem(workdir)
    # start_game's pictures argument is only passed when off: the oldest versions' start_game takes none.
    games = [move_cost.start_game(pbem, number, *([] if pictures else [False])) for number in range(1, GAMES + 1)]
    last = {seat.email: (str(seat.last["Reply-To"]), str(seat.last["Message-ID"]))
            for game in games for seat in (game.white, game.black) if seat.last is not None}
    plan = choose(games, planned)
    freeze_startup_heap()
    for mover, text in plan[:moves]:
        to, answered = last[mover]
        raw = (f"From: {mover}\r\nTo: {to}\r\nSubject: Re: your move\r\n"
               f"Message-ID: {make_msgid(domain=move_cost.PLAYERS)}\r\nIn-Reply-To: {answered}\r\n"
               f"References: {answered}\r\nContent-Type: text/plain; charset=\"utf-8\"\r\n"
               f"Content-Transfer-Encoding: 7bit\r\nMIME-Version: 1.0\r\n\r\n{text}\r\n\r\n"
               f"On Mon, 23 Nov 2026, pbem wrote:\r\n> Your move\r\n").encode()
        if hasattr(move_cost, "store_as_the_listener"):  # with the listener's reading, where pbem makes one
            move_cost.store_as_the_listener(pbem.db, raw, mover, to, pbem.addresses.domain)
        else:
            store_inbound(pbem.db, raw, mover, [to], pbem.addresses.domain)
        if worker:
            pbem.worker.process_next()
        with pbem.db.transaction() as session:
            for row in session.exec(select(OutboxItem).where(col(OutboxItem.status) == "pending")):
                reply_to, message_id = _REPLY_TO.search(row.raw), _MESSAGE_ID.search(row.raw)
                assert reply_to is not None and message_id is not None, row.raw[:500]
                last[row.recipient] = (reply_to.group(1).decode(), message_id.group(1).decode())
                row.status = "sent"
                session.add(row)
    if hasattr(pbem, "close"):  # not in the oldest versions this script is run on
        pbem.close()
    shutil.rmtree(workdir, ignore_errors=True)
    return min(moves, len(plan))


def choose(games: list[Any], planned: int) -> list[tuple[str, str]]:
    """The games' next ``planned`` moves, round by round (a random legal board move each, seeded): who mails
    it, and its text. The choice is bench/move_cost.py's own, written out here: the oldest versions this script
    runs on have it only inside move_cost's loop."""
    import move_cost

    from pbem.variants import get_variant

    engine = get_variant(move_cost.VARIANT)
    rng = random.Random(1)
    states = [game.state for game in games]
    plan: list[tuple[str, str]] = []
    while len(plan) < planned and any(engine.outcome(state) is None for state in states):
        for number, game in enumerate(games):
            state = states[number]
            if len(plan) == planned or engine.outcome(state) is not None:
                continue
            texts = sorted(engine.describe(state, action) for action in engine.legal_actions(state))
            text = rng.choice([t for t in texts if "@" not in t])  # board moves: a phase-out needs a secret
            plan.append((game.white.email if str(engine.to_act(state)) == "white" else game.black.email, text))
            states[number] = engine.apply(state, engine.parse_action(state, text)).state
    return plan


def counted(runs: list[tuple[int, bool]], planned: int, pictures: str, workdir: Path) -> list[int]:
    """Instructions of whole runs under callgrind, side by side: each of ``runs`` plays its number of moves, with
    the worker or without it."""
    started = [(moves, subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={workdir / f'callgrind.{moves}.{worker}.out'}",
         sys.executable, __file__, "--inner", str(moves), "--plan", str(planned), "--pictures", pictures,
         *([] if worker else ["--no-worker"])],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONHASHSEED": "0"},
        cwd=REPO)) for moves, worker in runs]
    counts = []
    for moves, process in started:
        stdout, stderr = process.communicate()
        found = re.search(r"Collected : (\d+)", stderr)
        if process.returncode != 0 or found is None or not re.search(rf"^played {moves}$", stdout, re.MULTILINE):
            raise SystemExit(f"move_instructions: the run of {moves} moves failed:\n{stdout}\n{stderr[-3000:]}")
        counts.append(int(found.group(1)))
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--moves", type=int, default=10, help="moves of the shorter run [10]")
    parser.add_argument("--more", type=int, default=50, help="moves the longer run plays beyond it [50]")
    parser.add_argument("--inner", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--plan", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--no-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--pictures", choices=("on", "off"), default="on",
                        help="off: the players 'set pictures off' (plain-text game mails, the work of a move when "
                             "issue 19 was written; versions from before the setting take no 'off') [on]")
    args = parser.parse_args(argv)
    if args.moves < 1 or args.more < 1:
        parser.error("--moves and --more must be at least 1")
    if args.inner is not None:
        print(f"played {play(args.inner, max(args.plan, args.inner), args.pictures == 'on', not args.no_worker)}")
        return 0
    if shutil.which("valgrind") is None:
        raise SystemExit("move_instructions: valgrind is not installed (apt-get install valgrind)")
    total = args.moves + args.more
    with tempfile.TemporaryDirectory(prefix="pbem-callgrind-") as workdir:
        short, long, short_alone, long_alone = counted(
            [(args.moves, True), (total, True), (args.moves, False), (total, False)], total, args.pictures,
            Path(workdir))
    per_move, alone = (long - short) / args.more, (long_alone - short_alone) / args.more
    mails = "plain-text mails (pictures off)" if args.pictures == "off" else "mails with pictures"
    print(f"pbem worker, one {GAMES}-game hyperspace move on SQLite, {mails}: {(per_move - alone) / 1e6:.2f} million "
          f"instructions (callgrind)\n  with this script's loop: {per_move / 1e6:.2f} million ({short:,} and {long:,} "
          f"in runs of {args.moves} and {total} moves)\n  the loop alone, nobody applying the mails: "
          f"{alone / 1e6:.2f} million ({short_alone:,} and {long_alone:,})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
