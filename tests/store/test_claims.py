"""GameClaims: of several instances on one PostgreSQL database, one works on a piece of computer work at a time."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pbem.store.db import Database, GameClaims
from tests.helpers.pipeline import drop_postgres, fresh_postgres_url, postgres_available


@pytest.fixture
def two_instances() -> Iterator[tuple[GameClaims, GameClaims]]:
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    url = fresh_postgres_url()
    first, second = Database(url), Database(url)
    try:
        yield GameClaims(first), GameClaims(second)
    finally:
        first.dispose()
        second.dispose()
        drop_postgres(url)


def test_one_instance_holds_a_claim_until_it_releases_it(two_instances: tuple[GameClaims, GameClaims]) -> None:
    a, b = two_instances
    assert a.claim("game:7")
    assert not b.claim("game:7")
    assert b.claim("game:8") and b.claim("analysis:7")  # other games, and analyses, are claims of their own
    a.release("game:7")
    assert b.claim("game:7")
    b.release_all()
    assert a.claim("game:7") and a.claim("game:8")
    a.release_all()


def test_a_dead_instance_loses_its_claims(two_instances: tuple[GameClaims, GameClaims]) -> None:
    a, b = two_instances
    assert a.claim("game:3")
    a.db.engine.dispose()  # the connections close, as when the process dies
    for connection in list(a._held.values()):
        connection.invalidate()
    assert b.claim("game:3")
    b.release_all()


def test_sqlite_has_one_instance_which_holds_every_claim(tmp_path: object) -> None:
    db = Database(f"sqlite:///{tmp_path}/pbem.sqlite3")
    claims = GameClaims(db)
    assert claims.claim("game:1") and claims.claim("game:1")
    claims.release_all()
    db.dispose()
