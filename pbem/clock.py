"""Correspondence clocks: time controls, what a move costs, deadlines and reminder points (pure, no I/O).

Two kinds of time control, written as in a challenge:

- ``days N``: N days for every move (decimals allowed); unused time is not kept.
- ``time M/D [double T]`` (ICCF style): D days for every M moves, unused time
  carried over; the player's budget grows by D days after each M-th own move.
  With ``double T``, time spent on one move beyond T days is charged twice
  (the ICCF "doubling" against sitting on a move).

A clock runs only for the side to move, and not while that player is on
vacation (``paused``). Times are timezone-aware UTC datetimes; budgets are
seconds.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

__all__ = ["Clock", "ClockError", "TimeControl", "reminder_points"]

DAY = 86400.0
MAX_DAYS = 365.0
_PERIOD = re.compile(r"^(\d+)/(\d+(?:\.\d+)?)$")


class ClockError(ValueError):
    """A time control that cannot be read; the message says what is wrong."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How much time a player has: per move (``moves == 0``) or per period of ``moves`` moves."""

    days: float
    moves: int = 0
    double_after_days: float | None = None

    @classmethod
    @lru_cache(maxsize=256)  # a value of a few distinct texts, read several times for every move
    def parse(cls, text: str, default_days: float) -> TimeControl:
        """``days N``, ``time M/D`` or ``time M/D double T``; empty text means the default days per move."""
        words = text.lower().split()
        if not words:
            return cls(days=default_days)
        if words[0] == "days" and len(words) == 2:
            return cls(days=_positive_days(words[1], "days per move"))
        if words[0] == "time" and len(words) in (2, 4):
            match = _PERIOD.match(words[1])
            if match is None:
                raise ClockError(f"write the time control as M/D (moves/days), e.g. 10/30, not {words[1]!r}")
            moves = int(match.group(1))
            if not 1 <= moves <= 100:
                raise ClockError("the moves of a period must be between 1 and 100")
            days = _positive_days(match.group(2), "days of a period")
            double = None
            if len(words) == 4:
                if words[2] != "double":
                    raise ClockError(f"expected 'double T' after the period, not {words[2]!r}")
                double = _positive_days(words[3], "doubling threshold")
            return cls(days=days, moves=moves, double_after_days=double)
        raise ClockError(f"not a time control: {text!r} (use 'days N' or 'time M/D [double T]')")

    def __str__(self) -> str:
        if not self.moves:
            return f"days {self.days:g}"
        double = f" double {self.double_after_days:g}" if self.double_after_days else ""
        return f"time {self.moves}/{self.days:g}{double}"

    def describe(self) -> str:
        """The time control in words, for mails."""
        if not self.moves:
            return f"{_days_words(self.days)} per move"
        text = f"{self.moves} moves in {_days_words(self.days)}, unused time carried over"
        if self.double_after_days:
            text += f"; time beyond {_days_words(self.double_after_days)} on one move counts double"
        return text

    @property
    def budget_seconds(self) -> float:
        return self.days * DAY

    def charge(self, seconds: float) -> float:
        """What ``seconds`` of thinking on one move cost the player's budget."""
        if self.double_after_days is None:
            return seconds
        threshold = self.double_after_days * DAY
        return seconds if seconds <= threshold else threshold + 2 * (seconds - threshold)

    def time_to_spend(self, budget: float) -> float:
        """The thinking time on one move after which ``budget`` is used up (charge's inverse)."""
        if budget <= 0:
            return 0.0
        if self.double_after_days is None:
            return budget
        threshold = self.double_after_days * DAY
        return budget if budget <= threshold else threshold + (budget - threshold) / 2


def _positive_days(word: str, what: str) -> float:
    try:
        days = float(word)
    except ValueError:
        raise ClockError(f"{what} must be a number, not {word!r}") from None
    if not (math.isfinite(days) and 0 < days <= MAX_DAYS):
        raise ClockError(f"{what} must be above 0 and at most {MAX_DAYS:g}")
    return days


def _days_words(days: float) -> str:
    if days >= 1:
        return f"{days:g} day" + ("" if days == 1 else "s")
    return duration(days * DAY)


def duration(seconds: float) -> str:
    """``3d 4h``, ``5h 12m``, ``43s``: a compact time left for mails."""
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


