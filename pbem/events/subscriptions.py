"""What the tournament layer listens to: finished games are rated, and scored when they belong to an event."""

from __future__ import annotations

from pbem.app.signals import Signals
from pbem.events.running import game_finished

__all__ = ["subscribe"]


def subscribe(signals: Signals) -> None:
    """Rate every finished game; score an event's game, which may complete a round or the event."""
    signals.on_game_finished(game_finished)
