"""Delivery over one relay connection against several, to a relay that takes a while to answer each mail."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from aiosmtpd.controller import Controller  # noqa: E402
from aiosmtpd.smtp import SMTP, Envelope, Session  # noqa: E402

import pbem.mail.delivery as delivery  # noqa: E402
from tests.helpers.pipeline import Pipeline  # noqa: E402
from tests.helpers.serving import free_port  # noqa: E402


class SlowRelay:
    """A relay that answers DATA after ``pause`` seconds, as a remote smarthost does after its round trip."""

    def __init__(self, pause: float) -> None:
        self.pause = pause

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        await asyncio.sleep(self.pause)
        return "250 OK"


def deliver_all(connections: int, players: int, pause: float) -> tuple[int, float]:
    """Queue two mails for each of ``players`` (a welcome and an answer to 'help'), then deliver them all
    with ``connections`` relay connections; how many were sent, in how many seconds."""
    delivery.RELAY_CONNECTIONS = connections
    with tempfile.TemporaryDirectory(prefix="pbem-relay-lanes-") as workdir:
        pipe = Pipeline(Path(workdir))
        port = free_port()
        relay = Controller(SlowRelay(pause), hostname="127.0.0.1", port=port)
        relay.start()
        try:
            for number in range(players):
                sender = f"p{number}@players.example"
                pipe.send(sender, pipe.addresses.public, f"register player{number}")
                pipe.send(sender, pipe.addresses.public, "help")
            deliverer = delivery.Deliverer(pipe.db, "127.0.0.1", port, str(Path(workdir) / "maildir"))
            started, sent = time.perf_counter(), 0
            while found := deliverer.deliver_due():
                sent += found
            took = time.perf_counter() - started
            deliverer.close()
        finally:
            relay.stop()
            pipe.close()
    return sent, took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=20, help="recipients, two mails each [20]")
    parser.add_argument("--pause", type=float, default=0.02, help="seconds the relay takes per DATA [0.02]")
    parser.add_argument("--rounds", type=int, default=2, help="alternating runs of each setting [2]")
    args = parser.parse_args(argv)
    settings = (1, delivery.RELAY_CONNECTIONS)  # one connection, then pbem's own number
    for _ in range(args.rounds):
        for connections in settings:
            sent, took = deliver_all(connections, args.players, args.pause)
            print(f"{connections} connection(s): {sent} mails in {took:.2f} s = {sent / took:.0f} mails/s "
                  f"(the relay answers each DATA after {args.pause * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
