"""Per-game options of the service (not of the rules), given in a challenge as ``option KEY=VALUE``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["GAME_OPTIONS", "YES_NO_OPTIONS", "game_option", "game_rated", "public_notes", "split_options"]

#: key -> (description, smallest value, largest value); all are whole numbers, 0 means off.
GAME_OPTIONS: dict[str, tuple[str, int, int]] = {
    "draw-limit": ("a player may offer a draw at most once in this many of their moves (ICCF: 10)", 0, 100),
    "observer-delay": ("observers see the game this many moves late (as ICCF does for spectators)", 0, 50),
}

#: key -> (description, default): options written yes or no; split_options gives them as 1 or 0.
YES_NO_OPTIONS: dict[str, tuple[str, bool]] = {
    "rated": ("whether the game changes the players' ratings", True),
    "public-notes": ("whether observers see the players' notes", False),
}

#: The words a yes/no option takes (stored games may hold 1 or 0).
_YES_NO = {"yes": 1, "no": 0, "on": 1, "off": 0, "true": 1, "false": 0, "1": 1, "0": 0}


def split_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, int]]:
    """The options for the rules engine, and the service's own game options, checked.

    Raises ValueError with a message for the player when a game option is out of range.
    """
    rules: dict[str, Any] = {}
    service: dict[str, int] = {}
    for key, value in options.items():
        if key in YES_NO_OPTIONS:
            word = str(value).strip().lower()
            if word not in _YES_NO:
                raise ValueError(f"{key} takes yes or no ({YES_NO_OPTIONS[key][0]}), not {value!r}")
            service[key] = _YES_NO[word]
            continue
        if key not in GAME_OPTIONS:
            rules[key] = value
            continue
        description, low, high = GAME_OPTIONS[key]
        try:
            number = int(str(value))
        except ValueError:
            raise ValueError(f"{key} takes a whole number ({description}), not {value!r}") from None
        if not low <= number <= high:
            raise ValueError(f"{key} must be between {low} and {high}")
        service[key] = number
    return rules, service


def game_option(options: Mapping[str, Any], key: str) -> int:
    """The value of a service option of a game (its default when not set: 0, or a yes/no option's default)."""
    default = int(YES_NO_OPTIONS[key][1]) if key in YES_NO_OPTIONS else 0
    return split_options(options)[1].get(key, default)


def game_rated(options: Mapping[str, Any]) -> bool:
    """Whether a game with these options changes ratings (``option rated=no`` says not)."""
    return bool(game_option(options, "rated"))


def public_notes(options: Mapping[str, Any]) -> bool:
    """Whether a game with these options shows the players' notes to observers and in its public record
    (``option public-notes=yes``); the players always see them."""
    return bool(game_option(options, "public-notes"))
