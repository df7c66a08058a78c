"""The storage tests' database: an empty pbem schema on SQLite and on a fresh PostgreSQL database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pbem.store.db import Database


@pytest.fixture
def db(tmp_path: Path, database_url: str | None) -> Iterator[Database]:
    """pbem's tables, empty (a module that needs rows in them defines its own ``db``)."""
    database = Database(database_url or f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    database.create_all()
    yield database
    database.engine.dispose()
