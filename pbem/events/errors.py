"""The event layer's one error: a request about an event that cannot be carried out."""

from __future__ import annotations

__all__ = ["EventError"]


class EventError(ValueError):
    """An organiser's or player's request about an event that cannot be carried out."""
