"""``vacation DAYS`` / ``vacation off``: pause the sender's clocks in all games, within a yearly allowance."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import ClassVar

from pbem.app.account_news import tell_opponents
from pbem.app.clocks import on_vacation, vacation_days_left
from pbem.app.context import CommandError, Context, Result
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind
from pbem.store.models import Account

STAMP = "%Y-%m-%d %H:%M UTC"


class Vacation:
    name: ClassVar[str] = "vacation"
    aliases: ClassVar[tuple[str, ...]] = ("leave",)
    usage: ClassVar[str] = "vacation DAYS | vacation off"
    summary: ClassVar[str] = "pause your clocks in all games for DAYS days (yearly allowance), or end it early"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        # Imported here: the sweep module imports the command layer.
        from pbem.app.clocks import pause_clocks, resume_clocks

        account = ctx.require_account()
        now = ctx.services.now()
        config = ctx.services.config
        if account.vacation_year != now.year:
            account.vacation_year, account.vacation_used_days = now.year, 0
        if len(args) != 1:
            raise CommandError(f"usage: {self.usage}")
        if args[0].lower() == "off":
            if not on_vacation(account, now):
                raise CommandError("you are not on vacation")
            assert account.vacation_until is not None
            unused = math.floor((account.vacation_until - now).total_seconds() / 86400)
            account.vacation_used_days = max(0, account.vacation_used_days - unused)
            account.vacation_until = None
            ctx.session.add(account)
            resume_clocks(ctx, account, now)
            self._tell_opponents(ctx, account, f"{account.handle} is back from vacation; their clocks run again.",
                                 "is back from vacation")
            return Result(f"Welcome back: your clocks run again. Vacation days left this year: "
                          f"{vacation_days_left(config, account, now)}.")
        try:
            days = int(args[0])
        except ValueError:
            raise CommandError(f"vacation takes a whole number of days or 'off', not {args[0]!r}") from None
        left = vacation_days_left(config, account, now)
        if on_vacation(account, now):
            assert account.vacation_until is not None
            raise CommandError(f"you are already on vacation until {account.vacation_until.strftime(STAMP)}; "
                               f"send 'vacation off' first to change it")
        if not 1 <= days <= left:
            raise CommandError(f"you can take 1 to {left} vacation days (you have {left} left this year)"
                               if left else "you have no vacation days left this year")
        account.vacation_used_days += days
        account.vacation_until = now + timedelta(days=days)
        ctx.session.add(account)
        pause_clocks(ctx, account, now)
        until = account.vacation_until.strftime(STAMP)
        games = self._tell_opponents(ctx, account, f"{account.handle} is on vacation until {until}; "
                                                  f"their clocks are paused until then.", "is on vacation")
        return Result(f"Vacation until {until}: your clocks are paused in {games} game(s). "
                      f"Vacation days left this year: {vacation_days_left(config, account, now)}.")

    def _tell_opponents(self, ctx: Context, account: Account, news: str, topic: str) -> int:
        from pbem.app.clocks import player_games

        games = player_games(ctx, account)
        tell_opponents(ctx, account, games, news, topic)
        return len(games)
