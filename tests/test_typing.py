"""Type checks and lint run with the tests, so CI keeps them clean: mypy --strict on the core, mypy and ruff on all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

#: mypy takes most of a minute cold: `pytest -m 'not slow'` leaves it out of a quick run.
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]

#: Held to mypy --strict: the engines, the variants and the application core (with the pure modules they use).
STRICT = ["pbem/engine", "pbem/variants", "pbem/pictures", "pbem/app", "pbem/clock.py", "pbem/config.py"]


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_mypy_strict_on_the_core() -> None:
    done = run("mypy", "--strict", *STRICT)
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_on_the_whole_package() -> None:
    done = run("mypy")  # files and exclusions (the generated migrations) from pyproject.toml
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout


def test_ruff_is_clean() -> None:
    done = run("ruff", "check", "pbem", "tests", "bench")
    assert done.returncode == 0, done.stdout + done.stderr
