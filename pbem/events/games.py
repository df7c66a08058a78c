"""An event's games: starting a round's pairs as games, the round deadline, ending a game outside play."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from pbem.app.context import Context
from pbem.app.game_mail import final_mail
from pbem.app.games import end_without_move, start_game
from pbem.engine.base import Outcome, Seat
from pbem.store.event_models import Event
from pbem.store.models import Challenge, Game
from pbem.store.vocabulary import ChallengeStatus

__all__ = ["end_game", "set_round", "start_games"]


def start_games(ctx: Context, event: Event, round_: int, pairs: Sequence[tuple[int, int]]) -> list[Game]:
    """One game per (white, black) pair, in the event's variant and terms, each with its opening mails."""
    games = []
    for white, black in pairs:
        opponent = ctx.account_by_id(black)
        assert opponent is not None
        # An accepted challenge, so the game starts exactly as a casual one does.
        challenge = Challenge(challenger_id=white, opponent_id=black, opponent_email=opponent.email,
                              variant=event.variant, color="white", time_control=event.time_control,
                              options=dict(event.options), status=ChallengeStatus.ACCEPTED)
        ctx.session.add(challenge)
        ctx.session.flush()
        game = start_game(ctx, challenge)
        game.event_id, game.event_round = event.id, round_
        ctx.session.add(game)
        games.append(game)
    ctx.session.flush()
    return games


def set_round(ctx: Context, event: Event, round_: int) -> None:
    """Make ``round_`` the current round, with its deadline if the event has one."""
    event.current_round = round_
    event.round_deadline = ctx.services.now() + timedelta(days=event.round_days) if event.round_days else None
    ctx.session.add(event)


def end_game(ctx: Context, game: Game, outcome: Outcome) -> None:
    """Finish ``game`` outside play (adjudication, forfeit) and tell both players and observers."""
    state = end_without_move(ctx, game, outcome)
    for seat in Seat:
        ctx.send(final_mail(ctx, game, seat, outcome, state))
