"""``register HANDLE``: create an account for the sender, or re-send its welcome."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.accounts import account_by_email, create_account
from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import ANYWHERE
from pbem.mail.addresses import AddressKind
from pbem.mail.render import render
from pbem.store.models import Account


def welcome(ctx: Context, account: Account, again: bool) -> Result:
    assert account.id is not None
    ctx.reply_from = ctx.services.addresses.personal(account.id)
    ctx.account = account
    return Result(render("player/welcome.txt", account=account, again=again,
                         public=ctx.services.addresses.public))


class Register:
    name: ClassVar[str] = "register"
    aliases: ClassVar[tuple[str, ...]] = ("subscribe",)
    usage: ClassVar[str] = "register HANDLE"
    summary: ClassVar[str] = "create your account (send to the public address)"
    scopes: ClassVar[frozenset[AddressKind]] = ANYWHERE

    def run(self, ctx: Context, args: list[str]) -> Result:
        if ctx.account is not None:
            email = ctx.account.email
        elif ctx.challenge is not None:
            email = ctx.challenge.opponent_email  # an invitee: the invited address, not the From
        else:
            email = ctx.mail.sender
        if not email:
            raise CommandError("your mail has no usable From address to register")
        existing = ctx.account or account_by_email(ctx, email)
        if existing is not None:
            return welcome(ctx, existing, again=True)
        if len(args) != 1:
            raise CommandError(f"usage: {self.usage}")
        return welcome(ctx, create_account(ctx, args[0], email), again=False)
