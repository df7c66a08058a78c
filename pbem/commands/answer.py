"""``accept [N]`` / ``decline [N]``: answer a challenge (N may be left out on an invitation); ``accept seek N``."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.accounts import account_by_email, create_account, free_handle_for
from pbem.app.challenges import locked_challenge
from pbem.app.context import CommandError, Context, Result
from pbem.app.games import start_game
from pbem.app.seeks import accept_seek
from pbem.commands.base import IDENTIFIED, INVITATION
from pbem.mail.addresses import AddressKind
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.models import Account, Challenge
from pbem.store.vocabulary import ChallengeStatus


def _challenge_for(ctx: Context, args: list[str]) -> Challenge:
    if ctx.challenge is not None and not args:
        assert ctx.challenge.id is not None
        return locked_challenge(ctx, ctx.challenge.id) or ctx.challenge
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        raise CommandError("say which challenge: accept N / decline N")
    challenge = locked_challenge(ctx, int(args[0].lstrip("#")))
    if challenge is None:
        raise CommandError(f"there is no challenge {args[0]}")
    return challenge


def _answerer(ctx: Context, challenge: Challenge) -> Account:
    """The account answering: the addressee of the challenge, registered now if invited."""
    if ctx.account is None and ctx.challenge is not None and ctx.challenge.id == challenge.id:
        account = account_by_email(ctx, challenge.opponent_email)
        if account is None:
            handle = free_handle_for(ctx, challenge.opponent_email)
            account = create_account(ctx, handle, challenge.opponent_email)
        ctx.account = account
    account = ctx.require_account()
    if challenge.opponent_id is None and challenge.opponent_email == account.email:
        challenge.opponent_id = account.id
    if challenge.opponent_id != account.id:
        raise CommandError(f"challenge {challenge.id} is not addressed to you")
    if challenge.status != ChallengeStatus.OPEN:
        raise CommandError(f"challenge {challenge.id} is already {challenge.status}")
    return account


class Accept:
    name: ClassVar[str] = "accept"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "accept N  /  accept seek N"
    summary: ClassVar[str] = "accept challenge N, or take open seek N (see \"seeks\"); the game starts at once"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED | {INVITATION}

    def run(self, ctx: Context, args: list[str]) -> Result:
        if args and args[0].lower() == "seek":
            if len(args) != 2 or not args[1].lstrip("#").isdigit():
                raise CommandError("say which seek: accept seek N")
            return accept_seek(ctx, ctx.require_account(), int(args[1].lstrip("#")))
        challenge = _challenge_for(ctx, args)
        account = _answerer(ctx, challenge)
        game = start_game(ctx, challenge)
        return Result(f"Challenge {challenge.id} accepted as {account.handle}: game {game.id} has started. "
                      "Its opening mail comes separately; reply to that mail to play.")


class Decline:
    name: ClassVar[str] = "decline"
    aliases: ClassVar[tuple[str, ...]] = ("refuse",)
    usage: ClassVar[str] = "decline N"
    summary: ClassVar[str] = "decline challenge N"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED | {INVITATION}

    def run(self, ctx: Context, args: list[str]) -> Result:
        challenge = _challenge_for(ctx, args)
        if ctx.account is None and ctx.challenge is not None:
            # An invitee declining needs no account: the invitation address speaks for them.
            who = challenge.opponent_email
        else:
            who = _answerer(ctx, challenge).handle
        if challenge.status != ChallengeStatus.OPEN:
            raise CommandError(f"challenge {challenge.id} is already {challenge.status}")
        challenge.status = ChallengeStatus.DECLINED
        ctx.session.add(challenge)
        challenger = ctx.session.get(Account, challenge.challenger_id)
        assert challenger is not None and challenger.id is not None
        ctx.send(Outgoing(to=challenger.email, subject=f"[pbem] challenge {challenge.id} declined",
                          body=render("player/declined.txt", challenge=challenge, who=who),
                          reply_to=ctx.services.addresses.personal(challenger.id), auto_submitted="auto-generated"))
        return Result(f"Challenge {challenge.id} declined.")
