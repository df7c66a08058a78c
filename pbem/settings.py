"""Per-game settings of the service (not of the rules), given in a challenge as ``option KEY=VALUE``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["SETTINGS", "setting", "split_options"]

#: key -> (description, smallest value, largest value); all are whole numbers, 0 means off.
SETTINGS: dict[str, tuple[str, int, int]] = {
    "draw-limit": ("a player may offer a draw at most once in this many of their moves (ICCF: 10)", 0, 100),
    "observer-delay": ("observers see the game this many moves late (as ICCF does for spectators)", 0, 50),
}


def split_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    """The options for the rules engine, and the service's settings, checked.

    Raises ValueError with a message for the player when a setting is out of range.
    """
    rules: dict[str, Any] = {}
    settings: dict[str, int] = {}
    for key, value in options.items():
        if key not in SETTINGS:
            rules[key] = value
            continue
        description, low, high = SETTINGS[key]
        try:
            number = int(str(value))
        except ValueError:
            raise ValueError(f"{key} takes a whole number ({description}), not {value!r}") from None
        if not low <= number <= high:
            raise ValueError(f"{key} must be between {low} and {high}")
        settings[key] = number
    return rules, settings


def setting(options: Mapping[str, Any], key: str) -> int:
    """The value of a service setting of a game (0 when not set)."""
    return split_options(options)[1].get(key, 0)
