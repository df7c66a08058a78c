"""``observe GAME`` / ``unobserve GAME``: receive (or stop) a game's public mails."""

from __future__ import annotations

from typing import ClassVar

from sqlmodel import select

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_mail import board_block, subject_of
from pbem.app.game_options import game_option
from pbem.app.observers import observer_state
from pbem.commands.base import IDENTIFIED
from pbem.engine.base import Audience
from pbem.mail.addresses import AddressKind
from pbem.store.models import Game, Observation


def _game(ctx: Context, args: list[str], usage: str) -> Game:
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        raise CommandError(f"usage: {usage}")
    game = ctx.session.get(Game, int(args[0].lstrip("#")))
    if game is None:
        raise CommandError(f"there is no game {args[0]}")
    return game


class Observe:
    name: ClassVar[str] = "observe"
    aliases: ClassVar[tuple[str, ...]] = ("watch",)
    usage: ClassVar[str] = "observe GAME"
    summary: ClassVar[str] = "receive the public mails of a game (its moves, and the result)"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        game = _game(ctx, args, self.usage)
        if account.id in (game.white_id, game.black_id):
            raise CommandError(f"you play in game {game.id}: you get its mails already")
        found = ctx.session.exec(select(Observation).where(Observation.game_id == game.id,
                                                           Observation.account_id == account.id)).first()
        if found is None:
            ctx.session.add(Observation(game_id=game.id or 0, account_id=account.id or 0))
        delay = game_option(game.options, "observer-delay")
        state = observer_state(ctx, game)
        late = f" Observers see this game {delay} moves late." if delay else ""
        return Result(f"You observe {subject_of(ctx, game)}.{late}\n\n{board_block(ctx, game, state, Audience.PUBLIC)}")


class Unobserve:
    name: ClassVar[str] = "unobserve"
    aliases: ClassVar[tuple[str, ...]] = ("unwatch",)
    usage: ClassVar[str] = "unobserve GAME"
    summary: ClassVar[str] = "stop receiving a game's mails"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        game = _game(ctx, args, self.usage)
        found = ctx.session.exec(select(Observation).where(Observation.game_id == game.id,
                                                           Observation.account_id == account.id)).first()
        if found is None:
            raise CommandError(f"you do not observe game {game.id}")
        ctx.session.delete(found)
        return Result(f"You no longer observe game {game.id}.")
