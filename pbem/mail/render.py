"""Jinja2 templates for mail bodies, found in the package (installed) or the checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["render", "templates_dir"]


def templates_dir() -> Path:
    """``pbem/templates`` inside an installed wheel, else ``templates/`` of the checkout."""
    package_root = Path(__file__).resolve().parents[1]
    for candidate in (package_root / "templates", package_root.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError("pbem templates not found: reinstall the package")


@cache
def _environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # plain-text mail: escaping would corrupt diagrams
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render(name: str, **context: Any) -> str:
    """Render ``name`` (e.g. ``player/reply.txt``) with ``context``."""
    return _environment().get_template(name).render(**context)
