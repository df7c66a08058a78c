"""Fixtures shared by the test modules: a real pbem server with a relay sink on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.clock import FakeTime
from tests.helpers.harness import Harness
from tests.helpers.pipeline import Pipeline, drop_postgres, fresh_postgres_url, postgres_available


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    """`pbem serve` in-process on a free port, relaying to a sink; closed after the test."""
    h = Harness(tmp_path)
    yield h
    h.close()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """Run the test on SQLite (None: the harness's own file) and on a fresh PostgreSQL database."""
    if request.param == "sqlite":
        yield None
        return
    reason = postgres_available()
    if reason:
        pytest.skip(reason)
    url = fresh_postgres_url()
    yield url
    drop_postgres(url)


@pytest.fixture
def time() -> FakeTime:
    """The injected clock of the deadline, seek and fair-start tests, at T0 until a test moves it."""
    return FakeTime()


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    """The worker and outbox on a SQLite file, mails in as bytes (modules that need another database or an
    injected clock define their own ``pipe``)."""
    p = Pipeline(tmp_path)
    yield p
    p.close()
