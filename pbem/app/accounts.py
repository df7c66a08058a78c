"""Accounts: handles, creating an account, and finding one by address or handle."""

from __future__ import annotations

import re

from sqlmodel import col, func, select

from pbem.app.context import CommandError, Context
from pbem.store.models import Account

__all__ = ["HANDLE", "RESERVED_HANDLES", "account_by_email", "create_account", "find_account", "free_handle_for"]

#: A handle: 2 to 32 characters, letters, digits, '.', '_' or '-', starting with a letter.
HANDLE = re.compile(r"^[a-z][a-z0-9_.-]{1,31}$")
#: Handles nobody may register: 'challenge computer' must always mean the server's engine.
RESERVED_HANDLES = frozenset({"computer", "pbem-computer"})


def create_account(ctx: Context, handle: str, email: str) -> Account:
    """A new account, after checking the handle is well formed and free."""
    handle = handle.lower()
    if not HANDLE.match(handle):
        raise CommandError(
            f"{handle!r} is not a valid handle: 2 to 32 characters, letters, digits, '.', '_' or '-', "
            "starting with a letter"
        )
    if handle in RESERVED_HANDLES:
        raise CommandError(f"the handle {handle!r} is reserved for the server's engine (play it with "
                           "'challenge computer VARIANT'); choose another")
    taken = ctx.session.exec(select(Account.id).where(func.lower(Account.handle) == handle)).first()
    if taken is not None:
        raise CommandError(f"the handle {handle!r} is taken; choose another")
    account = Account(handle=handle, email=email.lower())
    ctx.session.add(account)
    ctx.session.flush()
    return account


def account_by_email(ctx: Context, email: str) -> Account | None:
    return ctx.session.exec(select(Account).where(Account.email == email.lower())).first()


def find_account(ctx: Context, who: str) -> Account | None:
    """The account ``who`` names: an email address (in angle brackets or not) or a handle."""
    if "@" in who:
        return account_by_email(ctx, who.strip("<>"))
    return ctx.session.exec(select(Account).where(func.lower(Account.handle) == who.lower())).first()


def free_handle_for(ctx: Context, email: str) -> str:
    """A free handle made from the address's local part, for an invitee who chose none."""
    base = "".join(ch for ch in email.split("@")[0].lower() if ch.isalnum() or ch in "._-").lstrip("._-")
    base = (base if base[:1].isalpha() else f"p{base}")[:28] or "player"
    candidate, number = (base, 1) if base not in RESERVED_HANDLES else (f"{base}2", 2)
    while ctx.session.exec(select(Account.id).where(col(Account.handle) == candidate)).first() is not None:
        number += 1
        candidate = f"{base}{number}"
    return candidate
