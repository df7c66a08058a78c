"""The variant registry: every package here whose ``engine`` module defines ``VARIANT`` plugs in.

Every variant package has the same files for the same jobs: ``engine`` (the Variant over the
rest, and ``VARIANT``), ``model`` (state, moves, storage), ``rules`` (move generation, play,
outcome), ``notation``, ``geometry``, ``diagram``, ``explain`` (why a move is refused) and
``helptext``; a package ``__init__`` is a docstring only.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from typing import Any

from pbem.engine.base import Variant

__all__ = ["UnknownVariantError", "all_variants", "get_variant"]


class UnknownVariantError(ValueError):
    """No variant has that key or alias."""


@cache
def _registry() -> dict[str, type[Variant[Any, Any]]]:
    found: dict[str, type[Variant[Any, Any]]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        if not module_info.ispkg:
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}.engine")
        variant_class = getattr(module, "VARIANT", None)
        if variant_class is not None:
            found[variant_class.key] = variant_class
    return dict(sorted(found.items()))


def all_variants() -> list[type[Variant[Any, Any]]]:
    """Every registered variant class, sorted by key."""
    return list(_registry().values())


def get_variant(name: str, options: dict[str, object] | None = None) -> Variant[Any, Any]:
    """An engine for the variant called ``name`` (key or alias, any case)."""
    wanted = name.strip().lower()
    for variant_class in _registry().values():
        if wanted == variant_class.key or wanted in variant_class.aliases:
            return variant_class(options=dict(options or {}))  # type: ignore[call-arg]  # VariantBase's field
    known = ", ".join(_registry())
    raise UnknownVariantError(f"unknown variant: {name!r} (known: {known})")
