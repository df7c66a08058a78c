"""The exception tree raised by engines when a move cannot be played."""


class MoveError(ValueError):
    """Base class: the text does not name exactly one legal move."""


class InvalidMoveError(MoveError):
    """The text is not valid notation for this variant."""


class IllegalMoveError(MoveError):
    """The text is valid notation, but no legal move matches it."""


class AmbiguousMoveError(MoveError):
    """The text matches more than one legal move."""
