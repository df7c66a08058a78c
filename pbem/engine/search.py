"""One search for every variant: iterative-deepening alpha-beta over the Variant protocol, with levels.

The search sees only what the side to move may know: every entry point turns the state into that
seat's view (:func:`seat_view`) before anything reads it, so a secret of the other seat (a Hyperspace
return square) cannot reach the search. It is pure: the clock is a callable passed in, randomness a
``random.Random``-like object passed in.

Design (see also :mod:`pbem.engine.search_table` and :mod:`pbem.engine.search_order`):

- negamax alpha-beta, principal-variation search (a null window after the first move), fail-soft;
- a transposition table keyed by the variant's ``position_key``: its move is tried first everywhere,
  its score cuts only at the same remaining depth, so a fixed-depth result is the one a search
  without the table finds;
- ordering: the table's move, captures by MVV-LVA, two killer moves per ply, the history heuristic
  (the root keeps a fixed order, best move of the last iteration first);
- quiescence over captures and promotions (``CaptureInfo``), stand-pat, delta pruning, bounded depth;
  a side in check (``CheckAware``) may not stand pat there and tries every reply;
- late-move reductions where the limits ask for them (level 5 and analyses): a quiet move late in
  the order, at a node not in check with 3 or more plies left, is searched a ply (two, very late and
  deep) shallower with a null window first, and again at full depth only if it beats alpha;
- a time budget: the clock is read every 64 nodes against a deadline, an iteration that runs out is
  dropped (its best move is kept when no iteration finished), and no iteration starts after half the
  budget;
- terminal positions through ``variant.outcome``: a win scores ``MATE - plies``, a draw 0.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from pbem.engine.base import Outcome, Seat, Variant
from pbem.engine.capabilities import (
    ActionCompletion,
    CaptureInfo,
    CheckAware,
    Evaluation,
    PositionKey,
    QuickSuccessor,
    SearchActions,
    SeatPrivacy,
    SecretKeeping,
)
from pbem.engine.search_order import Orderer
from pbem.engine.search_table import MATE, MATE_BOUND, Bound, TranspositionTable, from_table, to_table

__all__ = [
    "LEVELS",
    "MATE",
    "MAX_DEPTH",
    "Clock",
    "Level",
    "Limits",
    "RandomSource",
    "SearchResult",
    "choose_action",
    "describe_line",
    "format_score",
    "limits_for_level",
    "search",
    "seat_view",
]

INFINITY = 10 * MATE
#: The deepest iteration a search may reach (time is what stops it in practice).
MAX_DEPTH = 64
#: How often (in nodes) the clock is read.
_CLOCK_EVERY = 64
#: A capture that cannot lift the score to alpha even with this much to spare is not tried in quiescence.
_DELTA_MARGIN = 200
_EVAL_CACHE = 200_000
#: Late-move reductions: a quiet move from the fourth in the order on (index 3), with 3 plies or more
#: left, is searched a ply shallower; from the eleventh (index 10), with 5 plies or more left, two.
_REDUCE_DEPTH, _REDUCE_FROM = 3, 3
_REDUCE_MORE_DEPTH, _REDUCE_MORE_FROM = 5, 10

#: The clock: seconds from any fixed origin (``time.monotonic`` in the application, a fake in tests).
Clock = Callable[[], float]


class RandomSource(Protocol):
    """What the search needs of ``random.Random``: a float in [0, 1)."""

    def random(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Level:
    """A computer player's strength: depth cap, seconds per move, random noise on the root moves (centipawns),
    and whether late quiet moves are searched shallower (a deeper, selective search)."""

    depth: int
    seconds: float
    noise: int = 0
    reductions: bool = False


#: Level 1 looks one move ahead (plus captures) and plays with noise; level 5 thinks several seconds.
LEVELS: Mapping[int, Level] = {
    1: Level(depth=1, seconds=1.0, noise=40),
    2: Level(depth=2, seconds=2.0, noise=10),
    3: Level(depth=3, seconds=3.0),
    4: Level(depth=4, seconds=5.0),
    # Without reductions level 5 only finished level 4's depth in 8 s in Space Chess (42% after 13 games).
    5: Level(depth=MAX_DEPTH, seconds=8.0, reductions=True),
}


@dataclass(frozen=True, slots=True)
class Limits:
    """When to stop: the depth cap, seconds (None: no clock), nodes (None: no cap); noise, quiescence depth
    and late-move reductions (off: every move at full depth, so a fixed depth gives the full-width result)."""

    depth: int = MAX_DEPTH
    seconds: float | None = None
    nodes: int | None = None
    noise: int = 0
    quiescence: int = 6
    reductions: bool = False


def limits_for_level(level: int, max_seconds: float | None = None) -> Limits:
    """The budget of computer level ``level`` (1-5), its seconds capped at ``max_seconds`` if given."""
    if level not in LEVELS:
        raise ValueError(f"the computer's level is 1 to {max(LEVELS)}, not {level}")
    chosen = LEVELS[level]
    seconds = chosen.seconds if max_seconds is None else min(chosen.seconds, max_seconds)
    return Limits(depth=chosen.depth, seconds=seconds, noise=chosen.noise, reductions=chosen.reductions)


@dataclass(frozen=True, slots=True)
class SearchResult:
    """The search's answer: a complete legal action, its score (centipawns, side to move), the line expected."""

    action: Any
    score: int
    pv: tuple[Any, ...]
    depth: int
    nodes: int
    seconds: float

    @property
    def mate_in(self) -> int | None:
        """Moves to mate (positive: the side to move mates; negative: it is mated), or None."""
        return mate_in(self.score)


