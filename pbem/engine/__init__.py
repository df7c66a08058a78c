"""Pure rules machinery shared by every variant: protocol, values, errors."""

from pbem.engine.base import (
    Audience,
    Note,
    Outcome,
    Seat,
    Transition,
    Variant,
    VariantBase,
    View,
)
from pbem.engine.errors import (
    AmbiguousMoveError,
    IllegalMoveError,
    InvalidMoveError,
    MoveError,
)
from pbem.engine.secret import Secret

__all__ = [
    "AmbiguousMoveError",
    "Audience",
    "IllegalMoveError",
    "InvalidMoveError",
    "MoveError",
    "Note",
    "Outcome",
    "Seat",
    "Secret",
    "Transition",
    "Variant",
    "VariantBase",
    "View",
]
