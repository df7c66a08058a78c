"""A move written in another variant's notation: which notation this game uses, with an example."""

from __future__ import annotations

from typing import Any

from pbem.engine.base import Variant
from pbem.engine.errors import InvalidMoveError, MoveError
from pbem.variants import all_variants, get_variant

__all__ = ["foreign_notation_hint"]


def foreign_notation_hint(engine: Variant[Any, Any], state: Any, text: str) -> str:
    """If ``text`` is no move here but reads as another variant's notation, a line saying so; else ''.

    The example is this position's first legal move as this game writes it, so it can be copied.
    """
    other = _notation_of(engine.key, text)
    if other is None:
        return ""
    example = next(iter(engine.legal_actions(state)), None)
    lines = [f"That looks like {other} notation; this game is {engine.title}."]
    if example is not None:
        lines.append(f"Here a move is written like '{engine.describe(state, example)}'.")
    lines.append(f"Send 'help {engine.key}' for its notation.")
    return "\n".join(lines)


def _notation_of(own: str, text: str) -> str | None:
    """The title of the other variant whose notation ``text`` is, preferring one where it is a legal
    opening move; None if no other variant reads it."""
    recognised: list[str] = []
    for variant in all_variants():
        if variant.key == own:
            continue
        other = get_variant(variant.key)
        try:
            other.parse_action(other.setup(), text)
        except InvalidMoveError:
            continue
        except MoveError:  # valid notation there, only not legal (or ambiguous) in its opening position
            recognised.append(other.title)
            continue
        return other.title
    return recognised[0] if recognised else None
