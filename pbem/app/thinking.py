"""One search as a worker process runs it: a seat's view in, the move as a player would write it out.

Everything here is pure and picklable: the server sends a :class:`Question` to a process of its pool
and gets an :class:`Answer` back. The question carries the dump of what the asking seat may know
(``pbem.engine.search.seat_view``), never the full state, so a worker process never holds another
seat's secret; the move comes back as text in the owner's notation (a Hyperspace phase-out with its
return square in braces) and is played through the same parser as a player's mail.
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from pbem.engine.base import Seat, Variant
from pbem.engine.search import Limits, describe_line, limits_for_level, search
from pbem.variants import get_variant

__all__ = ["Answer", "Question", "think", "watch_parent"]


@dataclass(frozen=True, slots=True)
class Question:
    """What to search: a variant (with its rule options), a seat's view of a position, and the budget."""

    variant: str
    rules: str  # the game's rule options as sorted JSON (pbem.app.game_options.split_options)
    view: dict[str, Any]  # engine.dump of the seat's view
    seat: str  # the side to move, whose view it is
    level: int  # 1-5: the computer's level; 0: an analysis (no noise, ``seconds`` to think)
    seconds: float  # the cap on the level's seconds, or an analysis's whole budget
    seed: int  # the noise of the low levels, fixed per game and ply so a replay plays the same


@dataclass(frozen=True, slots=True)
class Answer:
    """The search's result: the move as its player would write it, the score and the expected line."""

    move: str  # owner's notation: what the server parses and plays
    line: tuple[str, ...]  # the principal variation in public notation
    score: int  # centipawns for the side to move
    depth: int
    nodes: int
    seconds: float


def _limits(question: Question) -> Limits:
    if question.level:
        return limits_for_level(question.level, question.seconds)
    return Limits(seconds=question.seconds, reductions=True)  # as deep as the time allows, like level 5


def _owner_notation(engine: Variant[Any, Any], state: Any, action: Any) -> str:
    """The action as its owner writes it: with the secret part where the variant has one."""
    private = getattr(engine, "describe_private", None)
    return str(private(state, action)) if private is not None else engine.describe(state, action)


def think(question: Question) -> Answer:
    """Search ``question``'s position; the best move for its seat, or ValueError if it has none."""
    engine = get_variant(question.variant, json.loads(question.rules))
    view = engine.load(question.view)
    result = search(engine, view, _limits(question), time.monotonic, random.Random(question.seed),
                    seat=Seat(question.seat))
    line = describe_line(engine, view, result.pv)
    return Answer(_owner_notation(engine, view, result.action), tuple(line), result.score, result.depth,
                  result.nodes, result.seconds)


def watch_parent(parent: int) -> None:
    """Run in each worker process at its start: exit as soon as ``parent`` (the server) is gone.

    A worker of a server that was killed (SIGKILL, the OOM killer) would otherwise wait for work
    forever: it holds its own end of the job queue, so it never sees the queue close.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)  # no clean-up to do: a search in progress is thrown away, its game stays due

    threading.Thread(target=watch, name="pbem-parent-watch", daemon=True).start()
