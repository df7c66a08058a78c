"""The computer as a player: its reserved account, games against it, its moves and its answers.

The computer is an account like any other (handle ``computer``, an address under ``.invalid`` that
no mail reaches) so its games use the same tables, clocks, records and mails as any game. It never
reads mail: what it owes a game (a move, an answer to a draw offer) is derived from the stored game
(``Game.computer_due_at``, pbem.app.computer_due), its searches run in the server's worker processes
(pbem.computer_player) and its move is played here, in one transaction that first checks the game is
still as it was searched, so a move is never played twice nor lost across a crash.

Decisions:

- Draw offers: with the move to make, the computer accepts when its search scores its position at
  ``DRAW_ACCEPT_AT`` or worse (or claims a draw the rules give when it does not stand better), else
  it plays on, which declines the offer. An offer made while its opponent is to move is answered at
  once on the static evaluation of its own view.
- Takebacks: agreed at once in unrated games (``option rated=no``: practice), refused in rated ones,
  where a takeback would make the rating meaningless.
- Ratings: a game against the computer is rated on a list of its own (ComputerRating). Each level
  is a fixed anchor (``LEVEL_RATINGS``) that only its opponents move against, as the computer
  opponents of chess servers are.
"""

from __future__ import annotations

import json
import logging
import secrets
import zlib
from dataclasses import dataclass
from typing import Any

from sqlmodel import select

from pbem.app.computer_due import refresh_computer_due
from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import game_mail
from pbem.app.game_options import game_rated, split_options
from pbem.app.game_state import (
    COMPUTER_EMAIL,
    computer_level,
    computer_name,
    computer_seat,
    engine_for,
    handles,
    state_of,
)
from pbem.app.games import finish_game, play_computer_move, start_game
from pbem.app.thinking import Answer, Question
from pbem.engine.base import Outcome, Seat, Variant
from pbem.engine.capabilities import Evaluation
from pbem.engine.search import LEVELS, seat_view
from pbem.store.models import Account, Challenge, Game
from pbem.store.vocabulary import ChallengeStatus, GameStatus

__all__ = [
    "COMPUTER_HANDLE",
    "DEFAULT_LEVEL",
    "DRAW_ACCEPT_AT",
    "LEVEL_RATINGS",
    "Plan",
    "answer_takeback",
    "carry_out",
    "computer_account",
    "plan_turn",
    "start_computer_game",
    "tell_computer_stuck",
]

log = logging.getLogger(__name__)

COMPUTER_HANDLE = "computer"
#: The level of a challenge that names none: the middle of the five.
DEFAULT_LEVEL = 3
#: The computer accepts a draw when it rates its own position this many centipawns or worse.
DRAW_ACCEPT_AT = -50
#: The fixed rating of each level on the computer list: roughly 200 points a level, as its strength
#: bench (bench/strength.py) shows each level well ahead of the one below.
LEVEL_RATINGS = {1: 1000.0, 2: 1200.0, 3: 1400.0, 4: 1600.0, 5: 1800.0}


def computer_account(ctx: Context) -> Account:
    """The reserved account that plays for the server's engine, made the first time it is needed."""
    found = ctx.session.exec(select(Account).where(Account.email == COMPUTER_EMAIL)).first()
    if found is not None:
        return found
    taken = ctx.session.exec(select(Account.id).where(Account.handle == COMPUTER_HANDLE)).first()
    # A server older than the reservation may have a person called 'computer': they keep their handle.
    account = Account(handle=COMPUTER_HANDLE if taken is None else "pbem-computer", email=COMPUTER_EMAIL)
    ctx.session.add(account)
    ctx.session.flush()
    return account


def start_computer_game(ctx: Context, account: Account, engine: Variant[Any, Any], colour: str, level: int,
                        time_control: str, options: dict[str, Any]) -> Result:
    """Start ``account``'s game against the computer at once (no challenge waits for an answer)."""
    if not ctx.services.config.computer.enabled:
        raise CommandError("the computer does not play on this server (its operator switched it off)")
    if level not in LEVELS:
        raise CommandError(f"the computer's level is 1 to {max(LEVELS)}, not {level}")
    computer = computer_account(ctx)
    if colour == "random":  # drawn here: the computer's seat is part of the game from its first row
        colour = ("white", "black")[secrets.randbelow(2)]
    seat = Seat.BLACK if colour == "white" else Seat.WHITE
    challenge = Challenge(challenger_id=account.id or 0, opponent_id=computer.id, opponent_email=computer.email,
                          variant=engine.key, color=colour, time_control=time_control, options=options,
                          status=ChallengeStatus.ACCEPTED)
    ctx.session.add(challenge)
    ctx.session.flush()
    game = start_game(ctx, challenge, extras={"computer": {"seat": seat.value, "level": level}})
    state = engine.load(game.state)
    log.info("game %s: %s plays the computer at level %d", game.id, account.handle, level)
    you = seat.other
    first = "The computer moves first: its move follows in a minute." if engine.to_act(state) is seat else \
        "You move first: reply to the game's mail with your move."
    return Result(f"Game {game.id} against {computer_name(level)} has started: you play {you}. {first}",
                  headline=f"Game {game.id} against {computer_name(level)}: you play {you}.")


