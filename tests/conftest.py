"""Fixtures shared by the test modules: a real pbem server with a relay sink on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.harness import Harness


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    """`pbem serve` in-process on a free port, relaying to a sink; closed after the test."""
    h = Harness(tmp_path)
    yield h
    h.close()
