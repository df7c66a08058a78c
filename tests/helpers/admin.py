"""The operator's command line in tests: `pbem admin ARGV --config CONFIG` through the real entry point."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from pbem.cli.main import main

__all__ = ["admin"]


def admin(config: Path, *argv: str) -> tuple[int, str, str]:
    """Run `pbem admin ARGV --config CONFIG` as the command line would: exit status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["admin", *argv, "--config", str(config)])
        except SystemExit as exit_:  # argparse's own refusals
            status = int(exit_.code or 0)
    return status, out.getvalue(), err.getvalue()