@dataclass(frozen=True, slots=True)
class Plan:
    """What the computer has to think about in one game: the question, and the game as it was asked."""

    game_id: int
    version: int
    question: Question


def plan_turn(ctx: Context, game: Game, max_seconds: float) -> Plan | None:
    """The search the computer needs in ``game``, or None when it owes nothing a search answers (an
    offer made on its opponent's turn is answered here at once; a stale index entry is cleared)."""
    seat = computer_seat(game)
    engine = engine_for(game)
    state = engine.load(game.state)
    if seat is None or game.status != GameStatus.ACTIVE or engine.outcome(state) is not None:
        game.computer_due_at = None
        return None
    if engine.to_act(state) is not seat:
        if game.draw_offer == seat.other.value:
            _answer_offer_off_turn(ctx, game, engine, state, seat)
        refresh_computer_due(game, engine, state, ctx.services.now())
        return None
    assert game.id is not None
    rules, _ = split_options(game.options)
    view = seat_view(engine, state, seat)  # the only part of the state that leaves this process
    question = Question(variant=game.variant, rules=json.dumps(rules, sort_keys=True), view=engine.dump(view),
                        seat=seat.value, level=computer_level(game), seconds=max_seconds,
                        seed=zlib.crc32(f"{game.id}:{game.ply}".encode()))
    return Plan(game.id, game.version, question)


def carry_out(ctx: Context, game: Game, plan: Plan, answer: Answer) -> str:
    """Play (or answer a draw offer with) the search's result in ``game``, if it is still the position
    searched; what was done, for the log. Runs inside the game's locked transaction."""
    seat = computer_seat(game)
    if seat is None or game.version != plan.version or game.status != GameStatus.ACTIVE:
        return "dropped: the game changed while the computer thought"
    engine = engine_for(game)
    state = engine.load(game.state)
    if engine.to_act(state) is not seat:
        return "dropped: not the computer's turn any more"
    offered = game.draw_offer == seat.other.value
    if offered and answer.score <= DRAW_ACCEPT_AT:
        finish_game(ctx, game, Outcome.draw("agreement"), by=seat)
        return f"accepted the draw offer (score {answer.score:+d})"
    claim = engine.claim_draw(state)
    if claim is not None and answer.score <= 0:
        finish_game(ctx, game, claim, by=seat)
        return f"claimed a draw: {claim.reason} (score {answer.score:+d})"
    played = play_computer_move(ctx, game, seat, answer.move)
    declined = ", declining the draw offer" if offered else ""
    return f"played {played}{declined} (score {answer.score:+d}, depth {answer.depth}, {answer.nodes} nodes)"


def _answer_offer_off_turn(ctx: Context, game: Game, engine: Variant[Any, Any], state: Any, seat: Seat) -> None:
    """A draw offer made while the computer's opponent is to move: the static evaluation of the
    computer's own view decides (the score is never told: it would be a hint)."""
    view = seat_view(engine, state, seat)
    score = -engine.evaluate(view) if isinstance(engine, Evaluation) else 0  # evaluate: side to move's view
    if score <= DRAW_ACCEPT_AT:
        finish_game(ctx, game, Outcome.draw("agreement"), by=seat)
        log.info("game %s: the computer accepted the draw offer (static %+d)", game.id, score)
        return
    game.draw_offer = ""
    game.version += 1
    ctx.session.add(game)
    name = handles(ctx, game)[seat]
    ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt",
                       headline=f"{name} declines your draw offer: the game goes on, your move.", lines=[]))
    log.info("game %s: the computer declined the draw offer (static %+d)", game.id, score)


def answer_takeback(ctx: Context, game: Game) -> str | None:
    """The computer's answer to a takeback request in a rated game: a refusal (None in an unrated game,
    where it agrees like any friendly opponent)."""
    if game_rated(game.options):
        return (f"{computer_name(computer_level(game))} does not take back moves in rated games; challenge it "
                "with 'option rated=no' to practise with takebacks")
    return None


def tell_computer_stuck(ctx: Context, game: Game, tries: int) -> bool:
    """Tell the human player of ``game`` that the computer has failed ``tries`` times to make its move (the
    server keeps trying; the operator finds the error in the log). False if it is no longer the computer's
    turn, or the game is over."""
    seat = computer_seat(game)
    engine = engine_for(game)
    if seat is None or game.status != GameStatus.ACTIVE or engine.to_act(state_of(game)) is not seat:
        return False
    name = computer_name(computer_level(game))
    headline = (f"{name} could not make its move in game {game.id} ({tries} tries). The server keeps "
                f"trying, and its operator has been told.")
    # One paragraph: the mail's text hygiene wraps it within 78 columns.
    lines = ["Nothing of the game is lost: it stays as it is until the computer moves, and your clock does "
             "not run meanwhile. There is nothing to do on your side, and this is the only mail about it "
             "(you may still resign or offer a draw, as ever)."]
    ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt", headline=headline, lines=lines))
    return True
