"""JSON as pbem stores it (the JSON columns, the outbox's pictures), by orjson: ``dumps``, ``loads``, ``canonical``."""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["canonical", "dumps", "loads"]

# orjson writes and reads JSON in a fifth of the standard library's time or less. A move stores the game's state,
# clock and extras, loads them and the players' settings, compares the state with the one loaded (canonical) and
# writes its picture's board: 5% of the worker's instructions (bench/move_instructions.py: 11.81 against 11.24
# million). Non-string keys become strings, as the standard library's json module makes them.
_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(value: Any) -> str:
    """``value`` as compact JSON text."""
    return orjson.dumps(value, option=_OPTIONS).decode("utf-8")


def loads(text: str | bytes) -> Any:
    """The value of JSON ``text``; a ValueError (orjson's JSONDecodeError) if it is not JSON."""
    return orjson.loads(text)


def canonical(value: Any) -> bytes:
    """``value`` as JSON with its keys sorted: two values are equal as stored exactly when these bytes are."""
    return orjson.dumps(value, option=_OPTIONS | orjson.OPT_SORT_KEYS)
