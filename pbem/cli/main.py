"""The `pbem` command line: serve, export, event, admin, and the engine tools moves, perft, show, analyse, variants."""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from pbem.config import ConfigError, load_config
from pbem.engine.base import Audience, Variant
from pbem.engine.capabilities import FastPerft
from pbem.engine.errors import MoveError
from pbem.engine.search import LEVELS as COMPUTER_LEVELS
from pbem.engine.search import MAX_DEPTH, Limits, describe_line, format_score, limits_for_level, search
from pbem.log_setup import LEVELS, configure_logging
from pbem.variants import UnknownVariantError, all_variants, get_variant

__all__ = ["main", "perft"]


class CliError(Exception):
    """A user error: printed on stderr, exit status 1."""


def play_from_start(engine: Variant[Any, Any], moves: Sequence[str]) -> Any:
    """The position after ``moves`` from the initial position; CliError names a bad move."""
    try:
        state = engine.setup()
    except ValueError as error:
        raise CliError(f"bad option: {error}") from error
    for number, text in enumerate(moves, start=1):
        try:
            action = engine.parse_action(state, text)
        except MoveError as error:
            raise CliError(f"move {number} ({text!r}): {error}") from error
        state = engine.apply(state, action).state
    return state


def perft(engine: Variant[Any, Any], state: Any, depth: int) -> int:
    """Leaf nodes of the legal-move tree of ``depth`` below ``state``."""
    if isinstance(engine, FastPerft):
        return engine.perft(state, depth)
    if depth == 0:
        return 1
    if engine.outcome(state) is not None:
        return 0
    actions = list(engine.legal_actions(state))
    if depth == 1:
        return len(actions)
    return sum(perft(engine, engine.apply(state, action).state, depth - 1) for action in actions)


def parse_options(pairs: Sequence[str]) -> dict[str, object]:
    """``KEY=VALUE`` words into the options dict a challenge would store."""
    options: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(f"options are written KEY=VALUE, not {pair!r}")
        options[key.strip().lower()] = value.strip()
    return options


def _engine(args: argparse.Namespace) -> Variant[Any, Any]:
    try:
        return get_variant(args.variant, parse_options(args.option))
    except UnknownVariantError as error:
        raise CliError(str(error)) from error


def cmd_moves(args: argparse.Namespace) -> int:
    engine = _engine(args)
    state = play_from_start(engine, args.moves)
    for line in sorted(engine.describe(state, action) for action in engine.legal_actions(state)):
        print(line)
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    engine = _engine(args)
    if args.depth < 0:
        raise CliError("depth must be 0 or more")
    state = play_from_start(engine, args.moves)
    print(perft(engine, state, args.depth))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    engine = _engine(args)
    state = play_from_start(engine, args.moves)
    view = engine.view(state, Audience.PUBLIC)
    print(view.diagram)
    for line in view.status:
        print(line)
    return 0


def analysis_limits(level: int | None, seconds: float | None) -> Limits:
    """``--seconds S`` searches as deep as S seconds allow (selectively, like level 5); ``--level N`` searches
    like level N (without the random noise the computer player adds at the low levels)."""
    if seconds is not None:
        if seconds <= 0:
            raise CliError(f"--seconds must be more than 0, not {seconds:g}")
        return Limits(depth=MAX_DEPTH, seconds=seconds, reductions=True)
    chosen = 3 if level is None else level
    if chosen not in COMPUTER_LEVELS:
        raise CliError(f"--level is 1 to {max(COMPUTER_LEVELS)}, not {chosen}")
    return replace(limits_for_level(chosen), noise=0)


def cmd_analyse(args: argparse.Namespace) -> int:
    engine = _engine(args)
    limits = analysis_limits(args.level, args.seconds)
    state = play_from_start(engine, args.moves)
    seat = engine.to_act(state)
    over = engine.outcome(state)
    if seat is None or over is not None:
        reason = f" ({over.result}, {over.reason})" if over is not None else ""
        raise CliError(f"the game is over{reason}: there is nothing to analyse")
    result = search(engine, state, limits, time.monotonic)
    line = describe_line(engine, state, result.pv)
    print(f"best move: {line[0]}")
    print(f"score: {format_score(result.score)} (centipawns for {seat.value}, the side to move)")
    print(f"line: {' '.join(line)}")
    print(f"depth {result.depth}, {result.nodes:,} nodes, {result.seconds:.2f} s")
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    for variant in all_variants():
        aliases = f" [{', '.join(variant.aliases)}]" if variant.aliases else ""
        print(f"{variant.key:<12} {variant.title}{aliases}")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from pbem.server import Server, StartError  # the engine tools must not need the mail stack

    try:
        config = load_config(args.config)
    except ConfigError as error:
        raise CliError(str(error)) from error
    configure_logging(args.log_level or config.log.level, args.log_format or config.log.format)
    try:
        asyncio.run(Server(config).run_forever())
    except StartError as error:
        raise CliError(f"pbem serve cannot start: {error}") from error
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    # The database stack is imported here, as cmd_serve does with the server: the engine tools stay light.
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from pbem.app.records import load_game_record
    from pbem.store.db import Database

    try:
        config = load_config(args.config)
    except ConfigError as error:
        raise CliError(str(error)) from error
    number = args.game.lstrip("#")
    if not number.isdigit():
        raise CliError(f"a game is named by its number, not {args.game!r}")
    url = config.database.url
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:") \
            and not Path(parsed.database).exists():
        # Database() would create an empty file there; an export only reads.
        raise CliError(f"no database at {parsed.database} (see [database] url in the configuration)")
    database = Database(url)
    try:
        with database.read() as session:
            text = load_game_record(session, int(number), config.domain)
    except SQLAlchemyError as error:
        raise CliError(f"cannot read the database: {str(error).splitlines()[0]}") from error
    finally:
        database.dispose()
    if text is None:
        raise CliError(f"no game {number} in the database")
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0


