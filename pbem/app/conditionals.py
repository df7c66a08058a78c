"""Conditional moves: ``if THEIR-MOVE then MY-MOVE [then THEIR-MOVE then MY-MOVE ...]``, kept per seat.

A player waiting for the opponent registers lines of play in advance. When
the opponent plays the first move of a line, the next move of that line is
played for the player at once and the rest of the line stays registered;
any other move clears every line. Moves that carry a secret (Hyperspace
phase-outs) cannot be conditional: the server would have to invent it.
"""

from __future__ import annotations

from typing import Any

from pbem.app.context import CommandError
from pbem.engine.base import Seat, Variant
from pbem.engine.capabilities import seal_action
from pbem.engine.errors import MoveError
from pbem.store.models import Game

__all__ = ["MAX_LINES", "lines_of", "register_line", "respond"]

#: Lines per player, and moves per line: enough for real preparation, bounded for storage and mail.
MAX_LINES = 20
MAX_MOVES = 20


def lines_of(game: Game, seat: Seat) -> list[list[str]]:
    return [list(line) for line in game.extras.get("conditionals", {}).get(seat.value, [])]


def _store(game: Game, seat: Seat, lines: list[list[str]]) -> None:
    table = dict(game.extras.get("conditionals", {}))
    if lines:
        table[seat.value] = lines
    else:
        table.pop(seat.value, None)
    extras = {k: v for k, v in game.extras.items() if k != "conditionals"}
    game.extras = {**extras, "conditionals": table} if table else extras


def canonical_line(engine: Variant[Any, Any], state: Any, seat: Seat, texts: list[str]) -> list[str]:
    """Check the line move by move from ``state`` (the opponent to move); the canonical moves."""
    if engine.to_act(state) is not seat.other:
        raise CommandError("conditional moves are for your opponent's turn; it is your move now, just play it")
    if len(texts) < 2 or len(texts) % 2:
        raise CommandError("write a line as 'if THEIR-MOVE then YOUR-MOVE', optionally continued in pairs "
                           "'then THEIR-MOVE then YOUR-MOVE'")
    if len(texts) > MAX_MOVES:
        raise CommandError(f"a conditional line has at most {MAX_MOVES} moves")
    canonical: list[str] = []
    for index, text in enumerate(texts):
        whose = "their" if index % 2 == 0 else "your"
        if engine.outcome(state) is not None:
            raise CommandError(f"the game would be over before move {index + 1} of the line ({text!r})")
        try:
            action = engine.parse_action(state, text)
        except MoveError as error:
            raise CommandError(f"move {index + 1} of the line ({whose} {text!r}): {error}") from None
        if seal_action(engine, state, action, "0" * 32) != action:
            raise CommandError(f"move {index + 1} of the line ({text!r}) carries a secret and cannot be conditional")
        canonical.append(engine.describe(state, action))
        state = engine.apply(state, action).state
    return canonical


def register_line(game: Game, seat: Seat, line: list[str]) -> list[list[str]]:
    """Add ``line`` for ``seat``, replacing a line that answers the same move; all lines after."""
    lines = [old for old in lines_of(game, seat) if old[0].lower() != line[0].lower()]
    if len(lines) >= MAX_LINES:
        raise CommandError(f"at most {MAX_LINES} conditional lines; send 'if clear' to start again")
    lines.append(line)
    _store(game, seat, lines)
    return lines


def clear(game: Game, seat: Seat) -> int:
    count = len(lines_of(game, seat))
    _store(game, seat, [])
    return count


def respond(game: Game, waiting: Seat, played: str) -> tuple[str | None, list[str]]:
    """The opponent of ``waiting`` played ``played`` (canonical): the reply to play, and news for ``waiting``."""
    lines = lines_of(game, waiting)
    if not lines:
        return None, []
    for line in lines:
        if line[0].lower() == played.lower():
            rest = line[2:]
            _store(game, waiting, [rest] if rest else [])
            return line[1], []
    _store(game, waiting, [])
    return None, [f"Your {len(lines)} conditional line(s) were cleared: none expected {played}."]
