"""The listener's CPU a mail over loopback SMTP: aiosmtpd's DATA read line by line against pbem's read in blocks."""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import smtplib
import statistics
import sys
import time
from multiprocessing.connection import Connection
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aiosmtpd.smtp import SMTP, Envelope, Session

from pbem.mail.smtpd import PbemSMTP

#: A line of a reply that quotes its board (a move mail), or of a picture's base64 (a game mail with its picture).
LINE = b"> 8 | r . b q k b n r |  some quoted diagram line of a reply ...\r\n"


class Timing:
    """The server's handler: accepts every mail, and notes its process's CPU after ``warm`` mails and at the last."""

    def __init__(self, warm: int, total: int, report: Connection) -> None:
        self.warm, self.total, self.report = warm, total, report
        self.count = 0
        self.started = 0.0

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.count += 1
        if self.count == self.warm:
            self.started = time.process_time()
        elif self.count == self.total:
            self.report.send(time.process_time() - self.started)
        return "250 OK"


def serve(kind: str, warm: int, total: int, report: Connection) -> None:
    """One server process: aiosmtpd's own DATA or pbem's, on a free port that it announces first."""
    protocol = PbemSMTP if kind == "blocks" else type("LineByLine", (PbemSMTP,), {"smtp_DATA": SMTP.smtp_DATA})

    async def main() -> None:
        handler = Timing(warm, total, report)
        server = await asyncio.get_running_loop().create_server(
            lambda: protocol(handler, data_size_limit=1 << 20, enable_SMTPUTF8=True), "127.0.0.1", 0)
        report.send(server.sockets[0].getsockname()[1])
        await asyncio.Event().wait()

    asyncio.run(main())


def cpu_per_mail(kind: str, lines: int, mails: int, warm: int = 50) -> float:
    """Microseconds of the server process's CPU a mail of ``lines`` lines, over ``mails`` after ``warm``."""
    ours, theirs = multiprocessing.Pipe()
    server = multiprocessing.get_context("fork").Process(target=serve, args=(kind, warm, warm + mails, theirs))
    server.start()
    try:
        port = ours.recv()
        mail = b"Subject: a move\r\nFrom: bob@players.example\r\n\r\n" + LINE * lines
        with smtplib.SMTP("127.0.0.1", port) as client:
            for _ in range(warm + mails):
                client.sendmail("bob@players.example", ["pbem@pbem.localhost"], mail)
        return float(ours.recv()) / mails * 1e6
    finally:
        server.terminate()
        server.join()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--lines", type=int, nargs="+", default=[10, 100, 500],
                        help="lines a mail (a move mail quoting its board is about 100, a picture's 500) [10 100 500]")
    parser.add_argument("--mails", type=int, default=2000, help="mails timed a run [2000]")
    parser.add_argument("--runs", type=int, default=3, help="alternating runs of each reading [3]")
    args = parser.parse_args(argv)
    print(f"server CPU a mail, µs (median of {args.runs} alternating runs of {args.mails} mails, one connection)")
    print(f"{'lines':>6} {'bytes':>7} {'line by line':>13} {'in blocks':>10} {'saved':>7}")
    for lines in args.lines:
        runs: dict[str, list[float]] = {"lines": [], "blocks": []}
        for _ in range(args.runs):
            for kind in runs:
                runs[kind].append(cpu_per_mail(kind, lines, args.mails))
        by_line, by_block = statistics.median(runs["lines"]), statistics.median(runs["blocks"])
        size = len(LINE) * lines + 46
        print(f"{lines:>6} {size:>7} {by_line:>13.0f} {by_block:>10.0f} {by_line - by_block:>7.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
