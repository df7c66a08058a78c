"""Alembic migrations: a fresh database matches the models, and an upgrade keeps existing games playable."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config as AlembicConfig
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlmodel import SQLModel, select

import pbem.store.models
from pbem.store.db import Database, migration_head
from pbem.store.models import Game, MoveRecord
from pbem.variants import get_variant
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline, drop_postgres, fresh_postgres_url, postgres_available

MIGRATIONS = Path(pbem.store.db.__file__).resolve().parent.parent / "migrations"


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
        return
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    found = fresh_postgres_url()
    yield found
    drop_postgres(found)


def alembic_config(connection: object) -> AlembicConfig:
    config = AlembicConfig()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def test_a_fresh_database_matches_the_models_exactly(url: str) -> None:
    engine = create_engine(url)  # the migrations alone, without Database.migrate's safety net
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
        differences = compare_metadata(MigrationContext.configure(connection), SQLModel.metadata)
    engine.dispose()
    assert differences == [], "a model changed without a migration in pbem/migrations/versions"


def old_game(url: str) -> None:
    """A database at revision 0001 (the first release) holding alice vs bob, 1. e4 played."""
    engine = create_engine(url)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0001")
        hyperspace = get_variant("hyperspace")
        start = hyperspace.setup()
        after = hyperspace.apply(start, hyperspace.parse_action(start, "e4")).state
        now = datetime.now(UTC)
        for number, handle in ((1, "alice"), (2, "bob")):
            connection.execute(text("INSERT INTO account (id, handle, email, created_at) VALUES "
                                    "(:id, :handle, :email, :now)"),
                               {"id": number, "handle": handle, "email": f"{handle}@players.example", "now": now})
        connection.execute(text(
            "INSERT INTO game (id, variant, options, state, white_id, black_id, status, result, reason, ply, "
            "time_control, deadline, draw_offer, version, started_at, updated_at) VALUES (1, 'hyperspace', '{}', "
            ":state, 1, 2, 'active', '*', '', 1, 'days 3', :deadline, '', 1, :now, :now)"),
            {"state": json.dumps(hyperspace.dump(after)), "deadline": now + timedelta(days=3), "now": now})
        connection.execute(text("INSERT INTO moverecord (game_id, ply, seat, move_number, record, played_at) "
                                "VALUES (1, 1, 'white', 1, 'Pe2-e4', :now)"), {"now": now})
    engine.dispose()


def test_an_upgrade_keeps_a_running_game_playable(url: str, tmp_path: Path) -> None:
    old_game(url)
    pipe = Pipeline(tmp_path, database_url=url)  # Pipeline migrates the database to head
    try:
        with pipe.db.transaction() as session:
            game = session.exec(select(Game)).one()
            assert game.next_event_at == game.deadline  # the sweep will look after its old deadline
        seat_b = pipe.addresses.seat(1, pbem.engine.base.Seat.BLACK, 2)
        pipe.send("bob@players.example", seat_b, "e5")
        mails = dict(pipe.drain_outbox())
        assert "Played 1... Pe7-e5" in body_of(mails["bob@players.example"])
        assert "Time control: 3 days per move" in body_of(mails["alice@players.example"])
        with pipe.db.read() as session:
            records = [r.record for r in session.exec(select(MoveRecord).order_by(MoveRecord.ply))]
        assert records == ["Pe2-e4", "Pe7-e5"]
    finally:
        pipe.close()


def test_an_old_deadline_is_still_enforced_after_the_upgrade(url: str, tmp_path: Path) -> None:
    old_game(url)
    later = datetime.now(UTC) + timedelta(days=4)
    pipe = Pipeline(tmp_path, database_url=url, now=lambda: later,
                    PBEM_GAMES_ABORT_WITHOUT_FIRST_MOVE="false")  # bob never moved: a loss, not an abort
    try:
        pipe.sweep()
        mails = dict(pipe.drain_outbox())
        assert "bob lost on time" in body_of(mails["alice@players.example"])
    finally:
        pipe.close()


def test_a_database_made_before_migrations_is_recognised(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'legacy.sqlite3'}"
    old_game(url)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(text("DROP TABLE alembic_version"))  # as create_all left it
    engine.dispose()
    db = Database(url)
    db.migrate()
    with db.engine.connect() as connection:
        assert "clock" in {c["name"] for c in inspect(connection).get_columns("game")}
        assert connection.execute(text("SELECT count(*) FROM game")).scalar() == 1
    db.dispose()


def test_the_head_read_from_the_files_is_alembics() -> None:
    scripts = ScriptDirectory.from_config(alembic_config(None))
    assert migration_head() == scripts.get_current_head()


def test_a_database_one_migration_behind_is_brought_to_the_head(url: str) -> None:
    engine = create_engine(url)
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0012")
    engine.dispose()
    db = Database(url)
    db.migrate()
    with db.engine.connect() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).scalar() == migration_head()
    db.dispose()


def test_a_database_at_the_head_is_opened_without_importing_alembic(tmp_path: Path) -> None:
    """Alembic would stay in a running server's memory (40 MB) for nothing: a start at the head does not load it."""
    url = f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    Database(url).migrate()  # a first start: migrated by Alembic
    probe = ("import sys; from pbem.store.db import Database; db = Database(sys.argv[1]); db.migrate(); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'mako')))")
    started = subprocess.run([sys.executable, "-c", probe, url], capture_output=True, text=True, check=True,
                             cwd=Path(__file__).resolve().parents[2])
    assert started.stdout.strip() == "[]", started.stdout
    fresh = tmp_path / "fresh.sqlite3"  # and a first start does load it, so the probe can tell
    first = subprocess.run([sys.executable, "-c", probe, f"sqlite:///{fresh}"], capture_output=True, text=True,
                           check=True, cwd=Path(__file__).resolve().parents[2])
    assert "alembic" in first.stdout
