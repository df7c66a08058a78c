"""Move ordering for the search: the table's move, captures by MVV-LVA, killer moves, the history heuristic."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

__all__ = ["Orderer"]

#: Sort keys, highest first: the table's move, then captures, then killers, then quiet moves by history.
_TABLE_MOVE = 1 << 40
_CAPTURE = 1 << 32
_KILLER = 1 << 24
_HISTORY_CAP = (1 << 24) - 1


class Orderer:
    """Killers (two quiet moves per ply that caused a cut-off) and history counters for one search.

    ``captures(state, action)`` gives (value gained, value of the moving piece) or None for a quiet
    action; a capture sorts by the most valuable victim first, then the least valuable attacker.
    """

    def __init__(self, captures: Callable[[Any, Any], tuple[int, int] | None]) -> None:
        self._captures = captures
        self._killers: dict[int, list[Any]] = {}
        self._history: dict[Hashable, int] = {}

    def capture(self, state: Any, action: Any) -> tuple[int, int] | None:
        return self._captures(state, action)

    def order(self, state: Any, actions: Sequence[Any], ply: int, table_move: Any, side: Hashable,
              quiet_heuristics: bool = True) -> list[Any]:
        """``actions`` best first; ``quiet_heuristics`` False leaves killers and history out (the root)."""
        killers = self._killers.get(ply, []) if quiet_heuristics else []
        scored: list[tuple[int, int, Any]] = []
        for index, action in enumerate(actions):
            if table_move is not None and action == table_move:
                key = _TABLE_MOVE
            else:
                gain = self._captures(state, action)
                if gain is not None:
                    key = _CAPTURE + gain[0] * 16 - min(gain[1] // 64, 15)
                elif action in killers:
                    key = _KILLER + (2 - killers.index(action))
                elif quiet_heuristics:
                    key = min(self._history.get((side, action), 0), _HISTORY_CAP)
                else:
                    key = 0
            scored.append((-key, index, action))
        scored.sort(key=lambda item: (item[0], item[1]))
        return [action for _, _, action in scored]

    def is_killer(self, ply: int, action: Any) -> bool:
        return action in self._killers.get(ply, ())

    def reward(self, state: Any, action: Any, ply: int, depth: int, side: Hashable) -> None:
        """A quiet ``action`` caused a cut-off at ``ply`` with ``depth`` left: remember it."""
        if self._captures(state, action) is not None:
            return
        killers = self._killers.setdefault(ply, [])
        if action not in killers:
            killers.insert(0, action)
            del killers[2:]
        key = (side, action)
        self._history[key] = self._history.get(key, 0) + depth * depth
