"""``challenge OPPONENT VARIANT [white|black|random] [days N | time M/D [double T]] [option KEY=VALUE ...]``,
and ``challenge computer VARIANT [colour] [level 1-5] [...]``, which starts a game against the engine at once."""

from __future__ import annotations

from typing import Any, ClassVar

from pbem.app.accounts import find_account
from pbem.app.challenges import check_options, issue_challenge, variant_named
from pbem.app.computer import COMPUTER_HANDLE, DEFAULT_LEVEL, start_computer_game
from pbem.app.context import CommandError, Context, Result
from pbem.clock import ClockError, TimeControl
from pbem.commands.base import IDENTIFIED
from pbem.mail.addresses import AddressKind

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


def take_level(words: list[str]) -> tuple[int, list[str]]:
    """The computer's level from ``level N`` among ``words`` (DEFAULT_LEVEL without one), and the rest."""
    for index, word in enumerate(words):
        if word.lower() == "level":
            number = words[index + 1] if index + 1 < len(words) else ""
            if not number.isdigit() or not 1 <= int(number) <= 5:
                raise CommandError(f"the computer's level is a number from 1 to 5, not {number or 'nothing'!r}")
            return int(number), words[:index] + words[index + 2:]
    return DEFAULT_LEVEL, words


class ChallengeCommand:
    name: ClassVar[str] = "challenge"
    aliases: ClassVar[tuple[str, ...]] = ("invite",)
    usage: ClassVar[str] = ("challenge OPPONENT VARIANT [white|black|random] [days N | time M/D [double T]] "
                             "[option KEY=VALUE ...]; challenge computer VARIANT [colour] [level 1-5] [...]")
    summary: ClassVar[str] = "challenge a player (handle or email address), or the computer, to a game"
    scopes: ClassVar[frozenset[AddressKind]] = IDENTIFIED
    details: ClassVar[str] = (
        "A challenge to a player waits for their \"accept N\"; an address without an\n"
        "account gets an invitation. \"computer\" is the server's engine: that game\n"
        "starts at once, the computer moves within seconds (level 1 plays quickly and\n"
        "loosely, level 5 thinks several seconds), and it is rated on a list of its\n"
        "own. It agrees to takebacks only in unrated games (option rated=no), and\n"
        "accepts a draw when it thinks it stands worse.\n\n"
        "Examples:\n"
        "  challenge alice hyperspace white days 3\n"
        "  challenge bob@example.org tri-d\n"
        "  challenge computer voidrider black level 2\n"
        "  challenge computer space-chess level 5 days 1 option rated=no"
    )

    def run(self, ctx: Context, args: list[str]) -> Result:
        account = ctx.require_account()
        if len(args) < 2:
            raise CommandError(f"usage: {self.usage}")
        who, variant_name, *rest = args
        engine = variant_named(variant_name)
        if who.lower() == COMPUTER_HANDLE:
            level, rest = take_level(rest)
            colour, time_control, options = parse_terms(rest)
            check_options(engine, options)
            return start_computer_game(ctx, account, engine, colour, level, time_control, options)
        colour, time_control, options = parse_terms(rest)
        check_options(engine, options)
        opponent = find_account(ctx, who)
        if opponent is None and "@" not in who:
            raise CommandError(f"no player with the handle {who!r}; give an email address to invite someone")
        if opponent is not None and opponent.id == account.id:
            raise CommandError("you cannot challenge yourself")
        return issue_challenge(ctx, account, opponent, engine, who.strip("<>").lower(), colour, time_control,
                               options)
