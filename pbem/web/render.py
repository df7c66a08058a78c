"""The web pages' templates (pbem/templates/web): every value escaped, the same environment for every page."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any

import jinja2

from pbem.mail.render import templates_dir

__all__ = ["page"]


def _stamp(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d %H:%M} UTC" if moment else "-"


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(templates_dir() / "web"),
        autoescape=True,  # every handle, event name and note is player-supplied text
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # shipped in the package: no stat of the file at every page
    )
    environment.filters["stamp"] = _stamp
    return environment


def page(name: str, **context: Any) -> str:
    """Render the page template ``name`` (e.g. ``game.html``)."""
    return _environment().get_template(name).render(**context)
