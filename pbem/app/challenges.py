"""Challenges: storing one and mailing it to the opponent, or inviting an address that has no account."""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from pbem.app.clocks import control_of
from pbem.app.context import CommandError, Context, Result
from pbem.app.game_options import split_options
from pbem.engine.base import Variant
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.models import Account, Challenge
from pbem.variants import UnknownVariantError, get_variant

__all__ = ["check_options", "issue_challenge", "locked_challenge", "variant_named"]


def locked_challenge(ctx: Context, number: int) -> Challenge | None:
    """Challenge (or seek) ``number``, locked to the end of the transaction and read afresh: two answers to it at
    once, on two instances, must not both find it open; the second waits for the first's commit."""
    statement = select(Challenge).where(Challenge.id == number).with_for_update()
    return ctx.session.exec(statement.execution_options(populate_existing=True)).first()


def issue_challenge(ctx: Context, account: Account, opponent: Account | None, engine: Variant[Any, Any], email: str,
                    colour: str, time_control: str, options: dict[str, Any]) -> Result:
    """Store a challenge and mail it to the opponent (or invite ``email``); the challenger's answer."""
    challenge = Challenge(challenger_id=account.id or 0, opponent_id=opponent.id if opponent else None,
                          opponent_email=opponent.email if opponent else email,
                          variant=engine.key, color=colour, time_control=time_control, options=options)
    ctx.session.add(challenge)
    ctx.session.flush()
    assert challenge.id is not None
    # The time control in words, the server's default spelled out: the players must know what they accept.
    described = control_of(ctx.services.config, time_control).describe()
    terms = dict(title=engine.title, colour=colour, time_control=described, options=options)
    if opponent is not None:
        assert opponent.id is not None
        ctx.send(Outgoing(
            to=opponent.email, subject=f"[pbem] {account.handle} challenges you ({engine.title})",
            body=render("player/challenged.txt", challenge=challenge, challenger=account, **terms),
            reply_to=ctx.services.addresses.personal(opponent.id), auto_submitted="auto-generated"))
        target = opponent.handle
    else:
        ctx.send(Outgoing(
            to=challenge.opponent_email, subject=f"[pbem] {account.handle} invites you to play {engine.title}",
            body=render("player/invitation.txt", challenge=challenge, challenger=account,
                        public=ctx.services.addresses.public, **terms),
            reply_to=ctx.services.addresses.invitation(challenge.id), auto_submitted="auto-generated"))
        target = f"{challenge.opponent_email} (invited: not registered yet)"
    return Result(render("player/challenge_sent.txt", challenge=challenge, target=target, **terms))


def variant_named(name: str) -> Variant[Any, Any]:
    """The engine of variant ``name`` (key or alias), or a CommandError naming the known ones."""
    try:
        return get_variant(name)
    except UnknownVariantError as error:
        raise CommandError(str(error)) from error


def check_options(engine: Variant[Any, Any], options: dict[str, Any]) -> None:
    """Refuse bad game options now rather than when the challenge is accepted."""
    try:
        rules, _ = split_options(options)
        get_variant(engine.key, rules).setup()  # the variant's own options are validated at setup
    except ValueError as error:
        raise CommandError(f"bad option for {engine.title}: {error}") from error
