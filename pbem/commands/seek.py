"""``seek VARIANT [...] [rated-between LOW HIGH]``, ``seek withdraw N`` / ``unseek N``, ``seeks``: open challenges."""

from __future__ import annotations

from typing import ClassVar

from pbem.app.challenges import check_options, variant_named
from pbem.app.context import CommandError, Context, Result
from pbem.app.seeks import list_seeks, post_seek, withdraw_seek
from pbem.commands.base import ANYWHERE, IDENTIFIED
from pbem.commands.challenge import parse_terms
from pbem.mail.addresses import AddressKind


def _number(args: list[str], usage: str) -> int:
    if len(args) != 1 or not args[0].lstrip("#").isdigit():
        raise CommandError(f"say which seek: {usage}")
    return int(args[0].lstrip("#"))


def _rating_range(words: list[str]) -> tuple[list[str], tuple[int, int] | None]:
    """The words without ``rated-between LOW HIGH``, and that range."""
    for index, word in enumerate(words):
        if word.lower() != "rated-between":
            continue
        bounds = words[index + 1:index + 3]
        if len(bounds) != 2 or not all(b.isdigit() for b in bounds):
            raise CommandError("a rating range is written rated-between LOW HIGH, e.g. rated-between 1400 1700")
        low, high = int(bounds[0]), int(bounds[1])
        if low > high:
            raise CommandError(f"rated-between {low} {high}: the lower bound comes first")
        return words[:index] + words[index + 3:], (low, high)
    return words, None


class Seek:
    name: ClassVar[str] = "seek"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = ("seek VARIANT [white|black|random] [days N | time M/D [double T]] [option KEY=VALUE ...] "
                             "[rated-between LOW HIGH]  /  seek withdraw N")
    summary: ClassVar[str] = ("post an open challenge anyone may accept (\"seeks\" lists them), optionally only for "
                              "players rated LOW to HIGH; \"seek withdraw N\" takes it back")
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = (
        "A seek is a challenge to nobody in particular: any registered player may take\n"
        "it with \"accept seek N\" and the game starts at once. It lapses after the\n"
        "server's seek_days (7 unless the operator changed it) and you are told.\n\n"
        "Examples:\n"
        "  seek hyperspace\n"
        "  seek tri-d black days 5\n"
        "  seek voidrider random time 30/3 option rated=no\n"
        "  seek space-chess white rated-between 1400 1700\n"
        "  seek withdraw 12"
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        if not args:
            raise CommandError(f"usage: {self.usage}")
        if args[0].lower() == "withdraw":
            return withdraw_seek(ctx, account, _number(args[1:], "seek withdraw N"))
        variant_name, *rest = args
        engine = variant_named(variant_name)
        rest, rating_range = _rating_range(rest)
        colour, time_control, options = parse_terms(rest)
        check_options(engine, options)
        return post_seek(ctx, account, engine, colour, time_control, options, rating_range)


class Unseek:
    name: ClassVar[str] = "unseek"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "unseek N"
    summary: ClassVar[str] = "withdraw your seek N (the same as \"seek withdraw N\")"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = "Example:\n  unseek 12"

    def run(self, ctx: Context, args: list[str]) -> Result:
        return withdraw_seek(ctx, ctx.require_account(), _number(args, self.usage))


class Seeks:
    name: ClassVar[str] = "seeks"
    aliases: ClassVar[tuple[str, ...]] = ()
    usage: ClassVar[str] = "seeks"
    summary: ClassVar[str] = "list the open seeks (at any address, the public one too); take one with \"accept seek N\""
    scopes: ClassVar[frozenset[AddressKind]] = ANYWHERE
    details: ClassVar[str] = (
        "Each seek shows who posted it (with their rating in that variant), the variant,\n"
        "colour, time control, options and until when it is open.\n\n"
        "Examples:\n"
        "  seeks                (to any address, the public one too)\n"
        "  accept seek 3        (to your personal address: the game starts)"
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        return list_seeks(ctx)
