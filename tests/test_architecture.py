"""The engines stay pure: no module under engine/ or variants/ imports the I/O stack."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pbem"
FORBIDDEN = ("pbem.mail", "pbem.store", "pbem.app", "pbem.worker", "pbem.sweep", "pbem.commands", "pbem.server", "jinja2", "sqlmodel",
             "sqlalchemy", "aiosmtpd", "aiosmtplib", "smtplib", "socket", "apscheduler", "random")
PURE_FILES = sorted([*(PACKAGE / "engine").rglob("*.py"), *(PACKAGE / "variants").rglob("*.py")])


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", PURE_FILES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engine_modules_do_no_io(path: Path) -> None:
    bad = {name for name in imported_modules(path) if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)}
    assert not bad, f"{path.name} imports {sorted(bad)}"


def test_there_are_engine_modules() -> None:
    assert len(PURE_FILES) >= 5
