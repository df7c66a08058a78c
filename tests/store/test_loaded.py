"""RowsOf and persistent: a game and its players read by one prepared SELECT are the objects the ORM's query makes."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, event, inspect, select
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from pbem.store.db import Database
from pbem.store.game_writes import write_games
from pbem.store.loaded import RowsOf
from pbem.store.models import Account, Game
from pbem.store.prepared import Prepared

_GAMES: Any = Game.__table__  # type: ignore[attr-defined]
_WHITE = Account.__table__.alias("white")  # type: ignore[attr-defined]
_BLACK = Account.__table__.alias("black")  # type: ignore[attr-defined]
ROWS = RowsOf((Game, _GAMES), (Account, _WHITE), (Account, _BLACK))
PREPARED = Prepared(select(*ROWS.columns)
                    .select_from(_GAMES.join(_WHITE, _GAMES.c.white_id == _WHITE.c.id)
                                 .join(_BLACK, _GAMES.c.black_id == _BLACK.c.id))
                    .where(_GAMES.c.id == bindparam("game_id")))
_W, _B = aliased(Account), aliased(Account)
ORM = (select(Game, _W, _B).join(_W, col(Game.white_id) == _W.id).join(_B, col(Game.black_id) == _B.id)
       .where(col(Game.id) == bindparam("game_id")))


def random_account(rng: random.Random, number: int) -> Account:
    return Account(handle=f"p{number}", email=f"p{number}@example.org", settings=rng.choice(
        [{}, {"pictures": rng.choice([True, False]), "board": "Zoë's"}, {"digest": "daily", "tz": "Europe/Paris"}]),
        vacation_used_days=rng.randrange(40), disabled=rng.random() < 0.2,
        vacation_until=rng.choice([None, datetime(2026, 12, 1, 12, tzinfo=UTC)]))


def seed_games(db: Database, rng: random.Random) -> list[int]:
    with db.transaction() as session:
        accounts = [random_account(rng, number) for number in range(6)]
        session.add_all(accounts)
        session.flush()
        games = []
        for number in range(8):
            white, black = rng.sample(accounts, 2)
            game = Game(variant=rng.choice(["outer-space", "hyperspace", "chessex"]), white_id=white.id or 0,
                        black_id=black.id or 0, state={"board": [rng.randrange(9) for _ in range(4)], "n": number},
                        clock={"white": rng.randrange(100), "running": rng.choice(["white", None])},
                        ply=rng.randrange(50), version=rng.randrange(1, 50),
                        deadline=rng.choice([None, datetime(2026, 12, 3, tzinfo=UTC) + timedelta(hours=number)]),
                        draw_offer=rng.choice(["", "white"]))
            session.add(game)
            games.append(game)
        session.flush()
        return [game.id or 0 for game in games]


def columns_of(thing: Any) -> dict[str, Any]:
    return {prop.key: getattr(thing, prop.key) for prop in inspect(type(thing)).column_attrs}


def test_the_objects_are_the_orms_persistent_and_unchanged_and_no_statement_is_written(db: Database) -> None:
    rng = random.Random()
    game_ids = seed_games(db, rng)
    statements: list[str] = []
    event.listen(db.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
    for game_id in rng.sample(game_ids, len(game_ids)):
        with db.read() as session:
            expected = [columns_of(thing) for thing in session.exec(ORM, params={"game_id": game_id}).one()]
        with db.transaction() as session:
            before = len(statements)
            (row,) = PREPARED.rows(session, {"game_id": game_id})
            made = ROWS.objects(session, row)
            assert [columns_of(thing) for thing in made] == expected
            for thing in made:
                state = inspect(thing)
                assert state.persistent and not state.modified and not state.expired_attributes
            assert not session.new and not session.dirty
            session.flush()
            assert len(statements) == before + 1  # the SELECT alone: nothing inserted, nothing updated


def test_an_object_the_session_holds_is_returned_as_it_is(db: Database) -> None:
    game_ids = seed_games(db, random.Random(3))
    with db.transaction() as session:
        game = session.get(Game, game_ids[0])
        assert game is not None
        white = session.get(Account, game.white_id)
        assert white is not None
        white.vacation_used_days = 99  # changed, not flushed: the ORM's query would not refresh it either
        (row,) = PREPARED.rows(session, {"game_id": game_ids[0]})
        made_game, made_white, made_black = ROWS.objects(session, row)
        assert made_game is game and made_white is white and made_white.vacation_used_days == 99
        assert made_black.id == game.black_id and made_black is session.get(Account, game.black_id)


def test_changes_to_the_objects_are_written_by_write_games_and_the_flush(db: Database) -> None:
    rng = random.Random()
    game_ids = seed_games(db, rng)
    game_id = rng.choice(game_ids)
    with db.transaction() as session:
        (row,) = PREPARED.rows(session, {"game_id": game_id})
        game, white, _ = ROWS.objects(session, row)
        game.ply += 1
        game.state = {"board": "changed"}
        white.settings = {"pictures": False}
        write_games(session)  # the game, as the worker writes it
        session.flush()  # the account, as the ORM writes it
    with Session(db.engine) as session:
        again = session.get(Game, game_id)
        account = session.get(Account, white.id)
        assert again is not None and account is not None
        assert again.state == {"board": "changed"} and again.ply == game.ply
        assert account.settings == {"pictures": False}


def test_a_missing_game_gives_no_row(db: Database) -> None:
    seed_games(db, random.Random(5))
    with db.transaction() as session:
        assert PREPARED.rows(session, {"game_id": 10**6}) == []
