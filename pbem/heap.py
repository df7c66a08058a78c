"""A started process's long-lived objects set apart from the cyclic garbage collector."""

from __future__ import annotations

import gc

__all__ = ["freeze_startup_heap"]


def freeze_startup_heap() -> None:
    """Call once a process has loaded its code and built its services.

    What exists then (some 200,000 objects: modules, SQLAlchemy's mappers, the templates) lives as
    long as the process, yet every full collection walked all of it to free nothing: about 100 ms of
    one mail's time, measured in the worker (bench/move_cost.py). Frozen, a full collection walks only
    what was made since.
    """
    gc.collect()
    gc.freeze()
