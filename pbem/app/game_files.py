"""The files a finished game's last mails carry: its record and an animated GIF, made once per game."""

from __future__ import annotations

from pbem.app.context import Context
from pbem.app.game_pictures import game_animation
from pbem.app.game_state import engine_for, handles, records
from pbem.app.records import game_record
from pbem.engine.base import Seat
from pbem.engine.capabilities import RecordExport
from pbem.mail.compose import Attachment
from pbem.store.models import Game

__all__ = ["final_attachments"]


def final_attachments(ctx: Context, game: Game) -> tuple[Attachment, ...]:
    """The record (PGN where the variant exports one, else its own notation as text) and the game's GIF.

    Made once per game and unit of work: every player and observer gets the same files.
    """
    key = f"final-attachments-{game.id}-{game.version}"
    if key not in ctx.memo:
        names = handles(ctx, game)
        moves = records(ctx, game)
        text = game_record(game, moves, names[Seat.WHITE], names[Seat.BLACK], ctx.services.addresses.domain)
        pgn = isinstance(engine_for(game), RecordExport)
        files = [Attachment(f"pbem-game-{game.id}.{'pgn' if pgn else 'txt'}", (text + "\n").encode("utf-8"),
                            "application" if pgn else "text", "x-chess-pgn" if pgn else "plain")]
        animation = game_animation(game, moves)
        if animation is not None:
            files.append(Attachment(f"pbem-game-{game.id}.gif", animation, "image", "gif"))
        ctx.memo[key] = tuple(files)
    made: tuple[Attachment, ...] = ctx.memo[key]
    return made