def add_option_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option, as in `challenge ... option KEY=VALUE` (repeatable)")


def _add_event_parser(sub: Any) -> None:
    from pbem.cli.events import add_event_parser  # the organiser's tools; the engine tools stay light

    add_event_parser(sub)


def _add_admin_parser(sub: Any) -> None:
    from pbem.cli.admin import add_admin_parser  # the operator's tools; the engine tools stay light

    add_admin_parser(sub)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pbem", description="Play-by-email server for space chess variants.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the server (listener, worker, delivery) in the foreground")
    serve.add_argument("--config", help="TOML configuration file (default: ./pbem.toml if present)")
    serve.add_argument("--log-level", type=str.upper, choices=LEVELS,
                       help="what to log (default: [log] level, INFO)")
    serve.add_argument("--log-format", choices=("text", "json"),
                       help="one line per event as text or as JSON (default: [log] format, text)")
    serve.set_defaults(func=cmd_serve)
    export = sub.add_parser("export", help="print a game's record (PGN for Hyperspace Chess)")
    export.add_argument("game", metavar="GAME", help="the game number")
    export.add_argument("--config", help="TOML configuration file (default: ./pbem.toml if present)")
    export.add_argument("-o", "--output", metavar="FILE", help="write the record to FILE instead of printing it")
    export.set_defaults(func=cmd_export)
    for name, func, text in (("moves", cmd_moves, "list the legal moves after MOVEs"),
                             ("show", cmd_show, "print the diagram after MOVEs")):
        command = sub.add_parser(name, help=text)
        command.add_argument("variant")
        command.add_argument("moves", nargs="*", metavar="MOVE")
        add_option_argument(command)
        command.set_defaults(func=func)
    perft_parser = sub.add_parser("perft", help="count the leaf nodes of the move tree of DEPTH")
    perft_parser.add_argument("variant")
    perft_parser.add_argument("depth", type=int)
    perft_parser.add_argument("moves", nargs="*", metavar="MOVE")
    add_option_argument(perft_parser)
    perft_parser.set_defaults(func=cmd_perft)
    analyse = sub.add_parser("analyse", aliases=["analyze"],
                             help="the engine's best move, score and line after MOVEs")
    analyse.add_argument("variant")
    analyse.add_argument("moves", nargs="*", metavar="MOVE")
    budget = analyse.add_mutually_exclusive_group()
    budget.add_argument("--level", type=int, metavar="N",
                        help=f"search like computer level N, 1-{max(COMPUTER_LEVELS)} (default 3)")
    budget.add_argument("--seconds", type=float, metavar="S", help="search for S seconds, as deep as it gets")
    add_option_argument(analyse)
    analyse.set_defaults(func=cmd_analyse)
    _add_event_parser(sub)
    _add_admin_parser(sub)
    variants = sub.add_parser("variants", help="list the variants with their keys and aliases")
    variants.set_defaults(func=cmd_variants)
    return parser


#: Options that take a value and may be written among the moves.
_VALUE_OPTIONS = ("-o", "--option", "--level", "--seconds")


#: The commands that take a list of MOVEs after the variant.
_ENGINE_COMMANDS = frozenset({"moves", "perft", "show", "analyse", "analyze"})


def options_first(argv: list[str]) -> list[str]:
    """Move ``-o KEY=VALUE`` (and ``--level N``, ``--seconds S``) words before the positionals: argparse
    cannot mix them with ``MOVE ...``."""
    if not argv or argv[0] not in _ENGINE_COMMANDS:
        return argv  # the other commands have no MOVE list; `event adjudicate ... --seconds S` is theirs
    command, rest = argv[:1], argv[1:]
    options: list[str] = []
    others: list[str] = []
    index = 0
    while index < len(rest):
        word = rest[index]
        if word in _VALUE_OPTIONS and index + 1 < len(rest):
            options += [word, rest[index + 1]]
            index += 2
            continue
        (options if word.startswith(("--option=", "--level=", "--seconds=")) else others).append(word)
        index += 1
    return command + options + others


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(options_first(list(sys.argv[1:] if argv is None else argv)))
    try:
        return int(args.func(args))
    except CliError as error:
        print(f"pbem: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
