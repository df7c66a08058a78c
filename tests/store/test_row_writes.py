"""write_changes: a stored game's changed columns in one UPDATE, the ORM's flush then writing nothing more."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, select

from pbem.store.db import Database
from pbem.store.models import Account, Game
from pbem.store.row_writes import write_changes


@pytest.fixture
def db(tmp_path: Path, database_url: str | None) -> Iterator[Database]:
    database = Database(database_url or f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    database.create_all()
    yield database
    database.dispose()


@pytest.fixture
def game_id(db: Database) -> int:
    with db.transaction() as session:
        white, black = Account(handle="w", email="w@example.com"), Account(handle="b", email="b@example.com")
        session.add_all([white, black])
        session.flush()
        game = Game(variant="hyperspace", white_id=white.id or 0, black_id=black.id or 0, state={"fen": "start"},
                    clock={"white": 10}, extras={})
        session.add(game)
        session.flush()
        return game.id or 0


@pytest.fixture
def updates(db: Database) -> Iterator[list[str]]:
    """The UPDATE statements sent to the database while the test runs."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_rest: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE"):
            seen.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    yield seen
    event.remove(db.engine, "before_cursor_execute", record)


def stored(db: Database, game_id: int) -> Game:
    with db.read() as session:
        game = session.exec(select(Game).where(Game.id == game_id)).one()
        session.expunge(game)
        return game


def test_the_changed_columns_are_written_once_and_the_flush_adds_nothing(db: Database, game_id: int,
                                                                         updates: list[str]) -> None:
    moved = datetime(2026, 11, 25, 9, 30, tzinfo=UTC)
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.state, game.ply, game.version, game.updated_at = {"fen": "after e4"}, 1, game.version + 1, moved
        game.clock = {"white": 9, "running": "black"}
        assert write_changes(session, game)
        assert len(updates) == 1 and "variant" not in updates[0].split("WHERE")[0]
        assert not session.is_modified(game)
        session.flush()
        assert len(updates) == 1  # the ORM found nothing left to write
    after = stored(db, game_id)
    assert (after.state, after.ply, after.version, after.updated_at, after.clock) == (
        {"fen": "after e4"}, 1, 1, moved, {"white": 9, "running": "black"})
    assert after.variant == "hyperspace"


def test_nothing_changed_writes_nothing(db: Database, game_id: int, updates: list[str]) -> None:
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        assert not write_changes(session, game)
    assert updates == []


def test_a_change_made_afterwards_is_flushed_as_ever(db: Database, game_id: int, updates: list[str]) -> None:
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.ply = 5
        write_changes(session, game)
        game.draw_offer = "white"
        game.extras["takeback"] = "black"  # changed in place: only what flag_modified names is written
        flag_modified(game, "extras")
    assert len(updates) == 2
    after = stored(db, game_id)
    assert (after.ply, after.draw_offer, after.extras) == (5, "white", {"takeback": "black"})


def test_a_savepoint_rolled_back_takes_the_write_with_it(db: Database, game_id: int) -> None:
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        with pytest.raises(RuntimeError), session.begin_nested():
            game.ply = 7
            write_changes(session, game)
            raise RuntimeError("the command failed half-way")
    assert stored(db, game_id).ply == 0


def test_only_a_stored_row_can_be_written(db: Database) -> None:
    with db.transaction() as session, pytest.raises(ValueError, match="stored"):
        write_changes(Session(db.engine), Account(handle="n", email="n@example.com"))
        session.rollback()
