"""The first line of game mails: what happened, in words a mail client's preview shows.

Subjects stay the same for the whole game (one thread), so the news of each
mail is its first line: "bob played 12... Nf6. Your move; deadline ...".
"""

from __future__ import annotations

from datetime import datetime

from pbem.app.local_time import short_stamp
from pbem.engine.base import Outcome, Seat

__all__ = ["computer_name", "is_computer_name", "result_news", "turn_news", "when"]

#: How mails, records and pages name the computer (pbem.app.computer): its level is part of its name.
_COMPUTER = "pbem computer (level {level})"


def computer_name(level: int) -> str:
    return _COMPUTER.format(level=level)


def is_computer_name(name: str) -> bool:
    """Whether ``name`` (as ``handles`` gives it) is the computer's."""
    return name.startswith(_COMPUTER.split("{")[0])


def when(moment: datetime | None) -> str:
    """A deadline as a preview shows it best: ``Mon 1 Dec 03:34 UTC``."""
    if moment is None:
        return "none"
    return short_stamp(moment)


def turn_news(names: dict[Seat, str], reader: Seat | None, to_move: Seat | None, deadline: datetime | None) -> str:
    """Whose move it is now, and until when, as ``reader`` (None: an observer) reads it."""
    if to_move is None:
        return ""
    if to_move is not reader and is_computer_name(names[to_move]):  # its deadline means nothing: it moves at once
        return f"{names[to_move]} is thinking: its move follows shortly."
    who = "Your move" if to_move is reader else f"{names[to_move]} to move"
    if deadline is None:  # the clock of the side to move is paused (vacation)
        return f"{who}; the clock is paused."
    return f"{who}; deadline {when(deadline)}."


def _how(outcome: Outcome, names: dict[Seat, str], reader: Seat | None) -> str:
    """How the game ended: "alice resigned", "Draw agreed", "bob lost on time", "Checkmate"."""
    loser = outcome.winner.other if outcome.winner is not None else None
    if outcome.reason == "resignation" and loser is not None:
        return "You resigned" if loser is reader else f"{names[loser]} resigned"
    if outcome.reason == "agreement":
        return "Draw agreed"
    if loser is not None and outcome.reason == f"{names[loser]} lost on time":
        return "You ran out of time" if loser is reader else outcome.reason
    return outcome.reason[:1].upper() + outcome.reason[1:]


def result_news(outcome: Outcome, names: dict[Seat, str], reader: Seat | None) -> str:
    """The end of a game in one sentence pair: "alice resigned. You won 0-1."."""
    winner = outcome.winner
    if outcome.result == "*":  # aborted (pbem.sweep): nobody won
        return f"{_how(outcome, names, reader)}. The game does not count: no result, no rating change."
    if winner is None:
        score = f"Drawn {outcome.result}."
    elif reader is None:
        score = f"{names[winner]} won {outcome.result}."
    else:
        score = f"You {'won' if winner is reader else 'lost'} {outcome.result}."
    return f"{_how(outcome, names, reader)}. {score}"
