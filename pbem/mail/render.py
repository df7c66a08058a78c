"""Jinja2 templates for mail bodies, shipped inside the package (pbem/templates)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["render", "render_html", "templates_dir"]


def templates_dir() -> Path:
    """``pbem/templates``: part of the package, so a wheel ships it with no build trick."""
    return Path(__file__).resolve().parents[1] / "templates"


def _without_globals(environment: jinja2.Environment) -> jinja2.Environment:
    """``environment`` without Jinja's default globals (``range``, ``dict``, ``namespace`` ...), which no mail
    template uses: every render copies the globals into its context, a hundredth of a move's work."""
    environment.globals.clear()
    return environment


@cache
def _environment() -> jinja2.Environment:
    return _without_globals(jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # plain-text mail: escaping would corrupt diagrams
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # shipped in the package: no stat of the file at every mail
    ))


def render(name: str, **context: Any) -> str:
    """Render ``name`` (e.g. ``player/reply.txt``) with ``context``."""
    return _environment().get_template(name).render(**context)


@cache
def _html_environment() -> jinja2.Environment:
    return _without_globals(jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir()),
        undefined=jinja2.StrictUndefined,
        autoescape=True,  # HTML parts carry players' handles and notes: everything is escaped
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # shipped in the package: no stat of the file at every mail
    ))


def render_html(name: str, **context: Any) -> str:
    """Render the HTML template ``name`` (e.g. ``html/game.html``), every value escaped."""
    return _html_environment().get_template(name).render(**context)
