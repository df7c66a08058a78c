"""`pbem event ...`: the organiser's commands (create, add, start, standings, crosstable, list, withdraw, adjudicate).

Each command opens the database from the configuration, works in one
transaction, and leaves its mails in the outbox, which a running
`pbem serve` delivers. The database stack is imported inside the handlers,
so the engine tools of `pbem` stay light.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from pbem.store.vocabulary import EventFormat

if TYPE_CHECKING:
    from pbem.app.context import Context
    from pbem.store.event_models import Event

__all__ = ["add_event_parser", "run_event_command"]

_FORMATS = tuple(fmt.value for fmt in EventFormat)  # values: argparse shows repr() of choices in errors


class _Failure(Exception):
    """An organiser's mistake: printed as ``pbem: ...``, exit status 1."""


@contextmanager
def _context(args: argparse.Namespace) -> Iterator[Context]:
    """One transaction with a Context like the worker's; its mails are queued in the outbox on success."""
    from pbem.app.context import Context
    from pbem.app.secrecy import queue_outgoing
    from pbem.config import ConfigError, load_config
    from pbem.startup import build_services
    from pbem.store.db import Database

    try:
        config = load_config(args.config)
    except ConfigError as error:
        raise _Failure(str(error)) from error
    database = Database(config.database.url)
    try:
        database.create_all()
        services = build_services(config, database)
        with database.transaction() as session:
            ctx = Context(session=session, services=services)
            yield ctx
            queue_outgoing(ctx)
    finally:
        database.dispose()


def _event(ctx: Context, name: str) -> Event:
    from pbem.events.entries import find_event

    return find_event(ctx, name)


def cmd_create(args: argparse.Namespace) -> str:
    from pbem.cli.main import parse_options
    from pbem.events.entries import create_event

    with _context(args) as ctx:
        event = create_event(ctx, args.name, args.variant, args.format, args.time or "", args.rounds or 0,
                             args.tiebreaks or (), args.games, args.knockout_tiebreak, args.round_days,
                             dict(parse_options(args.game_option)), organiser=args.organiser or "")
        organiser = f" Its organiser {args.organiser} may send 'analyse GAME' about any of its games." \
            if args.organiser else ""
        return (f"Event {event.name} created ({event.variant}, {args.format}); registration is open: "
                f"players send 'join {event.name}', or add them with 'pbem event add {event.name} PLAYER...'."
                f"{organiser}")


def cmd_add(args: argparse.Namespace) -> str:
    from pbem.events.entries import add_players

    with _context(args) as ctx:
        return "\n".join(add_players(ctx, _event(ctx, args.name), args.players))


def cmd_start(args: argparse.Namespace) -> str:
    from pbem.events.running import start_event

    with _context(args) as ctx:
        return start_event(ctx, _event(ctx, args.name))


def cmd_standings(args: argparse.Namespace) -> str:
    from pbem.events.store import load
    from pbem.events.tables import standings_table, summary

    with _context(args) as ctx:
        data = load(ctx.session, _event(ctx, args.name))
        return f"{summary(data)}\n\n{standings_table(data)}"


def cmd_crosstable(args: argparse.Namespace) -> str:
    from pbem.events.store import load
    from pbem.events.tables import crosstable, summary

    with _context(args) as ctx:
        data = load(ctx.session, _event(ctx, args.name))
        return f"{summary(data)}\n\n{crosstable(data)}"


def cmd_list(args: argparse.Namespace) -> str:
    from pbem.events.organiser import list_events

    with _context(args) as ctx:
        return "\n".join(list_events(ctx)) or "(no events)"


def cmd_withdraw(args: argparse.Namespace) -> str:
    from pbem.events.organiser import withdraw

    with _context(args) as ctx:
        return withdraw(ctx, _event(ctx, args.name), args.player)


def cmd_adjudicate(args: argparse.Namespace) -> str:
    from pbem.events.organiser import adjudicate, position_report

    number = args.game.lstrip("#")
    if not number.isdigit():
        raise _Failure(f"a game is named by its number, not {args.game!r}")
    if args.seconds <= 0:
        raise _Failure(f"--seconds must be more than 0, not {args.seconds:g}")
    with _context(args) as ctx:
        event = _event(ctx, args.name)
        report = position_report(ctx, event, int(number), args.seconds)
        if args.result is None:
            return f"{report}\n\nTo decide it: pbem event adjudicate {event.name} {number} 1-0|0-1|1/2-1/2"
        return f"{report}\n\n{adjudicate(ctx, event, int(number), args.result)}"


