"""An injected clock for the tests of deadlines, seeks and fair starts, and a pipeline that runs on it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.helpers.pipeline import Pipeline

__all__ = ["T0", "FakeTime", "make_pipe"]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


class FakeTime:
    """The injected clock: tests move it by hand, in days from T0."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def at(self, days: float) -> None:
        self.now = T0 + timedelta(days=days)


def make_pipe(tmp_path: Path, time: FakeTime, **settings: str) -> Iterator[Pipeline]:
    """A pipeline on the injected clock (``settings``: PBEM_* overrides), closed after the test."""
    pipe = Pipeline(tmp_path, now=time, **settings)
    yield pipe
    pipe.close()
