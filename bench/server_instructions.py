"""The server process's work a mail in machine instructions (callgrind): the listener's and the deliverer's sides.

bench/move_instructions.py counts the worker's move; this counts what ``pbem serve``'s own process does for a
move's mails, in two parts run apart:

- ``inbound``: pbem's SMTP listener (PbemSMTP, InboundHandler, GroupCommit with the worker's reading) on a fresh
  SQLite file, in this process; a client in a process of its own sends it move mails (a reply quoting the game
  mail it answers, as bench/e2e.py's players write them) one after the other on one connection.
- ``outbound``: a move's two outbox rows (the mover's reply, the opponent's game mail with its picture to draw),
  queued for ``--mails`` moves, delivered by pbem's Deliverer (its sent journal, four relay connections, the
  picture process) to a sink in a process of its own that takes every mail.

Each part runs under callgrind twice, with ``--mails`` and with ``--mails + --more``; the difference over the
extra mails is the work of one mail (of one move, for ``outbound``). The client, the sink and the picture
process run outside valgrind (started by exec), so only the server's side is counted. The journal's periodic
folds are left to the call's end (one fold of all the marks, as folds of some 200 marks are at the e2e maximum):
under valgrind every FOLD_SECONDS would be a few mails.

``--native`` runs each part without valgrind and prints its context switches and CPU a mail instead (getrusage:
every thread of this process), the same difference between two runs.
Usage: python bench/server_instructions.py [--parts inbound outbound] [--mails 100] [--more 200] [--native]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import smtplib
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

#: Where the samples are kept between runs (made once: playing a game takes seconds).
SAMPLES = Path(tempfile.gettempdir()) / f"pbem-server-instructions-{os.getuid()}.json"
_MESSAGE_ID = re.compile(rb"^Message-ID: [^\r\n]*", re.MULTILINE)


def make_samples() -> dict[str, Any]:
    """A hyperspace game played a few moves through the worker: a move mail as a player writes it, and a move's
    two outbox rows as the worker queues them."""
    import move_cost
    from sqlmodel import col, select

    from pbem.store.models import OutboxItem

    with tempfile.TemporaryDirectory(prefix="pbem-server-samples-") as workdir:
        pbem = move_cost.Pbem(Path(workdir))
        game = move_cost.start_game(pbem, 1)
        moves = [("Pe2-e4", game.white, game.black), ("Pe7-e5", game.black, game.white),
                 ("Pd2-d4", game.white, game.black)]
        rows: list[dict[str, Any]] = []
        move_mail, sender, to = b"", "", ""
        for text, mover, opponent in moves:
            assert mover.last is not None
            sender, to = mover.email, str(mover.last["Reply-To"])
            move_mail = pbem.mail(sender, to, text, reply_to=mover.last)
            pbem.deliver(move_mail, sender, to)
            with pbem.db.read() as session:
                rows = [{"recipient": row.recipient, "raw": row.raw.decode("utf-8", "surrogateescape"),
                         "pictures": row.pictures}
                        for row in session.exec(select(OutboxItem).where(col(OutboxItem.status) == "pending")
                                                .order_by(col(OutboxItem.id)))]
            for recipient, message in pbem.drain_outbox():
                (mover if recipient == mover.email else opponent).last = message
        pbem.close()
    # As a mail client puts it on the wire: CRLF line ends (the email package wrote LF).
    wire = "\r\n".join(move_mail.decode("utf-8", "surrogateescape").splitlines()) + "\r\n"
    return {"move_mail": wire, "sender": sender, "to": to, "rows": rows}


def samples() -> dict[str, Any]:
    if not SAMPLES.exists():
        SAMPLES.write_text(json.dumps(make_samples()))
    loaded: dict[str, Any] = json.loads(SAMPLES.read_text())
    return loaded


def numbered(raw: bytes, number: int) -> bytes:
    """``raw`` with a Message-ID of its own, as long as every other's (so that each mail costs the same)."""
    return _MESSAGE_ID.sub(f"Message-ID: <{number:08d}.bench@players.example>".encode(), raw, count=1)


