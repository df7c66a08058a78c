"""`pbem admin ...`: the operator's commands (games, players, settle/abort, the mail queues, purge, backup).

Each command opens the database from the configuration (`--config`, as `pbem serve`), works in one
transaction, prints plain text and exits 0, or prints ``pbem: reason`` and exits 1. Mails it makes
(settle, abort) wait in the outbox for a running `pbem serve`. The database stack is imported inside the
handlers, so the engine tools of `pbem` stay light.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from pbem.app.context import Context
    from pbem.config import Config
    from pbem.store.db import Database

__all__ = ["add_admin_parser", "run_admin_command"]

class _Failure(Exception):
    """An operator's mistake or a refusal: printed as ``pbem: ...``, exit status 1."""


class _Parser(argparse.ArgumentParser):
    """A subcommand's parser whose usage errors exit 1 like every other refusal of `pbem admin`."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _config(args: argparse.Namespace) -> Config:
    from pbem.config import ConfigError, load_config

    try:
        return load_config(args.config)
    except ConfigError as error:
        raise _Failure(str(error)) from error


@contextmanager
def _database(config: Config) -> Iterator[Database]:
    """The configured database, brought up to date; an absent SQLite file is an error, never created."""
    from sqlalchemy.exc import SQLAlchemyError

    from pbem.store.backup import sqlite_path
    from pbem.store.db import Database

    path = sqlite_path(config.database.url)
    if path is not None and not path.exists():
        raise _Failure(f"no database at {path} (see [database] url in the configuration)")
    database = Database(config.database.url)
    try:
        database.create_all()
        yield database
    except SQLAlchemyError as error:
        raise _Failure(f"the database said: {str(error).splitlines()[0]}") from error
    finally:
        database.dispose()


@contextmanager
def _context(args: argparse.Namespace, write: bool = True) -> Iterator[Context]:
    """One transaction with a Context like the sweep's; the mails it made are queued in the outbox on success.

    Reports (``write`` False) read without the write lock, beside a busy server.
    """
    from pbem.app.context import CommandError, Context
    from pbem.app.secrecy import queue_outgoing
    from pbem.startup import build_services

    config = _config(args)
    try:
        with _database(config) as database:
            services = build_services(config, database)
            with database.transaction() if write else database.read() as session:
                ctx = Context(session=session, services=services)
                yield ctx
                if write:
                    queue_outgoing(ctx)
    except CommandError as error:
        raise _Failure(str(error)) from error


def _number(text: str, what: str = "a game") -> int:
    number = text.lstrip("#")
    if not number.isdigit():
        raise _Failure(f"{what} is named by its number, not {text!r}")
    return int(number)


# -- games and players -------------------------------------------------------------------------


def cmd_games(args: argparse.Namespace) -> str:
    from pbem.app.operator import require_account
    from pbem.cli.admin_reports import games_report

    status = "active" if args.active else "finished" if args.finished else None
    with _context(args, write=False) as ctx:
        player = require_account(ctx, args.player) if args.player else None
        return games_report(ctx, status, player)


def cmd_game(args: argparse.Namespace) -> str:
    from pbem.app.operator import require_game
    from pbem.cli.admin_reports import game_report

    with _context(args, write=False) as ctx:
        return game_report(ctx, require_game(ctx, _number(args.game), lock=False))


def cmd_players(args: argparse.Namespace) -> str:
    from pbem.cli.admin_reports import players_report

    with _context(args, write=False) as ctx:
        return players_report(ctx)


def cmd_player(args: argparse.Namespace) -> str:
    from pbem.app.operator import change_email, rename_account, require_account, set_disabled

    needs_value = args.action in ("rename", "email")
    if needs_value and not args.value:
        what = "handle" if args.action == "rename" else "address"
        raise _Failure(f"'player {args.handle} {args.action}' needs the new {what}")
    if not needs_value and args.value:
        raise _Failure(f"'player {args.handle} {args.action}' takes nothing after it, not {args.value!r}")
    with _context(args) as ctx:
        account = require_account(ctx, args.handle)
        if args.action == "rename":
            return rename_account(ctx, account, args.value)
        if args.action == "email":
            return change_email(ctx, account, args.value)
        return set_disabled(ctx, account, args.action == "disable")


def cmd_settle(args: argparse.Namespace) -> str:
    from pbem.app.operator import require_game, settle_game

    with _context(args) as ctx:
        return settle_game(ctx, require_game(ctx, _number(args.game)), args.result, args.reason)


def cmd_abort(args: argparse.Namespace) -> str:
    from pbem.app.operator import abort_game, require_game

    with _context(args) as ctx:
        return abort_game(ctx, require_game(ctx, _number(args.game)), args.reason or "")


# -- the mail queues ---------------------------------------------------------------------------


def cmd_queue(args: argparse.Namespace) -> str:
    from pbem.cli.admin_reports import queue_report
    from pbem.store.queues import queue_counts

    with _context(args, write=False) as ctx:
        return queue_report(queue_counts(ctx.session), ctx.services.now())


def cmd_failed(args: argparse.Namespace) -> str:
    from pbem.cli.admin_reports import failed_report
    from pbem.store.queues import failed_inbox, failed_outbox

    with _context(args, write=False) as ctx:
        return failed_report(failed_inbox(ctx.session), failed_outbox(ctx.session), full=args.full)


def cmd_requeue(args: argparse.Namespace) -> str:
    from pbem.store.models import InboxItem
    from pbem.store.queues import requeue_failed

    if args.all == (args.id is not None):
        raise _Failure("name one failed mail (requeue ID) or all of them (requeue --all)")
    item_id = None if args.all else _number(args.id, "a mail")
    with _database(_config(args)) as database:
        done = requeue_failed(database, item_id)
        if item_id is not None and not done:
            with database.read() as session:
                item = session.get(InboxItem, item_id)
                status = item.status if item is not None else None
            if status is None:
                raise _Failure(f"no inbox mail {item_id}")
            raise _Failure(f"inbox mail {item_id} is {status}, not failed: only failed mails are requeued")
    if not done:
        return "No failed mails to requeue."
    return (f"Requeued {len(done)} mail{'s' if len(done) != 1 else ''} ({', '.join(map(str, done))}): "
            "the worker of a running 'pbem serve' processes them again.")


def _retention_days(config: Config) -> tuple[float, float]:
    """The configured [retention] days (inbound, outbound)."""
    return config.retention.inbound_days, config.retention.outbound_days


def cmd_purge(args: argparse.Namespace) -> str:
    from pbem.store.models import utcnow
    from pbem.store.retention import purge_old_mail

    config = _config(args)
    inbound_days, outbound_days = _retention_days(config)
    inbound_days = args.inbound_days if args.inbound_days is not None else inbound_days
    outbound_days = args.outbound_days if args.outbound_days is not None else outbound_days
    if inbound_days < 0 or outbound_days < 0:
        raise _Failure("days are 0 or more")
    with _database(config) as database:
        purged = purge_old_mail(database, utcnow(), inbound_days, outbound_days)
    return (f"Emptied the bodies of {purged.inbound} processed inbound mails older than {inbound_days:g} days "
            f"and {purged.outbound} sent outbound mails older than {outbound_days:g} days. Their rows and "
            "Message-IDs stay (duplicates are still recognised); games and records are never purged.")


def cmd_backup(args: argparse.Namespace) -> str:
    from pbem.store.backup import BackupError, backup_sqlite, sqlite_path

    config = _config(args)
    source = sqlite_path(config.database.url)
    if source is None:
        raise _Failure("pbem admin backup copies a SQLite database; for PostgreSQL use its own tool: "
                       "pg_dump --format=custom --file=FILE DATABASE while the server runs, "
                       "and pg_restore --clean --dbname=DATABASE FILE to restore")
    target = Path(args.file)
    try:
        size = backup_sqlite(source, target)
    except BackupError as error:
        raise _Failure(str(error)) from error
    return (f"Backed up {source} to {target} ({size} bytes), a consistent copy of the live database.\n"
            f"To restore it: stop 'pbem serve', remove {source}-wal and {source}-shm if they are there, "
            f"copy {target} over {source}, and start 'pbem serve' again.")


# -- the parser --------------------------------------------------------------------------------


def run_admin_command(handler: Callable[[argparse.Namespace], str], args: argparse.Namespace) -> int:
    """Run one handler: its report on stdout and 0, or ``pbem: reason`` on stderr and 1."""
    try:
        print(handler(args))
    except _Failure as error:
        print(f"pbem: {error}", file=sys.stderr)
        return 1
    return 0


def _no_command(admin: argparse.ArgumentParser) -> int:
    admin.print_help(sys.stderr)
    print("pbem: name an admin command", file=sys.stderr)
    return 1


def add_admin_parser(subparsers: Any) -> None:
    """Add `admin` and its subcommands to the `pbem` parser's ``subparsers``."""
    admin = subparsers.add_parser("admin", help="operator commands (games, players, queues, purge, backup, ...)",
                                  description="The operator's commands; each takes --config like 'pbem serve'. "
                                              "Times are UTC.")
    commands = admin.add_subparsers(dest="admin_command", metavar="COMMAND", parser_class=_Parser)
    admin.set_defaults(func=lambda _args: _no_command(admin))

    def command(name: str, handler: Callable[[argparse.Namespace], str], text: str,
                epilog: str | None = None) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = commands.add_parser(name, help=text, description=text, epilog=epilog)
        parser.add_argument("--config", help="TOML configuration file (default: ./pbem.toml if present)")
        parser.set_defaults(func=lambda args: run_admin_command(handler, args))
        return parser

    games = command("games", cmd_games, "list the games: number, variant, players, status, ply, deadline, last change")
    which = games.add_mutually_exclusive_group()
    which.add_argument("--active", action="store_true", help="only the games being played")
    which.add_argument("--finished", action="store_true", help="only the games that are over")
    games.add_argument("--player", metavar="H", help="only the games of this player (handle or address)")

    command("game", cmd_game, "show one game: status, seats and their addresses, clocks, position, moves") \
        .add_argument("game", metavar="N", help="the game number")

    command("players", cmd_players, "list the players: handle, address, created, games, disabled, vacation")

    player = command("player", cmd_player, "disable, enable, rename a player or change their address",
                     epilog="A disabled player's mails (and mails to their addresses) are answered with one "
                            "refusal and change nothing; the clocks of their games run on by the games' rules, "
                            "so they lose on time unless their games are settled or aborted. 'rename' checks the "
                            "handle rules (2 to 32 letters, digits, '.', '_' or '-', starting with a letter) and "
                            "that it is free; 'email' that the address is well formed and no other player's.")
    player.add_argument("handle", metavar="H", help="the player's handle (or address)")
    player.add_argument("action", choices=("disable", "enable", "rename", "email"))
    player.add_argument("value", nargs="?", metavar="NEW", help="rename: the new handle; email: the new address")

    settle = command("settle", cmd_settle, "finish an active game with a result; both players are told by mail",
                     epilog="The result is rated as any other (unless the game is unrated) and counts in its "
                            "event. The players read the reason as 'settled by the operator: TEXT'.")
    settle.add_argument("game", metavar="N", help="the game number")
    settle.add_argument("result", choices=("white", "black", "draw"), help="who wins (1-0, 0-1) or a draw")
    settle.add_argument("--reason", required=True, metavar="TEXT", help="why, for the players (at most 39 characters)")

    abort = command("abort", cmd_abort, "finish an active game without a result (no rating change); both are told",
                    epilog="Event games need a score: settle those. The players read the reason as "
                           "'aborted by the operator: TEXT'.")
    abort.add_argument("game", metavar="N", help="the game number")
    abort.add_argument("--reason", metavar="TEXT", help="why, for the players (at most 39 characters)")

    command("queue", cmd_queue, "inbox and outbox counts by status, with the age of the oldest mail of each")

    failed = command("failed", cmd_failed, "the inbound mails whose processing failed and the outbound mails given up")
    failed.add_argument("--full", action="store_true", help="the whole stored error, not its last line")

    requeue = command("requeue", cmd_requeue, "process failed inbound mails again, each exactly once",
                      epilog="Only mails listed by 'pbem admin failed' are requeued; the worker of a running "
                             "'pbem serve' takes them as new mails.")
    requeue.add_argument("id", nargs="?", metavar="ID", help="the inbox number 'pbem admin failed' shows")
    requeue.add_argument("--all", action="store_true", help="every failed inbound mail")

    purge = command("purge", cmd_purge, "empty the bodies of old processed inbound and sent outbound mails",
                    epilog="Rows and Message-IDs stay, so duplicates are still recognised; failed, held and "
                           "undelivered mails keep their bodies; games and records are never purged. The days "
                           "default to [retention] inbound_days / outbound_days, or 90.")
    purge.add_argument("--inbound-days", type=float, metavar="DAYS",
                       help="processed inbound mails received more than DAYS ago")
    purge.add_argument("--outbound-days", type=float, metavar="DAYS", help="outbound mails sent more than DAYS ago")

    backup = command("backup", cmd_backup, "copy the live SQLite database to FILE (never overwritten)",
                     epilog="The copy is consistent while the server runs (SQLite's online backup API). To "
                            "restore: stop the server, copy FILE over the database file. PostgreSQL: use "
                            "pg_dump and pg_restore.")
    backup.add_argument("file", metavar="FILE", help="the new file to write")
