"""`pbem admin backup` of a live SQLite database while moves arrive: the copy opens, is consistent, and holds
every move acknowledged before the backup began."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.engine.base import Seat
from pbem.store.db import Database
from pbem.store.models import Game, MoveRecord, OutboxItem
from tests.helpers.admin import admin
from tests.helpers.events import config_file
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game

#: A thread playing games through the worker for many seconds: `pytest -m 'not slow'` leaves it out.
pytestmark = pytest.mark.slow

#: Morphy's Opera Game, 33 plies to mate: every game of the test plays it.
OPERA = ("e4", "e5", "Nf3", "d6", "d4", "Bg4", "dxe5", "Bxf3", "Qxf3", "dxe5", "Bc4", "Nf6", "Qb3", "Qe7", "Nc3", "c6",
         "Bg5", "b5", "Nxb5", "cxb5", "Bxb5+", "Nbd7", "O-O-O", "Rd8", "Rxd7", "Rxd7", "Rd1", "Qe6", "Bxd7+", "Nxd7",
         "Qb8+", "Nxb8", "Rd8#")
GAMES = 4


def open_games(pipe: Pipeline) -> dict[int, dict[Seat, str]]:
    """GAMES games of alice (white) against bob: each game's seat addresses."""
    alice, bob, seat_a, seat_b = begin_game(pipe)
    games = {1: {Seat.WHITE: seat_a, Seat.BLACK: seat_b}}
    while len(games) < GAMES:
        pipe.send(ALICE, alice, "challenge bob hyperspace white")
        number = re.search(r"accept (\d+)", next(body_of(m) for r, m in pipe.drain_outbox() if r == BOB))
        assert number
        pipe.send(BOB, bob, f"accept {number.group(1)}")
        started = {r: (str(m["Subject"]), str(m["Reply-To"])) for r, m in pipe.drain_outbox()
                   if "has started" in body_of(m)}
        game_id = int(re.search(r"#(\d+)", started[ALICE][0]).group(1))  # type: ignore[union-attr]
        games[game_id] = {Seat.WHITE: started[ALICE][1], Seat.BLACK: started[BOB][1]}
    return games


def ballast(db: Database, megabytes: int) -> None:
    """Old sent mails enough to make the copy take a while, so that moves arrive while it runs."""
    body = b"x" * (1 << 20)
    with db.transaction() as session:
        for number in range(megabytes):
            session.add(OutboxItem(recipient="ballast@example.org", message_id=f"<ballast-{number}@example.org>",
                                   raw=body, status="sent"))


def test_a_backup_while_moves_arrive_holds_every_move_acknowledged_before_it(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        games = open_games(pipe)
        ballast(pipe.db, 96)
        config = config_file(tmp_path, pipe.db.url, "pipeline-key")
        acknowledged: list[tuple[int, int, float]] = []  # game, ply, when its mail was committed
        failures: list[str] = []

        def play() -> None:
            for ply, move in enumerate(OPERA, start=1):
                seat, sender = (Seat.WHITE, ALICE) if ply % 2 else (Seat.BLACK, BOB)
                for game_id, seats in games.items():
                    pipe.send(sender, seats[seat], move)
                    replies = [body_of(m) for r, m in pipe.drain_outbox() if r == sender]
                    if not any(reply.startswith("You played") for reply in replies):
                        failures.append(f"game {game_id} ply {ply} {move}: {replies}")
                        return
                    acknowledged.append((game_id, ply, time.monotonic()))

        mover = threading.Thread(target=play)
        mover.start()
        while len(acknowledged) < 10 and mover.is_alive():
            time.sleep(0.01)
        before = {(game_id, ply) for game_id, ply, _ in list(acknowledged)}
        started = time.monotonic()
        status, out, err = admin(config, "backup", str(tmp_path / "copy.sqlite3"))
        ended = time.monotonic()
        mover.join(timeout=300)
        assert not mover.is_alive() and failures == []
        assert status == 0, err
        assert "To restore it" in out
        during = [(game_id, ply) for game_id, ply, at in acknowledged if started < at < ended]
        assert during, f"no move arrived during the {ended - started:.2f} s backup: the test proves nothing"

        # Every game was played to the end in the live database.
        with pipe.db.read() as session:
            live = {(r.game_id, r.ply) for r in session.exec(select(MoveRecord))}
        assert len(live) == GAMES * len(OPERA)

        copy = Database(f"sqlite:///{tmp_path / 'copy.sqlite3'}")
        try:
            with copy.read() as session:
                rows = session.exec(select(MoveRecord).order_by(col(MoveRecord.game_id), col(MoveRecord.ply))).all()
                held = {(r.game_id, r.ply) for r in rows}
                plies = {g.id: g.ply for g in session.exec(select(Game))}
        finally:
            copy.dispose()
        assert before <= held, sorted(before - held)
        # A consistent snapshot: each game's row agrees with its move records (no half-applied turn).
        for game_id, ply in plies.items():
            assert {p for g, p in held if g == game_id} == set(range(1, ply + 1))
        assert held < live  # the copy is of its moment: later moves are not in it
    finally:
        pipe.close()