@dataclass(frozen=True, slots=True)
class Clock:
    """Both players' budgets and the running turn; stored as JSON on the game.

    ``turn_started`` is when the side to move's clock (re)started; None while
    it is paused (vacation). ``reminded`` counts the reminder points of this
    turn already mailed; ``late`` is set once the late notice went out.
    """

    control: TimeControl
    budget: dict[str, float]
    moves: dict[str, int]
    to_move: str | None
    turn_started: datetime | None
    started: datetime
    last_move: datetime | None = None
    reminded: tuple[int, ...] = ()
    late: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, control: TimeControl, now: datetime, to_move: str | None, paused: bool = False) -> Clock:
        budget = {"white": control.budget_seconds, "black": control.budget_seconds}
        return cls(control, budget, {"white": 0, "black": 0}, to_move, None if paused else now, now)

    # -- the running turn ------------------------------------------------------------------

    def spent(self, now: datetime) -> float:
        """Seconds the side to move has thought on this turn so far (0 while paused)."""
        if self.turn_started is None or self.to_move is None:
            return 0.0
        return max(0.0, (now - self.turn_started).total_seconds())

    def left(self, seat: str, now: datetime) -> float:
        """Seconds of budget ``seat`` has left now."""
        if seat != self.to_move:
            return self.budget[seat]
        return self.budget[seat] - self.control.charge(self.spent(now))

    def deadline(self) -> datetime | None:
        """When the side to move runs out of time; None when no clock runs."""
        if self.turn_started is None or self.to_move is None:
            return None
        return self.turn_started + timedelta(seconds=self.control.time_to_spend(self.budget[self.to_move]))

    # -- changes ---------------------------------------------------------------------------

    def moved(self, seat: str, now: datetime, next_to_move: str | None, next_paused: bool = False) -> Clock:
        """``seat`` completed a move at ``now``; the clock passes to ``next_to_move``."""
        budget = dict(self.budget)
        moves = dict(self.moves)
        if seat == self.to_move:
            budget[seat] -= self.control.charge(self.spent(now))
        moves[seat] += 1
        if self.control.moves:
            if moves[seat] % self.control.moves == 0:
                budget[seat] += self.control.budget_seconds  # a new period: carried-over time stays
        else:
            budget[seat] = self.control.budget_seconds
        if next_to_move is not None and not self.control.moves:
            budget[next_to_move] = self.control.budget_seconds
        return replace(self, budget=budget, moves=moves, to_move=next_to_move,
                       turn_started=None if next_paused else now, last_move=now, reminded=(), late=False)

    def pause(self, now: datetime) -> Clock:
        """Stop the side to move's clock, keeping the time used so far charged."""
        if self.turn_started is None or self.to_move is None:
            return self
        budget = dict(self.budget)
        budget[self.to_move] -= self.control.charge(self.spent(now))
        return replace(self, budget=budget, turn_started=None)

    def resume(self, now: datetime) -> Clock:
        return self if self.turn_started is not None else replace(self, turn_started=now)

    def mark_reminded(self, count: int) -> Clock:
        return replace(self, reminded=tuple(range(count)))

    # -- storage ---------------------------------------------------------------------------

    def dump(self) -> dict[str, Any]:
        return {
            "control": str(self.control),
            "budget": self.budget,
            "moves": self.moves,
            "to_move": self.to_move,
            "turn_started": _iso(self.turn_started),
            "started": _iso(self.started),
            "last_move": _iso(self.last_move),
            "reminded": list(self.reminded),
            "late": self.late,
        }

    @classmethod
    def load(cls, data: dict[str, Any]) -> Clock:
        control = TimeControl.parse(data["control"], default_days=1.0)
        started = _parse(data["started"])
        assert started is not None
        return cls(control, {k: float(v) for k, v in data["budget"].items()},
                   {k: int(v) for k, v in data["moves"].items()}, data["to_move"], _parse(data["turn_started"]),
                   started, _parse(data.get("last_move")), tuple(data.get("reminded", ())),
                   bool(data.get("late", False)))


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def _parse(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def reminder_points(clock: Clock, fractions: list[float], before_days: float) -> list[datetime]:
    """When the side to move is reminded this turn, in order: at ``fractions`` of the turn's time,
    and ``before_days`` before the deadline (skipped when the turn is not that long)."""
    deadline = clock.deadline()
    if deadline is None or clock.turn_started is None:
        return []
    span = (deadline - clock.turn_started).total_seconds()
    points = {clock.turn_started + timedelta(seconds=span * f) for f in fractions if 0 < f < 1}
    before = before_days * DAY
    if 0 < before < span:
        points.add(deadline - timedelta(seconds=before))
    return sorted(points)
