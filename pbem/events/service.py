"""The event layer's entry points, in one place for its callers (mail commands, the CLI, the game hook)."""

from __future__ import annotations

from pbem.events.entries import add_players, create_event, find_event, join_event
from pbem.events.errors import EventError
from pbem.events.organiser import adjudicate, list_events, withdraw
from pbem.events.running import game_finished, start_event
from pbem.events.tables import standings_text

__all__ = [
    "EventError",
    "add_players",
    "adjudicate",
    "create_event",
    "find_event",
    "game_finished",
    "join_event",
    "list_events",
    "standings_text",
    "start_event",
    "withdraw",
]
