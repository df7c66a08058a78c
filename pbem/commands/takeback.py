"""``takeback``: ask to take back your last move, or agree to the opponent's request; ``takeback no`` refuses."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.computer import answer_takeback
from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import board_block, game_mail
from pbem.app.game_state import computer_seat, engine_for, records
from pbem.app.games import take_back
from pbem.commands.base import SEAT
from pbem.engine.base import Seat
from pbem.mail.addresses import AddressKind
from pbem.store.models import Game


class Takeback:
    name: ClassVar[str] = "takeback"
    aliases: ClassVar[tuple[str, ...]] = ("undo",)
    usage: ClassVar[str] = "takeback [no]"
    summary: ClassVar[str] = "ask to take back your last move (the opponent agrees with 'takeback'); 'no' refuses"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        pending = game.extras.get("takeback")
        if args and args[0].lower() in ("no", "decline", "refuse"):
            if pending != seat.other.value:
                raise CommandError("there is no takeback request of your opponent to refuse")
            game.extras = {k: v for k, v in game.extras.items() if k != "takeback"}
            ctx.session.add(game)
            ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt",
                               headline="Your takeback request was refused.", lines=[]))
            return Result("Takeback refused; the game goes on.")
        if pending == seat.other.value:
            return self._agree(ctx, game, seat)
        if pending == seat.value:
            return Result("Your takeback request already stands.")
        target = self._target(ctx, game, seat)
        if target is None:
            raise CommandError("you have no move to take back yet")
        if computer_seat(game) is seat.other:  # the computer answers at once
            refusal = answer_takeback(ctx, game)
            if refusal is not None:
                raise CommandError(refusal)
            game.extras = {**game.extras, "takeback": seat.value}
            return self._agree(ctx, game, seat.other, computer_agrees=True)
        game.extras = {**game.extras, "takeback": seat.value}
        ctx.session.add(game)
        ctx.send(game_mail(ctx, game, seat.other, "player/notice.txt",
                           headline="Your opponent asks to take back their last move.", lines=[
                               "Reply 'takeback' to agree, 'takeback no' to refuse; a move of yours "
                               "refuses it too."]))
        return Result("Takeback requested; your opponent has to agree.")

    def _target(self, ctx: Context, game: Game, seat: Seat) -> int | None:
        """The ply to return to: just before ``seat``'s last move (None when it has made none)."""
        rows = records(ctx, game)
        for row in reversed(rows):
            if row.seat == seat.value:
                return row.ply - 1
        return None

    def _agree(self, ctx: Context, game: Game, seat: Seat, computer_agrees: bool = False) -> Result:
        """``seat`` agrees to its opponent's request (the computer: the asker gets the answer as the reply)."""
        asker = seat.other
        target = self._target(ctx, game, asker)
        if target is None:
            raise CommandError("there is no move left to take back")
        state = take_back(ctx, game, target)
        engine = engine_for(game)
        to_move = engine.to_act(state)
        line = f"Takeback agreed: the game is back at move {engine.move_number(state)}, {to_move} to play."
        if computer_agrees:
            return Result(f"{line}\n\n{board_block(ctx, game, state, asker)}", headline=line)
        ctx.send(game_mail(ctx, game, asker, "player/notice.txt", headline=line,
                           lines=[board_block(ctx, game, state, asker)]))
        return Result(f"{line}\n\n{board_block(ctx, game, state, seat)}", headline=line)
