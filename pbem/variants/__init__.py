"""The variant registry: every module in this package that defines ``VARIANT`` plugs in."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from pbem.engine.base import Variant

__all__ = ["UnknownVariantError", "all_variants", "get_variant"]


class UnknownVariantError(ValueError):
    """No variant has that key or alias."""


@cache
def _registry() -> dict[str, type[Variant]]:
    found: dict[str, type[Variant]] = {}
    for module_info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        variant_class = getattr(module, "VARIANT", None)
        if variant_class is not None:
            found[variant_class.key] = variant_class
    return dict(sorted(found.items()))


def all_variants() -> list[type[Variant]]:
    """Every registered variant class, sorted by key."""
    return list(_registry().values())


def get_variant(name: str, options: dict[str, object] | None = None) -> Variant:
    """An engine for the variant called ``name`` (key or alias, any case)."""
    wanted = name.strip().lower()
    for variant_class in _registry().values():
        if wanted == variant_class.key or wanted in variant_class.aliases:
            return variant_class(options=dict(options or {}))  # type: ignore[call-arg]
    known = ", ".join(_registry())
    raise UnknownVariantError(f"unknown variant: {name!r} (known: {known})")
