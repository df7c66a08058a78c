"""The files a finished game's last mails carry: its record and an animated GIF, made once per game."""

from __future__ import annotations

from functools import cache

from pbem.app.context import Context
from pbem.app.game_options import public_notes
from pbem.app.game_pictures import game_animation
from pbem.app.game_state import engine_for, handles, records
from pbem.app.records import game_record, note_comments, written_comments
from pbem.engine.base import Audience, Seat
from pbem.engine.capabilities import RecordExport
from pbem.mail.compose import Attachment
from pbem.store.models import Game
from pbem.variants import get_variant

__all__ = ["animation_left_out", "final_attachments"]


def final_attachments(ctx: Context, game: Game, *, public: bool = False) -> tuple[Attachment, ...]:
    """The record (PGN where the variant exports one, else its own notation as text) and the game's GIF.

    The players' record holds their notes as comments; the ``public`` one (observers') only if the
    game made them public. Made once per game, audience and unit of work: every player gets the same
    files, and every observer.
    """
    notes = not public or public_notes(game.options)
    key = f"final-attachments-{game.id}-{game.version}-{notes}"
    if key not in ctx.memo:
        names = handles(ctx, game)
        moves = records(ctx, game)
        comments = note_comments(game, len(moves), names[Seat.WHITE], names[Seat.BLACK]) if notes else {}
        text = game_record(game, moves, names[Seat.WHITE], names[Seat.BLACK], ctx.services.addresses.domain,
                           comments)
        pgn = isinstance(engine_for(game), RecordExport)
        files = [Attachment(f"pbem-game-{game.id}.{'pgn' if pgn else 'txt'}", (text + "\n").encode("utf-8"),
                            "application" if pgn else "text", "x-chess-pgn" if pgn else "plain",
                            own_words=written_comments(comments))]
        gif = f"final-animation-{game.id}-{game.version}"  # the same for every audience: drawn once
        if gif not in ctx.memo:
            ctx.memo[gif] = game_animation(game, moves)
        animation: bytes | None = ctx.memo[gif]
        if animation is not None:
            files.append(Attachment(f"pbem-game-{game.id}.gif", animation, "image", "gif"))
        ctx.memo[key] = tuple(files)
    made: tuple[Attachment, ...] = ctx.memo[key]
    return made


def animation_left_out(ctx: Context, game: Game) -> bool:
    """Whether a finished game's last mails go without its GIF although its variant draws pictures: the
    game is too long for one to fit a mail (the mails say so, and where to step through it instead)."""
    if any(item.maintype == "image" for item in final_attachments(ctx, game)):
        return False
    return _draws_pictures(game.variant)


@cache
def _draws_pictures(variant: str) -> bool:
    """Whether a variant draws pictures at all (asked once per variant, of its initial position)."""
    engine = get_variant(variant)
    return engine.view(engine.setup(), Audience.PUBLIC).board is not None
