"""The engine's view of a game for people: ``analyse`` by mail, and the opinion beside an adjudication.

Who may ask: a player of a finished game (during a game it would be outside help), and an event's
organiser for any game of that event. The analysis sees only the public position (nobody's
Hyperspace return squares: a piece in hyperspace is material whose return is unknown), so its
mail can go to anyone who may ask. A request is stored (AnalysisRequest) and answered by the
computer's loop, which searches outside the mail worker and mails the result once.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import subject_of, thread_root
from pbem.app.game_options import split_options
from pbem.app.game_state import engine_for, handles
from pbem.app.thinking import Answer, Question, think
from pbem.engine.base import Audience, Seat, Variant
from pbem.engine.capabilities import SeatPrivacy
from pbem.engine.search_table import MATE_BOUND
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.event_models import Event
from pbem.store.models import Account, AnalysisRequest, Game
from pbem.store.vocabulary import GameStatus

__all__ = [
    "PUBLIC_ONLY",
    "AnalysisPlan",
    "engine_opinion",
    "finish_analysis",
    "plan_analysis",
    "public_view",
    "request_analysis",
    "score_words",
]

#: What an analysis says of what it could not see.
PUBLIC_ONLY = ("The engine saw the public position only: a piece in hyperspace counts as material whose "
               "return is unknown.")


def public_view(engine: Variant[Any, Any], state: Any) -> Any:
    """``state`` with nobody's secrets: what an analysis that anybody may read is allowed to search."""
    if isinstance(engine, SeatPrivacy):
        return engine.seat_state(engine.seat_state(state, Seat.WHITE), Seat.BLACK)
    return state


def may_analyse(ctx: Context, game: Game, account: Account) -> str | None:
    """Why ``account`` may not have ``game`` analysed; None if they may."""
    if game.event_id is not None:
        event = ctx.session.get(Event, game.event_id)
        if event is not None and event.organiser_id == account.id:
            return None  # the organiser, for any game of their event
    if account.id not in (game.white_id, game.black_id):
        return f"game {game.id} is not yours to analyse (only its players, and its event's organiser, may)"
    if game.status == GameStatus.ACTIVE:
        return (f"game {game.id} is still being played: the engine analyses a game once it is over "
                "(during a game it would be outside help)")
    return None


def request_analysis(ctx: Context, game: Game, account: Account) -> Result:
    """Store ``account``'s request for the engine's view of ``game`` as it stands; the reply's text."""
    if not ctx.services.config.computer.enabled:
        raise CommandError("the engine does not analyse on this server (its operator switched it off)")
    refusal = may_analyse(ctx, game, account)
    if refusal is not None:
        raise CommandError(refusal)
    assert game.id is not None and account.id is not None
    ctx.session.add(AnalysisRequest(game_id=game.id, account_id=account.id, ply=game.ply,
                                    in_reply_to=ctx.mail.message_id if ctx.mail is not None else "",
                                    requested_at=ctx.services.now()))
    return Result(f"The engine looks at game {game.id} after ply {game.ply}: its analysis follows in a mail of "
                  "its own, usually within a minute.")


@dataclass(frozen=True, slots=True)
class AnalysisPlan:
    """An analysis to make: the request, and the question for the search (None: nothing to search)."""

    request_id: int
    question: Question | None


def plan_analysis(ctx: Context, request_id: int, seconds: float) -> AnalysisPlan | None:
    """The search a stored request needs (None when it was answered already)."""
    request = ctx.session.get(AnalysisRequest, request_id)
    if request is None or request.done_at is not None:
        return None
    game = ctx.session.get(Game, request.game_id)
    assert game is not None
    engine = engine_for(game)
    view = public_view(engine, engine.load(game.state))
    seat = engine.to_act(view)
    if seat is None or engine.outcome(view) is not None:
        return AnalysisPlan(request_id, None)
    rules, _ = split_options(game.options)
    return AnalysisPlan(request_id, Question(variant=game.variant, rules=json.dumps(rules, sort_keys=True),
                                             view=engine.dump(view), seat=seat.value, level=0, seconds=seconds,
                                             seed=request_id))


def score_words(score: int, seat: Seat) -> str:
    """A score for people: in pawns from White's side ("+1.35 (White is better)"), or who mates."""
    white = score if seat is Seat.WHITE else -score
    if abs(score) > MATE_BOUND:
        mater = seat if score > 0 else seat.other
        return f"{mater} can force a win (mate, or the capture of the royal piece, found in the search)"
    verdict = ("the position is balanced" if abs(white) < 30 else
               f"{Seat.WHITE if white > 0 else Seat.BLACK} is {'slightly ' if abs(white) < 100 else ''}better")
    return f"{white / 100:+.2f} for White ({verdict})"


def engine_opinion(game: Game, state: Any, seconds: float) -> list[str]:
    """The engine's view of ``state`` in lines, searched here and now (the CLI's adjudication help)."""
    engine = engine_for(game)
    view = public_view(engine, state)
    seat = engine.to_act(view)
    over = engine.outcome(view)
    if seat is None or over is not None:
        return [f"The position is over on the board ({over.result}, {over.reason})." if over else
                "Nobody is to move: nothing to analyse."]
    rules, _ = split_options(game.options)
    started = time.monotonic()
    answer = think(Question(variant=game.variant, rules=json.dumps(rules, sort_keys=True), view=engine.dump(view),
                            seat=seat.value, level=0, seconds=seconds, seed=game.id or 0))
    return _lines(answer, seat, time.monotonic() - started)


def _lines(answer: Answer, seat: Seat, took: float) -> list[str]:
    return [f"Engine: {score_words(answer.score, seat)}",
            f"Best move for {seat}: {answer.line[0] if answer.line else answer.move}",
            f"Expected line: {' '.join(answer.line)}",
            f"(depth {answer.depth}, {answer.nodes:,} positions in {took:.1f} s)"]


def finish_analysis(ctx: Context, plan: AnalysisPlan, answer: Answer | None) -> str:
    """Mail the analysis to whoever asked, once; what was done, for the log."""
    request = ctx.session.get(AnalysisRequest, plan.request_id)
    if request is None or request.done_at is not None:
        return "dropped: answered already"
    game = ctx.session.get(Game, request.game_id)
    account = ctx.account_by_id(request.account_id)
    assert game is not None and game.id is not None and account is not None and account.id is not None
    engine = engine_for(game)
    state = engine.load(game.state)
    view = public_view(engine, state)
    seat = engine.to_act(view)
    if answer is None or seat is None:
        over = engine.outcome(view)
        lines = [f"The game is over on the board ({over.result}, {over.reason}): nothing is left to search."
                 if over else "Nobody is to move in this position: nothing to search."]
    else:
        lines = _lines(answer, seat, answer.seconds)
    if game.ply != request.ply:
        lines.append(f"(Asked after ply {request.ply}; the game has gone on since: this is ply {game.ply}.)")
    board = engine.view(state, Audience.PUBLIC, picture=False)
    body = render("player/analysis.txt", game=game, handles=handles(ctx, game), lines=lines,
                  board=render("player/_view.txt", view=board), note=PUBLIC_ONLY)
    references = tuple(ref for ref in (thread_root(ctx, game), request.in_reply_to) if ref)
    ctx.send(Outgoing(to=account.email, subject=f"Re: {subject_of(ctx, game)}", body=body,
                      reply_to=ctx.services.addresses.personal(account.id), in_reply_to=request.in_reply_to,
                      references=references, auto_submitted="auto-replied", game_id=game.id))
    request.done_at = ctx.services.now()
    ctx.session.add(request)
    return f"analysis of game {game.id} mailed to account {account.id}"
