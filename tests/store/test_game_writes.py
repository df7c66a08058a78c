"""write_games: a mail's game changes written by prepared UPDATEs, exactly as the ORM's flush wrote them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlmodel import Session, select

from pbem.store.db import Database
from pbem.store.game_writes import write_games
from pbem.store.models import Account, Game


@pytest.fixture
def db(tmp_path: Path, database_url: str | None) -> Iterator[Database]:
    database = Database(database_url or f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    database.create_all()
    with database.transaction() as session:
        white, black = Account(handle="white", email="w@example.org"), Account(handle="black", email="b@example.org")
        session.add_all([white, black])
        session.flush()
        for number in range(3):
            session.add(Game(variant="outer-space", white_id=white.id or 0, black_id=black.id or 0,
                             state={"board": number}, clock={"white": 60}))
    yield database
    database.engine.dispose()


def change(game: Game, rng: random.Random) -> None:
    """What a move does to a game's row, at random: JSON columns replaced, counters, times, texts, None."""
    now = datetime(2026, 11, 26, tzinfo=UTC) + timedelta(seconds=rng.randrange(10**6))
    game.ply += 1
    game.version += 1
    game.state = {"board": [rng.randrange(9) for _ in range(5)], "note": "Zoë's \"move\""}
    game.clock = {"white": rng.randrange(100), "running": rng.choice(["white", None])}
    game.extras = {k: v for k, v in {"takeback": rng.choice(["", "black"])}.items() if v}
    game.deadline = rng.choice([None, now + timedelta(days=2)])
    game.next_event_at = game.deadline
    game.draw_offer = rng.choice(["", "white"])
    game.updated_at = now
    if rng.random() < 0.3:
        game.status, game.result, game.reason = "finished", "1-0", "checkmate"


def row_of(db: Database, game_id: int) -> dict[str, Any]:
    with db.read() as session:
        game = session.exec(select(Game).where(Game.id == game_id)).one()
        return game.model_dump()


def test_written_games_read_back_as_the_orms_flush_would_have_written_them(db: Database) -> None:
    rng = random.Random()
    seed = rng.randrange(10**9)
    flushed: dict[str, Any] = {}
    for way in ("orm", "prepared"):
        changes = random.Random(seed)
        with db.transaction() as session:
            game = session.exec(select(Game).where(Game.id == 1)).one()
            change(game, changes)
            if way == "prepared":
                assert write_games(session) == 1
                assert game not in session  # forgotten: the next look reads the row
        flushed[way] = row_of(db, 1)
        with db.transaction() as session:  # back to the start for the other way
            game = session.exec(select(Game).where(Game.id == 1)).one()
            game.ply, game.version, game.status, game.result, game.reason = 0, 0, "active", "*", ""
    assert flushed["prepared"] == flushed["orm"]


def test_only_modified_games_are_written_and_the_commit_writes_nothing_more(db: Database) -> None:
    statements: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_rest: object) -> None:
        statements.append(statement.split()[0] + " " + statement.split()[1])

    untouched = row_of(db, 2)
    with db.transaction() as session:
        games = session.exec(select(Game).order_by(Game.id)).all()  # type: ignore[arg-type]
        account = session.exec(select(Account).where(Account.handle == "white")).one()
        account.vacation_year = 2026  # not a game: the ORM writes it, as before
        games[0].ply = 7  # after the last query, whose autoflush would have written it
        event.listen(db.engine, "before_cursor_execute", seen)
        try:
            assert write_games(session) == 1
            session.flush()
        finally:
            event.remove(db.engine, "before_cursor_execute", seen)
        assert games[1] in session and games[0] not in session
    assert statements == ["UPDATE game", "UPDATE account"]
    assert row_of(db, 1)["ply"] == 7 and row_of(db, 2) == untouched
    with db.read() as session:
        assert session.exec(select(Account.vacation_year).where(Account.handle == "white")).one() == 2026


def test_a_written_game_is_rolled_back_with_its_transaction(db: Database) -> None:
    before = row_of(db, 3)
    with pytest.raises(RuntimeError), db.transaction() as session:
        game = session.exec(select(Game).where(Game.id == 3)).one()
        change(game, random.Random())
        write_games(session)
        assert _ply(session, 3) == before["ply"] + 1  # written inside the transaction
        raise RuntimeError("a later mail of the batch failed")
    assert row_of(db, 3) == before


def _ply(session: Session, game_id: int) -> int:
    return int(session.exec(select(Game.ply).where(Game.id == game_id)).one())
