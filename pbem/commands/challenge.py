"""``challenge OPPONENT VARIANT [white|black|random] [days N | time M/D [double T]] [option KEY=VALUE ...]``."""

from __future__ import annotations

from typing import Any, ClassVar

from sqlmodel import func, select

from pbem.app.context import CommandError, Context, Result
from pbem.app.game_options import split_options
from pbem.clock import ClockError, TimeControl
from pbem.commands.base import IDENTIFIED
from pbem.commands.register import account_by_email
from pbem.engine.base import Variant
from pbem.mail.addresses import AddressKind
from pbem.mail.compose import Outgoing
from pbem.mail.render import render
from pbem.store.models import Account, Challenge
from pbem.variants import UnknownVariantError, get_variant

COLOURS = ("white", "black", "random")


def _time_control(spec: str) -> str:
    try:
        return str(TimeControl.parse(spec, default_days=1.0))
    except ClockError as error:
        raise CommandError(str(error)) from None


def parse_terms(words: list[str]) -> tuple[str, str, dict[str, Any]]:
    """Colour, time control and options from the words after the variant."""
    colour, time_control, options = "random", "", {}
    index = 0
    while index < len(words):
        word = words[index].lower()
        if word in COLOURS:
            colour = word
        elif word == "days" and index + 1 < len(words):
            index += 1
            time_control = _time_control(f"days {words[index]}")
        elif word == "time" and index + 1 < len(words):
            index += 1
            spec = f"time {words[index]}"
            if index + 2 < len(words) and words[index + 1].lower() == "double":
                spec += f" double {words[index + 2]}"
                index += 2
            time_control = _time_control(spec)
        elif word == "option" and index + 1 < len(words):
            index += 1
            key, equals, value = words[index].partition("=")
            if not equals or not key:
                raise CommandError(f"options are written KEY=VALUE, not {words[index]!r}")
            options[key.lower()] = value
        else:
            raise CommandError(f"not understood in a challenge: {words[index]!r}")
        index += 1
    return colour, time_control, options


def find_opponent(ctx: Context, who: str) -> Account | None:
    if "@" in who:
        return account_by_email(ctx, who.strip("<>"))
    return ctx.session.exec(select(Account).where(func.lower(Account.handle) == who.lower())).first()


class ChallengeCommand:
    name: ClassVar[str] = "challenge"
    aliases: ClassVar[tuple[str, ...]] = ("invite",)
    usage: ClassVar[str] = ("challenge OPPONENT VARIANT [white|black|random] [days N | time M/D [double T]] "
                             "[option KEY=VALUE ...]")
    summary: ClassVar[str] = "challenge a player (handle or email address) to a game"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        if len(args) < 2:
            raise CommandError(f"usage: {self.usage}")
        who, variant_name, *rest = args
        try:
            engine = get_variant(variant_name)
        except UnknownVariantError as error:
            raise CommandError(str(error)) from error
        colour, time_control, options = parse_terms(rest)
        try:
            rules, _settings = split_options(options)
            get_variant(variant_name, rules).setup()  # refuses unknown or bad options now rather than at accept
        except ValueError as error:
            raise CommandError(f"bad option for {engine.title}: {error}") from error
        opponent = find_opponent(ctx, who)
        if opponent is None and "@" not in who:
            raise CommandError(f"no player with the handle {who!r}; give an email address to invite someone")
        if opponent is not None and opponent.id == account.id:
            raise CommandError("you cannot challenge yourself")
        return issue_challenge(ctx, account, opponent, engine, who.strip("<>").lower(), colour, time_control,
                               options)


def issue_challenge(ctx: Context, account: Account, opponent: Account | None, engine: Variant, email: str,
                    colour: str, time_control: str, options: dict[str, Any]) -> Result:
    """Store a challenge and mail it to the opponent (or invite ``email``); the challenger's answer."""
    challenge = Challenge(challenger_id=account.id or 0, opponent_id=opponent.id if opponent else None,
                          opponent_email=opponent.email if opponent else email,
                          variant=engine.key, color=colour, time_control=time_control, options=options)
    ctx.session.add(challenge)
    ctx.session.flush()
    assert challenge.id is not None
    terms = dict(title=engine.title, colour=colour, time_control=time_control or "default", options=options)
    if opponent is not None:
        assert opponent.id is not None
        ctx.send(Outgoing(
            to=opponent.email, subject=f"[pbem] {account.handle} challenges you ({engine.title})",
            body=render("player/challenged.txt", challenge=challenge, challenger=account, **terms),
            reply_to=ctx.services.addresses.personal(opponent.id)))
        target = opponent.handle
    else:
        ctx.send(Outgoing(
            to=challenge.opponent_email, subject=f"[pbem] {account.handle} invites you to play {engine.title}",
            body=render("player/invitation.txt", challenge=challenge, challenger=account,
                        public=ctx.services.addresses.public, **terms),
            reply_to=ctx.services.addresses.invitation(challenge.id)))
        target = f"{challenge.opponent_email} (invited: not registered yet)"
    return Result(render("player/challenge_sent.txt", challenge=challenge, target=target, **terms))