def client(port: int, mails: int) -> None:
    """Send ``mails`` move mails on one connection, each after the last one's answer."""
    sample = samples()
    raw = sample["move_mail"].encode("utf-8", "surrogateescape")
    with smtplib.SMTP("127.0.0.1", port, timeout=600) as smtp:
        for number in range(mails):
            smtp.sendmail(sample["sender"], [sample["to"]], numbered(raw, number))


def instrumented() -> None:
    """Have callgrind count from here on: the runs start without it (``--instr-atstart=no``), which takes the
    imports and the database's set-up at a fraction of callgrind's cost. Outside valgrind, nothing."""
    if os.environ.get("PBEM_SERVER_INSTRUCTIONS") == "callgrind":
        subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True, capture_output=True)


def inbound(mails: int) -> None:
    """pbem's listener here, a client in another process sending it ``mails`` move mails."""
    from pbem.mail.smtpd import InboundHandler, make_smtp_factory
    from pbem.worker import read_ahead
    from tests.helpers.pipeline import Pipeline

    with tempfile.TemporaryDirectory(prefix="pbem-server-inbound-") as workdir:
        pipe = Pipeline(Path(workdir))

        async def main() -> None:
            handler = InboundHandler(pipe.db, pipe.addresses, read=read_ahead)
            factory = make_smtp_factory(handler, 10 << 20, hostname=pipe.config.domain)
            server = await asyncio.get_running_loop().create_server(factory, host="127.0.0.1", port=0)
            port = server.sockets[0].getsockname()[1]
            instrumented()
            sender = await asyncio.create_subprocess_exec(sys.executable, __file__, "--client", str(port),
                                                          str(mails))
            if await sender.wait() != 0:
                raise SystemExit("server_instructions: the client failed")
            server.close()
            await server.wait_closed()

        asyncio.run(main())
        pipe.close()


def sink(announce: str) -> None:
    """A relay that takes every mail (pbem's listener's protocol class, as bench/e2e.py's sink), its port written
    to ``announce``."""
    from pbem.mail.smtpd import PbemSMTP

    class Taker:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            return "250 OK"

    async def main() -> None:
        server = await asyncio.get_running_loop().create_server(
            lambda: PbemSMTP(Taker(), data_size_limit=10 << 20, enable_SMTPUTF8=True), "127.0.0.1", 0)
        Path(announce).write_text(str(server.sockets[0].getsockname()[1]))
        await asyncio.Event().wait()

    asyncio.run(main())


def outbound(moves: int) -> None:
    """A move's two outbox rows queued ``moves`` times (for 40 players), delivered through the picture process."""
    import pbem.children
    import pbem.mail.delivery as delivery
    import pbem.picture_process as picture_process
    from pbem.store.models import OutboxItem, utcnow
    from tests.helpers.pipeline import Pipeline

    delivery.FOLD_SECONDS = 1e9  # one fold at the call's end (see the module's docstring)
    # The picture process from the fork server, which is exec'ed: outside valgrind, as the sink is.
    picture_process.child_context = pbem.children.forkserver  # type: ignore[assignment]
    rows = samples()["rows"]
    with tempfile.TemporaryDirectory(prefix="pbem-server-outbound-") as workdir:
        announce = Path(workdir) / "port"
        relay = subprocess.Popen([sys.executable, __file__, "--sink", str(announce)])
        pipe = Pipeline(Path(workdir))
        pictures = picture_process.PictureProcess()
        try:
            pictures.start()
            with pipe.db.transaction() as session:
                for number in range(2 * moves):
                    row = rows[number % 2]
                    session.add(OutboxItem(recipient=f"p{number % 40:02d}@players.example",
                                           message_id=f"<{number:08d}@bench>",
                                           raw=numbered(row["raw"].encode("utf-8", "surrogateescape"), number),
                                           pictures=row["pictures"], next_attempt_at=utcnow(), created_at=utcnow()))
            while not announce.exists() or not announce.read_text():
                time.sleep(0.05)
            deliverer = delivery.Deliverer(pipe.db, "127.0.0.1", int(announce.read_text()), str(Path(workdir) / "md"),
                                           finish=pictures.finish)
            instrumented()
            sent = deliverer.deliver_due(3600.0)
            deliverer.close()
            if sent != 2 * moves:
                raise SystemExit(f"server_instructions: {sent} mails sent of {2 * moves}")
        finally:
            pictures.close()
            relay.terminate()
            relay.wait()
            pipe.close()


