"""``if THEIR-MOVE then YOUR-MOVE [then ...]``: register a conditional line; ``if clear`` / ``if list``."""

from __future__ import annotations

import re
from typing import ClassVar

from pbem.app.conditionals import canonical_line, clear, lines_of, register_line
from pbem.app.context import Context, Result
from pbem.app.game_state import engine_for
from pbem.commands.base import SEAT
from pbem.mail.addresses import AddressKind

_THEN = re.compile(r"\s+then\s+", re.IGNORECASE)


def describe_lines(lines: list[list[str]]) -> str:
    if not lines:
        return "You have no conditional moves in this game."
    return "Your conditional moves:\n" + "\n".join(
        "  if " + " then ".join(line) for line in lines)


class Conditional:
    name: ClassVar[str] = "if"
    aliases: ClassVar[tuple[str, ...]] = ("conditional",)
    usage: ClassVar[str] = "if THEIR-MOVE then YOUR-MOVE [then THEIR-MOVE then YOUR-MOVE ...] | if clear | if list"
    summary: ClassVar[str] = "register moves to play automatically if the opponent plays what you expect"
    scopes: ClassVar[frozenset[AddressKind]] = frozenset({SEAT})

    def run(self, ctx: Context, args: list[str]) -> Result:
        game, seat = ctx.require_active_game()
        words = " ".join(args).strip()
        if words.lower() in ("clear", "off", "none"):
            return Result(f"Cleared {clear(game, seat)} conditional line(s).")
        if words.lower() in ("list", ""):
            return Result(describe_lines(lines_of(game, seat)))
        engine = engine_for(game)
        line = canonical_line(engine, engine.load(game.state), seat, _THEN.split(words))
        lines = register_line(game, seat, line)
        ctx.session.add(game)
        return Result(f"Registered: if {' then '.join(line)}\n{describe_lines(lines)}")