def run_event_command(handler: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> int:
    """Run one handler: its report on stdout and 0, or ``pbem: reason`` on stderr and 1."""
    from pbem.events.errors import EventError

    try:
        print(handler(args))
    except (_Failure, EventError) as error:
        print(f"pbem: {error}", file=sys.stderr)
        return 1
    return 0


def add_event_parser(subparsers: Any) -> None:
    """Add `event` and its subcommands to the `pbem` parser's ``subparsers``."""
    event = subparsers.add_parser("event", help="tournament organiser commands (create, add, start, standings, ...)")
    commands = event.add_subparsers(dest="event_command", required=True)

    def command(name: str, handler: Callable[[argparse.Namespace], str], text: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, help=text, description=text)
        parser.add_argument("--config", help="TOML configuration file (default: ./pbem.toml if present)")
        parser.set_defaults(func=lambda args: run_event_command(handler, args))
        return parser

    create = command("create", cmd_create, "create an event; its registration opens at once")
    create.add_argument("name", metavar="NAME")
    create.add_argument("--variant", required=True, help="the variant every game is played in")
    create.add_argument("--format", required=True, choices=_FORMATS)
    create.add_argument("--time", metavar="CONTROL", help="'days N' or 'time M/D [double T]' (default: the server's)")
    create.add_argument("--rounds", type=int, metavar="N",
                        help="Swiss: the number of rounds (default: log2 of the number of players, rounded up)")
    create.add_argument("--tiebreaks", nargs="+", metavar="TIEBREAK",
                        help="in order, from wins (Baumbach), sb (Sonneborn-Berger), buchholz, median, h2h "
                             "(default: wins sb h2h for round robins, buchholz median sb wins for Swiss)")
    create.add_argument("--games", type=int, default=2, metavar="N", help="knockout: games per match (default 2)")
    create.add_argument("--knockout-tiebreak", default="extra", choices=("extra", "seed", "lot"),
                        help="knockout: how a tied match is decided (default: extra pairs of games)")
    create.add_argument("--round-days", type=float, metavar="DAYS",
                        help="Swiss / knockout: a deadline for each round, after which the organiser adjudicates")
    create.add_argument("--organiser", "--organizer", metavar="PLAYER",
                        help="the organiser's handle or address: may mail 'analyse GAME' about any game of the event")
    # Not -o/--option: pbem.cli.options_first moves those words before the subcommand.
    create.add_argument("--game-option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option for every game, as in `challenge ... option KEY=VALUE` (repeatable)")

    add = command("add", cmd_add, "enter players (handles or addresses; unregistered addresses are invited)")
    add.add_argument("name", metavar="NAME")
    add.add_argument("players", nargs="+", metavar="PLAYER")

    for name, handler, text in (("start", cmd_start, "close registration and start the games"),
                                ("standings", cmd_standings, "print the standings"),
                                ("crosstable", cmd_crosstable, "print the crosstable (a knockout's bracket)")):
        command(name, handler, text).add_argument("name", metavar="NAME")
    command("list", cmd_list, "list the events and where they stand")

    withdraw = command("withdraw", cmd_withdraw, "withdraw a player (results annulled or games forfeited)")
    withdraw.add_argument("name", metavar="NAME")
    withdraw.add_argument("player", metavar="PLAYER", help="handle or address")

    adjudicate = command("adjudicate", cmd_adjudicate,
                         "decide an unfinished game of the event; the position and the engine's view are shown first")
    adjudicate.add_argument("name", metavar="NAME")
    adjudicate.add_argument("game", metavar="GAME", help="the game number")
    adjudicate.add_argument("result", metavar="RESULT", nargs="?",
                            help="1-0, 0-1 or 1/2-1/2 (without it: only the position and the engine's view)")
    adjudicate.add_argument("--seconds", type=float, default=5.0, metavar="S",
                            help="how long the engine thinks about the position (default 5)")
