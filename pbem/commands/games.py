"""``games``: the sender's games, whose move it is and the deadline, open challenges, and ratings."""

from __future__ import annotations

from typing import ClassVar

from sqlmodel import col, or_, select

from pbem.app.clocks import on_vacation, vacation_days_left
from pbem.app.context import Context, Result
from pbem.app.game_mail import deadline_text
from pbem.app.game_state import engine_for, handles
from pbem.app.settings import settings_lines
from pbem.commands.base import IDENTIFIED
from pbem.engine.base import Seat
from pbem.events.store import rating_of
from pbem.mail.addresses import AddressKind
from pbem.mail.render import render
from pbem.store.models import Account, Challenge, Game
from pbem.store.vocabulary import ChallengeStatus, GameStatus
from pbem.variants import get_variant


class Games:
    name: ClassVar[str] = "games"
    aliases: ClassVar[tuple[str, ...]] = ("list",)
    usage: ClassVar[str] = "games"
    summary: ClassVar[str] = "list your games and open challenges"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        games = ctx.session.exec(
            select(Game).where(or_(Game.white_id == account.id, Game.black_id == account.id))
            .order_by(col(Game.status), col(Game.id))
        ).all()
        rows = []
        for game in games:
            engine = engine_for(game)
            seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
            state = engine.load(game.state)
            to_move = engine.to_act(state)
            opponent_id = game.black_id if seat is Seat.WHITE else game.white_id
            rows.append(dict(
                id=game.id, title=engine.title, seat=seat, opponent=handles(ctx, game)[seat.other],
                opponent_rating=str(rating_of(ctx.session, opponent_id, game.variant)),
                status=game.status, result=game.result, reason=game.reason,
                move=engine.move_number(state), your_move=to_move is seat and game.status == GameStatus.ACTIVE,
                deadline=deadline_text(game.deadline)))
        challenges = ctx.session.exec(
            select(Challenge).where(Challenge.status == ChallengeStatus.OPEN).where(
                or_(Challenge.challenger_id == account.id, Challenge.opponent_id == account.id))
            .order_by(col(Challenge.id))
        ).all()
        offers = []
        for challenge in challenges:
            if challenge.challenger_id == account.id:
                opponent = ctx.session.get(Account, challenge.opponent_id) if challenge.opponent_id else None
                offers.append(f"{challenge.id}: {challenge.variant}, sent to "
                              f"{opponent.handle if opponent else challenge.opponent_email}")
            else:
                challenger = ctx.session.get(Account, challenge.challenger_id)
                offers.append(f"{challenge.id}: {challenge.variant} from {challenger.handle if challenger else '?'}"
                              f", waiting for you: accept {challenge.id} / decline {challenge.id}")
        with ctx.session.no_autoflush:
            ratings = [(get_variant(key).title, rating_of(ctx.session, account.id or 0, key))
                       for key in sorted({game.variant for game in games})]
        now = ctx.services.now()
        vacation = dict(days_left=vacation_days_left(ctx.services.config, account, now),
                        until=deadline_text(account.vacation_until) if on_vacation(account, now) else "")
        return Result(render("player/games.txt", rows=rows, offers=offers, account=account, vacation=vacation,
                             settings=settings_lines(account),
                             ratings=[f"{title}: {elo}" + (" (provisional)" if elo.provisional else "")
                                      for title, elo in ratings]))
