"""Helpers for the event tests: players registered by mail, the organiser's command line, the standings rows."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from pbem.cli.main import main

__all__ = ["config_file", "organiser", "standings_rows"]


def organiser(config: Path, *argv: str) -> tuple[int, str, str]:
    """Run `pbem event ARGV --config CONFIG` as the command line would: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["event", *argv, "--config", str(config)])  # the real `pbem` entry point
    return status, out.getvalue(), err.getvalue()


def config_file(tmp_path: Path, url: str, key: str) -> Path:
    """An organiser's configuration for the pipeline's database and secret key."""
    path = tmp_path / "organiser.toml"
    path.write_text(f'[server]\nsecret_key = "{key}"\n\n[database]\nurl = "{url}"\n')
    return path


def standings_rows(text: str) -> list[list[str]]:
    """The rows of the standings table in a mail: rank, player, rating, games, points, tiebreaks..."""
    block = text.split("Standings:\n", 1)[1].split("\n\n", 1)[0]
    return [line.split() for line in block.splitlines()[2:]]
