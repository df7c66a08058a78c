"""Delivery through a relay that takes its time (a smarthost across a network): mails/s on one relay connection
against RELAY_CONNECTIONS, a crash still re-sending at most one mail (pbem.mail.delivery).

The relay is an aiosmtpd server in a process of its own that waits ``--pause`` before each of its answers to
MAIL, RCPT and the final dot (a round trip across a network); the mails are queued game-mail sized rows for
``--players`` recipients, delivered by pbem's Deliverer from a fresh SQLite file.
It also reports the deliverer's CPU a mail (its process's, every thread's, kernel time included); with
``--pause 0 --batch 50`` that is delivery's own cost, the relay answering at once.
Usage: python bench/relay_lanes.py [--mails 200] [--players 40] [--pause 0.02] [--batch N] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pbem.mail.delivery as delivery  # noqa: E402
from pbem.store.models import OutboxItem, utcnow  # noqa: E402
from tests.helpers.pipeline import Pipeline  # noqa: E402
from tests.helpers.serving import free_port  # noqa: E402


class SlowRelay:
    """Answers MAIL, RCPT and the end of DATA after ``pause`` seconds each; counts what it took."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        await asyncio.sleep(self.pause)
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        await asyncio.sleep(self.pause)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        await asyncio.sleep(self.pause)
        return "250 OK"


def serve_relay(port: int, pause: float) -> None:
    from aiosmtpd.controller import Controller

    controller = Controller(SlowRelay(pause), hostname="127.0.0.1", port=port)
    controller.start()
    while True:
        time.sleep(3600)


def wait_listening(port: int, seconds: float = 60.0) -> None:
    """Return once the relay on ``port`` takes a connection: a fixed second was too short for a spawned process on a
    busy machine, and the first round then found the relay down."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1.0):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"relay_lanes: no relay listened on port {port} within {seconds:.0f} s") from None
            time.sleep(0.05)


def deliver(connections: int, mails: int, players: int, port: int, batch: int) -> tuple[float, float]:
    """Seconds to deliver ``mails`` queued mails on ``connections`` relay connections, ``batch`` a round, and the
    CPU seconds this process spent on it."""
    delivery.RELAY_CONNECTIONS = connections
    body = b"Subject: game mail\r\n\r\n" + (b"x" * 76 + b"\r\n") * 500  # about a game mail with its picture
    with tempfile.TemporaryDirectory(prefix="pbem-relay-lanes-") as workdir:
        pipe = Pipeline(Path(workdir))
        try:
            with pipe.db.transaction() as session:
                for number in range(mails):
                    session.add(OutboxItem(recipient=f"p{number % players}@players.example",
                                           message_id=f"<{number}@bench>", raw=body, next_attempt_at=utcnow(),
                                           created_at=utcnow()))
            deliverer = delivery.Deliverer(pipe.db, "127.0.0.1", port, str(Path(workdir) / "unused"), batch=batch)
            started, cpu = time.perf_counter(), time.process_time()
            sent = 0
            while sent < mails:
                round_sent = deliverer.deliver_due()
                if not round_sent:
                    raise SystemExit("relay_lanes: the relay refused the mails (see the log above)")
                sent += round_sent
            took, cpu = time.perf_counter() - started, time.process_time() - cpu
            deliverer.close()
        finally:
            pipe.close()
    return took, cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mails", type=int, default=200)
    parser.add_argument("--players", type=int, default=40, help="recipients the mails go to")
    parser.add_argument("--pause", type=float, default=0.02, help="the relay's wait before each answer (s)")
    parser.add_argument("--batch", type=int, help="mails a delivery round [all of them in one]")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    port = free_port()
    relay = multiprocessing.get_context("spawn").Process(target=serve_relay, args=(port, args.pause), daemon=True)
    relay.start()
    wait_listening(port)
    try:
        lanes = delivery.RELAY_CONNECTIONS
        batch = args.batch or args.mails
        one, one_cpu = deliver(1, args.mails, args.players, port, batch)
        several, several_cpu = deliver(lanes, args.mails, args.players, port, batch)
        figures = {"mails": args.mails, "players": args.players, "pause_ms": 1000 * args.pause, "batch": batch,
                   "connections": lanes,
                   "one_connection_mails_per_s": args.mails / one, "one_connection_cpu_ms": 1000 * one_cpu / args.mails,
                   "lanes_mails_per_s": args.mails / several, "lanes_cpu_ms": 1000 * several_cpu / args.mails}
    finally:
        relay.kill()
    print(f"delivery of {args.mails} mails to {args.players} players through a relay answering after "
          f"{figures['pause_ms']:.0f} ms, {batch} mails a round:\n"
          f"  one relay connection       {figures['one_connection_mails_per_s']:7.1f} mails/s   "
          f"{figures['one_connection_cpu_ms']:.2f} ms of CPU a mail\n"
          f"  {lanes} relay connections      {figures['lanes_mails_per_s']:7.1f} mails/s   "
          f"{figures['lanes_cpu_ms']:.2f} ms of CPU a mail")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
