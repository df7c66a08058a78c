"""Every email command, and ``lookup`` to find one by name or alias."""

from __future__ import annotations

import difflib

from pbem.commands.analyse import Analyse
from pbem.commands.answer import Accept, Decline
from pbem.commands.base import Command
from pbem.commands.board import Board
from pbem.commands.challenge import ChallengeCommand
from pbem.commands.conditional import Conditional
from pbem.commands.draw import Draw
from pbem.commands.games import Games
from pbem.commands.help import Help
from pbem.commands.history import History
from pbem.commands.join import Join
from pbem.commands.move import Move
from pbem.commands.observe import Observe, Unobserve
from pbem.commands.register import Register
from pbem.commands.rematch import Rematch
from pbem.commands.resign import Resign
from pbem.commands.say import Say
from pbem.commands.secret import SecretCommand
from pbem.commands.seek import Seek, Seeks, Unseek
from pbem.commands.set_setting import SetSetting
from pbem.commands.settings import Settings
from pbem.commands.standings import Standings
from pbem.commands.takeback import Takeback
from pbem.commands.vacation import Vacation
from pbem.commands.variants import Variants
from pbem.engine.notation import looks_like_move

__all__ = ["COMMANDS", "looks_like_command", "lookup", "nearest"]

COMMANDS: tuple[Command, ...] = (
    Register(), Help(), Variants(), ChallengeCommand(), Accept(), Decline(), Games(),
    Move(), Resign(), Draw(), Board(), History(), Say(), SecretCommand(), Vacation(),
    Takeback(), Rematch(), Observe(), Unobserve(), Conditional(),
    Join(), Standings(), Seek(), Unseek(), Seeks(), SetSetting(), Settings(), Analyse(),
)

_BY_WORD: dict[str, Command] = {
    word: command for command in COMMANDS for word in (command.name, *command.aliases)
}


def lookup(word: str) -> Command | None:
    return _BY_WORD.get(word.lower())


def nearest(word: str) -> list[str]:
    """The command names and aliases closest to a misspelt word, best first (at most three)."""
    return difflib.get_close_matches(word.lower(), _BY_WORD, n=3, cutoff=0.75)


def looks_like_command(line: str) -> bool:
    """Whether a line starts with a command word or reads like a move (which reply lines to read)."""
    words = line.split()
    return bool(words) and (lookup(words[0]) is not None or looks_like_move(line))
