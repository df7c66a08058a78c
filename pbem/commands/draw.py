"""``draw``: offer a draw, accept the opponent's offer, or claim one the rules allow."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.computer_due import refresh_computer_due
from pbem.app.context import CommandError, Context, Result
from pbem.app.game_options import game_option
from pbem.app.game_state import engine_for
from pbem.app.games import announce_offer, finish_game
from pbem.commands.base import SEAT
from pbem.engine.base import Outcome
from pbem.mail.addresses import AddressKind


class Draw:
    name: ClassVar[str] = "draw"
    aliases: ClassVar[tuple[str, ...]] = ("offer-draw",)
    usage: ClassVar[str] = "draw"
    summary: ClassVar[str] = "offer a draw, accept the opponent's offer, or claim a draw (50 moves, repetition)"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        if game.draw_offer == seat.other.value:
            return finish_game(ctx, game, Outcome.draw("agreement"), by=seat)
        engine = engine_for(game)
        state = engine.load(game.state)
        if engine.to_act(state) is seat:
            claim = engine.claim_draw(state)
            if claim is not None:
                return finish_game(ctx, game, claim, by=seat)
        if game.draw_offer == seat.value:
            return Result("Your draw offer already stands.")
        number = engine.move_number(state)
        limit = game_option(game.options, "draw-limit")
        offered = dict(game.extras.get("draw_offered_at", {}))
        last = offered.get(seat.value)
        if limit and last is not None and number < last + limit:
            raise CommandError(f"this game allows one draw offer in {limit} moves (option draw-limit); "
                               f"your last was at move {last}, the next is possible from move {last + limit}")
        offered[seat.value] = number
        game.extras = {**game.extras, "draw_offered_at": offered}
        game.draw_offer = seat.value
        game.version += 1
        refresh_computer_due(game, engine, state, ctx.services.now())  # the computer answers offers
        ctx.session.add(game)
        announce_offer(ctx, game, seat)
        return Result("Draw offered. It stands until your opponent accepts with 'draw' or makes a move.")
