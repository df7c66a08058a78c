"""A changed game row is written by one compiled-once UPDATE before the ORM's flush (pbem.store.row_writes):
the same row as the ORM would write, nothing written twice, and a savepoint rolled back still undoes it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from sqlalchemy.orm.exc import StaleDataError
from sqlmodel import select

from pbem.store import row_writes
from pbem.store.db import Database
from pbem.store.models import Account, Game
from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    if request.param == "postgresql":
        if reason := postgres_available():
            pytest.skip(f"no PostgreSQL: {reason}")
        url = fresh_postgres_url()
        database = Database(url)
    else:
        url = ""
        database = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    database.create_all()
    try:
        yield database
    finally:
        database.dispose()
        if url:
            drop_postgres(url)


def new_game(db: Database) -> int:
    with db.transaction() as session:
        white, black = Account(handle="white", email="w@example.org"), Account(handle="black", email="b@example.org")
        session.add_all([white, black])
        session.flush()
        assert white.id is not None and black.id is not None
        game = Game(variant="hyperspace", white_id=white.id, black_id=black.id, state={"fen": "start"},
                    clock={"white": 60}, extras={"takeback": "black"})
        session.add(game)
        session.flush()
        assert game.id is not None
        return game.id


class Statements:
    """The SQL a database's connections send while it is counted."""

    def __init__(self, db: Database) -> None:
        self.sent: list[str] = []
        event.listen(db.engine, "before_cursor_execute", self._keep)

    def _keep(self, _connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        self.sent.append(" ".join(statement.split()))

    def updates_of_game(self) -> list[str]:
        return [sql for sql in self.sent if sql.upper().startswith("UPDATE GAME")]


def stored(db: Database, game_id: int) -> tuple[Any, ...]:
    with db.read() as session:
        row = session.connection().execute(text("SELECT ply, version, state, extras, draw_offer FROM game "
                                                "WHERE id = :id"), {"id": game_id}).one()
        return tuple(row)


def test_a_changed_game_is_written_once_with_its_changed_columns(db: Database) -> None:
    game_id = new_game(db)
    statements = Statements(db)
    asked = row_writes._update.cache_info()
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        game.ply, game.version, game.state = 1, game.version + 1, {"fen": "after e4"}
        game.extras = {}
        with session.begin_nested():
            pass  # the savepoint's release flushes, as the worker's per mail does
        assert game.ply == 1 and game.state == {"fen": "after e4"}  # still the object's values
        game.draw_offer = "white"  # a second change in the same transaction: a second UPDATE of that column alone
    updates = statements.updates_of_game()
    assert len(updates) == 2, updates  # the ORM wrote nothing of its own: the values were marked as loaded
    now = row_writes._update.cache_info()
    assert now.hits + now.misses == asked.hits + asked.misses + 2  # both written by row_writes
    assert all(column in updates[0] for column in ("ply", "version", "state", "extras"))
    assert "draw_offer" not in updates[0] and "clock" not in updates[0]
    assert "draw_offer" in updates[1] and "state" not in updates[1]
    ply, version, state, extras, offer = stored(db, game_id)
    assert (ply, version, offer) == (1, 1, "white")
    assert state in ({"fen": "after e4"}, '{"fen": "after e4"}') and extras in ({}, "{}")


def test_a_savepoint_rolled_back_undoes_the_write_and_the_game_reads_the_row_again(db: Database) -> None:
    game_id = new_game(db)
    with db.transaction() as session:
        game = session.get(Game, game_id)
        assert game is not None
        with pytest.raises(RuntimeError), session.begin_nested():
            game.ply, game.state = 7, {"fen": "never"}
            session.flush()  # written inside the savepoint ...
            raise RuntimeError("the mail failed")  # ... which is rolled back
        assert game.ply == 0 and game.state == {"fen": "start"}  # expired, then loaded from the row again
    assert stored(db, game_id)[0] == 0


def test_a_game_row_gone_behind_the_sessions_back_is_an_error_as_with_the_orm(db: Database) -> None:
    game_id = new_game(db)
    with pytest.raises(StaleDataError), db.transaction() as session:
        game = session.exec(select(Game).where(Game.id == game_id)).one()
        session.connection().execute(text("DELETE FROM game WHERE id = :id"), {"id": game_id})
        game.ply = 3
        session.flush()
    assert stored(db, game_id)[0] == 0  # and the transaction was rolled back
