"""``rematch``: after a finished game, challenge the same opponent again with the colours swapped."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.challenges import issue_challenge
from pbem.app.computer import start_computer_game
from pbem.app.context import CommandError, Context, Result
from pbem.app.game_state import computer_level, computer_seat, engine_for, player_id
from pbem.commands.base import SEAT
from pbem.mail.addresses import AddressKind
from pbem.store.vocabulary import GameStatus


class Rematch:
    name: ClassVar[str] = "rematch"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "rematch"
    summary: ClassVar[str] = "challenge the opponent of this finished game again, colours swapped, same terms"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_game()
        if game.status == GameStatus.ACTIVE:
            raise CommandError(f"game {game.id} is still being played; rematch after it is over")
        account = ctx.require_account()
        if computer_seat(game) is seat.other:  # the computer is always ready: the game starts at once
            return start_computer_game(ctx, account, engine_for(game), seat.other.value, computer_level(game),
                                       game.time_control, dict(game.options))
        opponent = ctx.account_by_id(player_id(game, seat.other))
        if opponent is None:
            raise CommandError("your opponent's account no longer exists")
        return issue_challenge(ctx, account, opponent, engine_for(game), opponent.email, seat.other.value,
                               game.time_control, dict(game.options))
