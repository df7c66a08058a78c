"""``secret TURN PIECE SQUARE``: record a Hyperspace Chess return square sent after its phase-out."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_state import engine_for
from pbem.app.games import apply_side_action
from pbem.commands.base import SEAT
from pbem.engine.capabilities import SecretKeeping
from pbem.engine.errors import MoveError
from pbem.mail.addresses import AddressKind


class SecretCommand:
    name: ClassVar[str] = "secret"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "secret TURN PIECE SQUARE   (Hyperspace Chess, e.g. secret 12 Bc1 f4)"
    summary: ClassVar[str] = "record the return square of a phase-out sent without one"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        engine = engine_for(game)
        if not isinstance(engine, SecretKeeping):
            raise CommandError(f"{engine.title} has no secrets to record")
        state = engine.load(game.state)
        try:
            transition = engine.attach_secret(state, seat, " ".join(["secret", *args]), ctx.services.new_nonce())
        except MoveError as error:
            raise CommandError(str(error)) from error
        return apply_side_action(ctx, transition, game, seat)