PARTS: dict[str, Callable[[int], None]] = {"inbound": inbound, "outbound": outbound}


def counted(part: str, mails: int, workdir: Path) -> int:
    """Instructions of this process (not its children) running ``part`` for ``mails`` mails, under callgrind."""
    out = workdir / f"callgrind.{part}.{mails}.%p"
    process = subprocess.run(
        ["valgrind", "--tool=callgrind", "--trace-children=no", "--instr-atstart=no",
         f"--callgrind-out-file={out}", sys.executable, __file__, "--inner", part, str(mails)],
        capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0",
                                             "PBEM_SERVER_INSTRUCTIONS": "callgrind"}, cwd=REPO, check=False)
    found = re.findall(r"==(\d+)== Collected : (\d+)", process.stderr)
    if process.returncode != 0 or not found:
        raise SystemExit(f"server_instructions: {part} of {mails} failed:\n{process.stdout}\n{process.stderr[-3000:]}")
    return int(found[-1][1])


def native(part: str, mails: int, more: int) -> dict[str, float]:
    """Context switches and CPU of this process's threads a mail: a run of ``mails + more`` against one of
    ``mails``, after a short one that imports and warms what they use."""
    from pbem.log_setup import configure_logging

    configure_logging("INFO", "text")
    run = PARTS[part]
    run(10)
    used = []
    for count in (mails, mails + more):
        before = resource.getrusage(resource.RUSAGE_SELF)
        run(count)
        after = resource.getrusage(resource.RUSAGE_SELF)
        used.append((after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw,
                     after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
    return {name: (high - low) / more * scale for name, high, low, scale in
            zip(("voluntary", "involuntary", "user_us", "system_us"), used[1], used[0], (1, 1, 1e6, 1e6),
                strict=True)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=list(PARTS))
    parser.add_argument("--mails", type=int, default=100, help="mails (moves, outbound) of the shorter run [100]")
    parser.add_argument("--more", type=int, default=200, help="extra mails of the longer run [200]")
    parser.add_argument("--native", action="store_true", help="context switches and CPU instead, no valgrind")
    parser.add_argument("--inner", nargs=2, metavar=("PART", "MAILS"), help=argparse.SUPPRESS)
    parser.add_argument("--client", nargs=2, type=int, metavar=("PORT", "MAILS"), help=argparse.SUPPRESS)
    parser.add_argument("--sink", metavar="ANNOUNCE", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.client:
        client(*args.client)
        return 0
    if args.sink:
        sink(args.sink)
        return 0
    if args.inner:
        from pbem.log_setup import configure_logging

        configure_logging("INFO", "text")  # as pbem serve logs: a line a mail received, a line a mail sent
        PARTS[args.inner[0]](int(args.inner[1]))
        return 0
    samples()
    for part in args.parts:
        unit = "move (two mails)" if part == "outbound" else "mail"
        if args.native:
            figures = native(part, args.mails, args.more)
            print(f"{part}, a {unit}: " + ", ".join(f"{name} {value:.2f}" for name, value in figures.items()),
                  flush=True)
            continue
        with tempfile.TemporaryDirectory(prefix="pbem-server-instructions-") as workdir:
            low, high = (counted(part, mails, Path(workdir)) for mails in (args.mails, args.mails + args.more))
        print(f"{part}: {(high - low) / args.more:,.0f} instructions a {unit} "
              f"({low:,} for {args.mails}, {high:,} for {args.mails + args.more})", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