def mate_in(score: int) -> int | None:
    if score > MATE_BOUND:
        return (MATE - score + 1) // 2
    if score < -MATE_BOUND:
        return -((MATE + score + 1) // 2)
    return None


def format_score(score: int) -> str:
    """``+35`` (centipawns, side to move), ``mate in 2`` or ``mated in 3``."""
    moves = mate_in(score)
    if moves is None:
        return f"{score:+d}"
    return f"mate in {moves}" if moves > 0 else f"mated in {-moves}"


class _Stop(Exception):
    """The budget ran out inside an iteration."""


def seat_view(variant: Variant[Any, Any], state: Any, seat: Seat) -> Any:
    """What ``seat`` may know of ``state``: the only state a search is given.

    A variant with secrets must say what each seat may know (``SeatPrivacy``); one without
    secrets shows every seat everything.
    """
    if isinstance(variant, SeatPrivacy):
        return variant.seat_state(state, seat)
    if isinstance(variant, SecretKeeping):
        raise TypeError(f"{variant.key} keeps secrets but does not say what a seat may know (SeatPrivacy)")
    return state


def search(variant: Variant[Any, Any], state: Any, limits: Limits, now: Clock,
           rng: RandomSource | None = None, table: TranspositionTable | None = None,
           use_table: bool = True, seat: Seat | None = None) -> SearchResult:
    """The best action for the side to move in ``state``, searched in that side's view only.

    ``seat`` (if given) must be the side to move; ``table`` may be kept between the moves of one game;
    ``use_table=False`` searches without one. ``rng`` is needed only when ``limits.noise`` is set.
    ValueError if the game is over or it is not ``seat``'s turn.
    """
    seat, view = _side_and_view(variant, state, seat)
    if limits.noise and rng is None:
        raise ValueError("a search with noise needs a random source")
    if not use_table:
        table = None
    elif table is None and isinstance(variant, PositionKey):
        table = TranspositionTable()
    result = _Search(variant, view, seat, limits, now, rng, table).run()
    if isinstance(variant, ActionCompletion):
        action = variant.complete_action(view, result.action)
        result = replace(result, action=action, pv=(action, *result.pv[1:]))
    return result


def _side_and_view(variant: Variant[Any, Any], state: Any, seat: Seat | None) -> tuple[Seat, Any]:
    """The side to move and its view, found without reading the full state (even whose turn it is
    is asked of a seat's view, so nothing of the other seat's secrets is ever opened)."""
    for candidate in (seat,) if seat is not None else (Seat.WHITE, Seat.BLACK):
        view = seat_view(variant, state, candidate)
        to_act = variant.to_act(view)
        if to_act is candidate:
            return candidate, view
        if to_act is None:
            raise ValueError("the game is over: there is nothing to search")
    raise ValueError(f"it is not {seat}'s turn")


def choose_action(variant: Variant[Any, Any], state: Any, seat: Seat, level: int, rng: RandomSource,
                  now: Clock, max_seconds: float | None = None,
                  table: TranspositionTable | None = None) -> SearchResult:
    """The computer's move for ``seat`` at ``level`` (1-5): complete, legal, ready to seal and apply."""
    return search(variant, state, limits_for_level(level, max_seconds), now, rng, table, seat=seat)


def describe_line(variant: Variant[Any, Any], state: Any, actions: Sequence[Any]) -> list[str]:
    """The canonical notation of a line of actions from ``state`` (a principal variation)."""
    play = _successor(variant)
    words: list[str] = []
    for action in actions:
        words.append(variant.describe(state, action))
        state = play(state, action)
    return words


def _successor(variant: Variant[Any, Any]) -> Callable[[Any, Any], Any]:
    if isinstance(variant, QuickSuccessor):
        return variant.successor
    return lambda state, action: variant.apply(state, action).state


def _captures_from_notation(variant: Variant[Any, Any]) -> Callable[[Any, Any], tuple[int, int] | None]:
    """For a variant without CaptureInfo: an action written with ``x`` captures something of unknown value."""

    def captures(state: Any, action: Any) -> tuple[int, int] | None:
        return (100, 100) if "x" in variant.describe(state, action) else None

    return captures


class _Search:
    """One search from one root: counters, tables and the recursion."""

    def __init__(self, variant: Variant[Any, Any], root: Any, seat: Seat, limits: Limits, now: Clock,
                 rng: RandomSource | None, table: TranspositionTable | None) -> None:
        self.variant = variant
        self.root = root
        self.seat = seat
        self.limits = limits
        self.now = now
        self.rng = rng
        self.table = table
        self.key: Callable[[Any], Hashable] | None = (
            variant.position_key if table is not None and isinstance(variant, PositionKey) else None)
        self.cache_key: Callable[[Any], Hashable] | None = (
            variant.position_key if isinstance(variant, PositionKey) else None)
        self.static: Callable[[Any], int] = variant.evaluate if isinstance(variant, Evaluation) else _zero
        self.play = _successor(variant)
        self.in_check: Callable[[Any], bool] | None = variant.in_check if isinstance(variant, CheckAware) else None
        self.actions: Callable[[Any], Sequence[Any]] = (
            variant.search_actions if isinstance(variant, SearchActions)
            else lambda state: list(variant.legal_actions(state)))
        self.orderer = Orderer(variant.capture_values if isinstance(variant, CaptureInfo)
                               else _captures_from_notation(variant))
        self.start = now()
        self.deadline = None if limits.seconds is None else self.start + limits.seconds
        self.nodes = 0
        self.can_stop = False
        self.pv: list[list[Any]] = [[] for _ in range(MAX_DEPTH + limits.quiescence + 2)]
        self.evals: dict[Hashable, int] = {}
        self.partial: tuple[int, Any, list[Any]] | None = None

    # -- driver -----------------------------------------------------------------------------------

    def run(self) -> SearchResult:
        actions = list(self.actions(self.root))
        if not actions:
            raise ValueError("no legal action to search")
        if self.table is not None:
            self.table.new_search()
        order = self.orderer.order(self.root, actions, 0, None, self.seat, quiet_heuristics=False)
        noise = self._noise(order)
        best: tuple[int, Any, list[Any]] | None = None
        reached = 0
        for depth in range(1, max(1, self.limits.depth) + 1):
            try:
                found = self._root(depth, order, noise)
            except _Stop:
                # A move that beat the last iteration's best (searched first) at this depth is better news.
                if self.partial is not None and (best is None or self.partial[1] != best[1]):
                    best = self.partial
                    reached = max(reached, depth - 1)
                break
            best, reached = found, depth
            self.can_stop = True
            order = [found[1], *(a for a in order if a != found[1])]
            if len(order) == 1 or self._finished(found[0], depth) or self._half_spent():
                break
        if best is None:  # stopped before a single root move was searched (a budget of nothing)
            best, reached = (self._static(self.root), order[0], [order[0]]), 0
        score, action, line = best
        return SearchResult(action, score, tuple(line), reached, self.nodes, self.now() - self.start)

    def _noise(self, actions: Sequence[Any]) -> dict[int, int]:
        """Fixed per root move for the whole search, so the iterations agree."""
        if not self.limits.noise or self.rng is None:
            return {}
        amplitude = self.limits.noise
        return {index: round((2 * self.rng.random() - 1) * amplitude) for index in range(len(actions))}

    def _finished(self, score: int, depth: int) -> bool:
        """A mate found within the full-width depth cannot get shorter by searching deeper."""
        return abs(score) > MATE_BOUND and MATE - abs(score) <= depth

    def _half_spent(self) -> bool:
        if self.deadline is None or self.limits.seconds is None:
            return False
        return self.now() - self.start >= self.limits.seconds / 2

    def _root(self, depth: int, actions: Sequence[Any], noise: Mapping[int, int]) -> tuple[int, Any, list[Any]]:
        """One iteration at the root; with noise every move gets an exact score (full window)."""
        self.partial = None
        alpha, beta = -INFINITY, INFINITY
        best_key, best_score, best_action, best_line = -INFINITY, -INFINITY, actions[0], [actions[0]]
        other = self.seat.other
        for index, action in enumerate(actions):
            child = self.play(self.root, action)
            if noise or index == 0:
                score = -self._negamax(child, depth - 1, -beta, -alpha, 1, other)  # alpha stays -inf with noise
            else:
                score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, 1, other)
                if alpha < score < beta:
                    score = -self._negamax(child, depth - 1, -beta, -alpha, 1, other)
            key = score if abs(score) > MATE_BOUND else score + noise.get(index, 0)
            if key > best_key:
                best_key, best_score, best_action = key, score, action
                best_line = [action, *self.pv[1]]
                if not noise:
                    alpha = max(alpha, score)
            self.partial = (best_score, best_action, best_line)
            self.can_stop = True
        return best_score, best_action, best_line

    # -- the tree ---------------------------------------------------------------------------------

    def _tick(self) -> None:
        self.nodes += 1
        limit = self.limits.nodes
        if limit is not None and self.nodes >= limit and self.can_stop:
            raise _Stop
        if self.deadline is not None and self.nodes % _CLOCK_EVERY == 0 and self.can_stop \
                and self.now() >= self.deadline:
            raise _Stop

    def _terminal(self, over: Outcome, side: Seat, ply: int) -> int:
        winner = over.winner
        if winner is None:
            return 0
        return MATE - ply if winner is side else ply - MATE

    def _static(self, state: Any) -> int:
        if self.cache_key is None:
            return self.static(state)
        key = self.cache_key(state)
        value = self.evals.get(key)
        if value is None:
            if len(self.evals) >= _EVAL_CACHE:
                self.evals.clear()
            value = self.evals[key] = self.static(state)
        return value

    def _negamax(self, state: Any, depth: int, alpha: int, beta: int, ply: int, side: Seat) -> int:
        self.pv[ply] = []
        self._tick()
        over = self.variant.outcome(state)
        if over is not None:
            return self._terminal(over, side, ply)
        if depth <= 0 or ply >= MAX_DEPTH:
            return self._quiesce(state, alpha, beta, ply, side, 0)
        key = self.key(state) if self.key is not None else None
        table_move = None
        if key is not None and self.table is not None:
            entry = self.table.probe(key)
            if entry is not None:
                table_move = entry.action
                if entry.depth == depth:
                    score = from_table(entry.score, ply)
                    if (entry.bound is Bound.EXACT or (entry.bound is Bound.LOWER and score >= beta)
                            or (entry.bound is Bound.UPPER and score <= alpha)):
                        if entry.bound is Bound.EXACT and entry.action is not None:
                            self.pv[ply] = [entry.action]
                        return score
        actions = self.actions(state)
        if not actions:  # cannot happen when search_actions keeps its promise; judge the position
            return self._static(state)
        ordered = self.orderer.order(state, actions, ply, table_move, side)
        original_alpha = alpha
        best_score, best_action = -INFINITY, None
        other = side.other
        reducing = (self.limits.reductions and depth >= _REDUCE_DEPTH
                    and not (self.in_check is not None and self.in_check(state)))
        for index, action in enumerate(ordered):
            child = self.play(state, action)
            if index == 0:
                score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1, other)
            else:
                cut = self._reduction(state, child, action, index, depth, ply) if reducing else 0
                score = alpha + 1
                if cut:
                    score = -self._negamax(child, depth - 1 - cut, -alpha - 1, -alpha, ply + 1, other)
                if score > alpha:  # not reduced, or the reduced search did not fail low: full depth
                    score = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1, other)
                if alpha < score < beta:
                    score = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1, other)
            if score > best_score:
                best_score, best_action = score, action
                if score > alpha:
                    alpha = score
                    self.pv[ply] = [action, *self.pv[ply + 1]]
                    if alpha >= beta:
                        self.orderer.reward(state, action, ply, depth, side)
                        break
        if key is not None and self.table is not None:
            bound = (Bound.LOWER if best_score >= beta else Bound.EXACT if best_score > original_alpha
                     else Bound.UPPER)
            self.table.store(key, depth, to_table(best_score, ply), bound, best_action)
        return best_score

    def _reduction(self, state: Any, child: Any, action: Any, index: int, depth: int, ply: int) -> int:
        """Plies to take off a late move: none for captures, promotions, killers and checks."""
        if index < _REDUCE_FROM or self.orderer.capture(state, action) is not None:
            return 0
        if self.orderer.is_killer(ply, action) or (self.in_check is not None and self.in_check(child)):
            return 0
        return 2 if depth >= _REDUCE_MORE_DEPTH and index >= _REDUCE_MORE_FROM else 1

    def _quiesce(self, state: Any, alpha: int, beta: int, ply: int, side: Seat, qdepth: int) -> int:
        """Captures and promotions only, until the position is quiet or the quiescence depth is used up;
        in check every reply, without standing pat (a check at the horizon may be mate)."""
        self.pv[ply] = []
        stand = self._static(state)
        if qdepth >= self.limits.quiescence or ply >= len(self.pv) - 1:
            return stand
        evading = self.in_check is not None and self.in_check(state)
        if evading:
            best = -INFINITY
        else:
            if stand >= beta:
                return stand
            alpha = max(alpha, stand)
            best = stand
        tried: list[tuple[int, int, int, Any]] = []
        for index, action in enumerate(self.actions(state)):
            gain = self.orderer.capture(state, action)
            if gain is not None:
                tried.append((-gain[0], gain[1], index, action))
            elif evading:
                tried.append((0, 0, index, action))
        tried.sort(key=lambda item: item[:3])
        other = side.other
        for negative_gain, _, _, action in tried:
            if not evading and stand - negative_gain + _DELTA_MARGIN <= alpha:
                continue
            child = self.play(state, action)
            self._tick()
            over = self.variant.outcome(child)
            if over is not None:
                score = -self._terminal(over, other, ply + 1)
                self.pv[ply + 1] = []
            else:
                score = -self._quiesce(child, -beta, -alpha, ply + 1, other, qdepth + 1)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    self.pv[ply] = [action, *self.pv[ply + 1]]
                    if alpha >= beta:
                        break
        return best if tried else stand


def _zero(state: Any) -> int:
    return 0
