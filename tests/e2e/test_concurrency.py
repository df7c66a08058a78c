"""200 moves for one game at once, from both players with many duplicates: one move per turn, clear refusals."""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.models import Game, InboxItem, MoveRecord
from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.players import start_game

#: Minutes of real processes and databases: `pytest -m 'not slow'` leaves them out of a quick run.
pytestmark = pytest.mark.slow


@pytest.fixture(params=[False, True], ids=["worker-thread", "worker-process"])
def harness(tmp_path: Path, database_url: str | None, request: pytest.FixtureRequest) -> Iterator[Harness]:
    # No error-reply limit here: every one of the 200 mails must be answered, refusals included.
    h = Harness(tmp_path, database_url=database_url, PBEM_SERVER_ERROR_REPLIES_PER_HOUR="0",
                PBEM_SERVER_WORKER_PROCESS=str(request.param).lower())
    yield h
    h.close()


def test_200_simultaneous_moves_for_one_game(harness: Harness) -> None:
    alice, bob, game_a, game_b = start_game(harness)
    # White's and Black's first two moves, each 50 times with its own Message-ID, shuffled and sent at once.
    sends: list[tuple[Player, object, str]] = []
    for text in ("e4 #1", "Nf3 #2"):
        sends += [(alice, game_a, text)] * 50
    for text in ("e5 #1", "Nc6 #2"):
        sends += [(bob, game_b, text)] * 50
    random.Random(7).shuffle(sends)
    with ThreadPoolExecutor(max_workers=40) as pool:
        list(pool.map(lambda s: s[0].reply(s[1], s[2]), sends))  # type: ignore[arg-type]
    db = harness.server.db  # type: ignore[union-attr]
    deadline = time.monotonic() + 120
    while True:  # every mail applied, then every reply delivered
        with db.read() as session:
            waiting = session.exec(select(InboxItem.id).where(InboxItem.status == "new")).first()
        if waiting is None:
            break
        assert time.monotonic() < deadline, "the worker did not finish"
        time.sleep(0.2)
    harness.settle(quiet=1.0, timeout=120)

    with harness.server.db.transaction() as session:  # type: ignore[union-attr]
        game = session.exec(select(Game)).one()
        records = session.exec(select(MoveRecord).order_by(MoveRecord.ply)).all()
        statuses = {item.status for item in session.exec(select(InboxItem))}
    assert statuses == {"done"}
    applied = [r.record for r in records]
    assert [r.ply for r in records] == list(range(1, game.ply + 1))
    assert len(applied) == len(set(applied))  # no turn played twice
    assert applied[:1] == ["Pe2-e4"] and set(applied) <= {"Pe2-e4", "Pe7-e5", "Ng1-f3", "Nb8-c6"}

    answers = [body_of(m) for m in alice.inbox() + bob.inbox()
               if re.search(r"^> (e4|e5|Nf3|Nc6) #\d", body_of(m), re.MULTILINE)]
    played = [a for a in answers if re.search(r"^Played \d", a, re.MULTILINE)]
    refused = [a for a in answers if "Not played:" in a]
    assert len(answers) == 200  # every mail answered once
    assert len(played) == game.ply and len(refused) == 200 - game.ply
    reasons = ("it is not your move", "guarded by #", "illegal")
    assert all(any(reason in a for reason in reasons) for a in refused)
