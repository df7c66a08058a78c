"""Crash consistency: moves sent in bursts while `pbem serve` is SIGKILLed at random moments.

Every move the listener acknowledged with 250 must be applied exactly once,
and every reply delivered (a crash may re-send a mail, with the same
Message-ID, at most once per crash).
"""

from __future__ import annotations

import random
import smtplib
import threading
import time
from collections import Counter
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP as SMTP_POLICY
from email.utils import make_msgid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from pbem.variants.hyperspace.engine import HyperspaceChess
from pbem.variants.hyperspace.model import PhaseOut
from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.serving import Instance

#: Minutes of real processes and databases: `pytest -m 'not slow'` leaves them out of a quick run.
pytestmark = pytest.mark.slow

ENGINE = HyperspaceChess()
GAMES = 6
PLIES = 30


class Game:
    """One game driven by its two players: a random legal board move per turn, retried until acknowledged."""

    def __init__(self, white: Player, black: Player, seat_mails: dict[str, EmailMessage], seed: int) -> None:
        self.players = {"white": white, "black": black}
        self.seats = {seat: str(mail["Reply-To"]) for seat, mail in seat_mails.items()}
        self.state = ENGINE.setup()
        self.random = random.Random(seed)
        self.sent: list[tuple[str, str]] = []  # (Message-ID, canonical move), in order, each acknowledged

    def play(self, harness: Harness, stop: threading.Event) -> None:
        for _ in range(PLIES):
            if ENGINE.outcome(self.state) is not None or stop.is_set():
                return
            seat = ENGINE.to_act(self.state)
            assert seat is not None
            actions = [a for a in ENGINE.legal_actions(self.state) if not isinstance(a, PhaseOut)]
            action = self.random.choice(actions)
            move = ENGINE.describe(self.state, action)
            message = EmailMessage()
            player = self.players[seat.value]
            message["From"], message["To"] = player.address, self.seats[seat.value]
            message["Subject"], message["Message-ID"] = "Re: move", make_msgid(domain="players.example")
            message.set_content(f"{move} #{ENGINE.move_number(self.state)}\n")
            deliver_until_acknowledged(harness, player.address, self.seats[seat.value],
                                       message.as_bytes(policy=SMTP_POLICY))
            self.sent.append((str(message["Message-ID"]), move))
            self.state = ENGINE.apply(self.state, action).state


def deliver_until_acknowledged(harness: Harness, sender: str, to: str, raw: bytes, patience: float = 60) -> None:
    """What an MTA does: retry the same message (same Message-ID) until the server says 250."""
    deadline = time.monotonic() + patience
    while True:
        try:
            with smtplib.SMTP("127.0.0.1", harness.port, timeout=10) as client:
                client.sendmail(sender, [to], raw)
            return
        except (OSError, smtplib.SMTPException):
            assert time.monotonic() < deadline, "the server never came back"
            time.sleep(0.1)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path, serve=False)
    yield h
    h.close()


@pytest.mark.parametrize(("seed", "worker_process"), [(1, False), (2, True)])
def test_sigkill_during_bursts_loses_and_doubles_nothing(harness: Harness, tmp_path: Path, seed: int,
                                                        worker_process: bool) -> None:
    """``worker_process``: the mail worker a thread of `pbem serve`, or a process of its own (killed with it)."""
    url = f"sqlite:///{tmp_path / 'crash.sqlite3'}"
    server = Instance(tmp_path, "pbem", harness, url, worker_process=worker_process)
    harness.port = server.port
    try:
        games = set_up_games(harness, seed)
        stop = threading.Event()
        threads = [threading.Thread(target=game.play, args=(harness, stop)) for game in games]
        for thread in threads:
            thread.start()
        kills = 0
        chaos = random.Random(seed)
        # At least 3 kills: a fast server may take all the bursts in before the third, and the kills after
        # them hit it working through the mails they left (the worker, delivery), which must hold as well.
        while kills < 6 and (kills < 3 or any(thread.is_alive() for thread in threads)):
            time.sleep(chaos.uniform(0.2, 0.9))
            server.kill()
            kills += 1
            time.sleep(chaos.uniform(0.0, 0.5))
            server.start()
        for thread in threads:
            thread.join(timeout=180)
        assert not any(thread.is_alive() for thread in threads)
        wait_until_settled(url)
        harness.settle(quiet=1.5, timeout=60)
        check_applied_once(url, games)
        check_replies(games, kills)
        print(f"seed {seed}: {sum(len(g.sent) for g in games)} moves acknowledged, {kills} kills, lost 0")
    finally:
        server.stop()


def set_up_games(harness: Harness, seed: int) -> list[Game]:
    games = []
    for number in range(GAMES):
        white = Player(harness, f"w{number}@players.example")
        black = Player(harness, f"b{number}@players.example")
        welcome_w, welcome_b = white.register(f"w{number}"), black.register(f"b{number}")
        white.reply(welcome_w, f"challenge b{number} hyperspace white")
        challenge = black.next_mail(lambda m: "challenges you" in str(m["Subject"]))
        number_line = next(line for line in body_of(challenge).splitlines() if line.startswith("Challenge number"))
        black.reply(welcome_b, f"accept {number_line.split()[-1]}")
        seat_w = white.next_mail(lambda m: "You play white" in body_of(m))
        seat_b = black.next_mail(lambda m: "You play black" in body_of(m))
        games.append(Game(white, black, {"white": seat_w, "black": seat_b}, seed * 100 + number))
    return games


def wait_until_settled(url: str, timeout: float = 120) -> None:
    engine = create_engine(url)
    deadline = time.monotonic() + timeout
    try:
        while True:
            with engine.connect() as connection:
                busy = connection.execute(text(
                    "SELECT (SELECT count(*) FROM inboxitem WHERE status = 'new') + "
                    "(SELECT count(*) FROM outboxitem WHERE status = 'pending')")).scalar()
            if not busy:
                return
            assert time.monotonic() < deadline, "pbem did not catch up after the last restart"
            time.sleep(0.2)
    finally:
        engine.dispose()


def check_applied_once(url: str, games: list[Game]) -> None:
    engine = create_engine(url)
    with engine.connect() as connection:
        statuses = Counter(row[0] for row in connection.execute(text("SELECT status FROM inboxitem")))
        assert set(statuses) == {"done"}, statuses
        for number, game in enumerate(games, start=1):
            records = [row[0] for row in connection.execute(
                text("SELECT record FROM moverecord WHERE game_id = :g ORDER BY ply"), {"g": number})]
            # Each acknowledged move once, in order (a record may add a check sign to the canonical move).
            assert [r.rstrip("+#") for r in records] == [move for _, move in game.sent], number
    engine.dispose()


def check_replies(games: list[Game], kills: int) -> None:
    duplicates = 0
    for game in games:
        for seat, player in game.players.items():
            inbox = player.inbox()
            copies = Counter(str(m["Message-ID"]) for m in inbox)
            duplicates += sum(count - 1 for count in copies.values())
            answered = {str(m["In-Reply-To"]) for m in inbox}
            own = [mid for index, (mid, _) in enumerate(game.sent) if (index % 2 == 0) == (seat == "white")]
            assert set(own) <= answered, f"{player.address}: a move got no reply"
    assert duplicates <= kills  # at most one re-sent mail per crash, and it carries the same Message-ID
