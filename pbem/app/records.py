"""Game records: a PGN tag section with a Variant tag, then the variant's movetext (real PGN for Hyperspace)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from sqlmodel import Session, col, select

from pbem.app.game_state import engine_for
from pbem.engine.base import Seat
from pbem.engine.capabilities import RecordExport
from pbem.engine.notation import wrap_words
from pbem.store.models import Account, Game, MoveRecord

__all__ = ["game_record", "load_game_record", "mail_movetext", "mail_record", "movetext_writer", "numbered_movetext"]

log = logging.getLogger(__name__)

WIDTH = 79  # PGN's export format keeps lines under 80 characters


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def numbered_movetext(moves: Sequence[MoveRecord]) -> list[str]:
    """The variant's own records, numbered as in PGN (``12.`` before White, ``12...`` for a lone Black turn)."""
    words: list[str] = []
    previous_white = 0  # the move number of the white turn just written, if the last row was white
    for row in moves:
        if row.seat == Seat.WHITE.value:
            words.append(f"{row.move_number}.")
            previous_white = row.move_number
        else:
            if previous_white != row.move_number:
                words.append(f"{row.move_number}...")
            previous_white = 0
        words.append(row.record)
    return words


def movetext_writer(game: Game) -> Callable[[Sequence[MoveRecord]], list[str]] | None:
    """The PGN movetext writer of ``game``'s variant if it exports records (RecordExport), else None."""
    engine = engine_for(game)
    if not isinstance(engine, RecordExport):
        return None
    exporter = engine

    def writer(moves: Sequence[MoveRecord]) -> list[str]:
        if any(not row.state_after for row in moves):
            raise ValueError("a turn was stored without its position")  # rows from before positions were kept
        return exporter.movetext([(row.record, row.state_after) for row in moves])

    return writer


def _pgn_movetext(game: Game, moves: Sequence[MoveRecord]) -> list[str] | None:
    """The PGN movetext of ``game`` if its variant has a writer that can read these rows, else None."""
    writer = movetext_writer(game)
    if writer is None:
        return None
    try:
        return writer(moves)
    except ValueError:
        # Better the plain record than none: the player asked for it and it is still correct.
        log.exception("game %s: no %s PGN movetext, writing the plain record", game.id, game.variant)
        return None


def _record(game: Game, words: list[str], white: str, black: str, site: str) -> str:
    tags = [
        _tag("Event", f"pbem game {game.id}"),
        _tag("Site", site),
        _tag("Date", game.started_at.strftime("%Y.%m.%d")),
        _tag("Round", "-"),
        _tag("White", white),
        _tag("Black", black),
        _tag("Result", game.result),
        _tag("Variant", engine_for(game).title),
    ]
    if game.time_control:
        tags.append(_tag("TimeControl", game.time_control))
    if game.reason:
        tags.append(_tag("Termination", game.reason))
    lines = wrap_words([*words, game.result], WIDTH)
    return "\n".join(tags) + "\n\n" + "\n".join(lines)


def game_record(game: Game, moves: Sequence[MoveRecord], white: str, black: str, site: str) -> str:
    """The record of ``game`` as ``pbem export`` writes it: seven-tag roster, Variant, numbered turns, result.

    The movetext is PGN a chess program reads where the variant has a writer (Hyperspace Chess),
    else the variant's own notation. ``moves`` are the game's rows in ply order; ``white`` and
    ``black`` the players' handles.
    """
    words = _pgn_movetext(game, moves)
    return _record(game, numbered_movetext(moves) if words is None else words, white, black, site)


def mail_record(game: Game, moves: Sequence[MoveRecord], white: str, black: str, site: str) -> str:
    """What ``history`` mails: the record in the server's notation, then the PGN where there is one."""
    plain = _record(game, numbered_movetext(moves), white, black, site)
    words = _pgn_movetext(game, moves)
    if words is None:
        return plain
    return (f"{plain}\n\nThe same record as PGN, for chess programs (see 'help {game.variant}'):\n\n"
            f"{_record(game, words, white, black, site)}")


def mail_movetext(game: Game, moves: Sequence[MoveRecord]) -> str:
    """The whole game's movetext for the final mail, as ``pbem export`` writes it (PGN where the
    variant has a writer), with the result, in lines that fit a mail's 78 columns."""
    words = _pgn_movetext(game, moves)
    return "\n".join(wrap_words([*(numbered_movetext(moves) if words is None else words), game.result], 78))


def load_game_record(session: Session, game_id: int, site: str) -> str | None:
    """The record of game ``game_id`` read through ``session``, or None if there is no such game."""
    game = session.get(Game, game_id)
    if game is None:
        return None
    statement = select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(col(MoveRecord.ply))
    moves = list(session.exec(statement).all())
    white, black = session.get(Account, game.white_id), session.get(Account, game.black_id)
    return game_record(game, moves, white.handle if white else "?", black.handle if black else "?", site)
