"""Game records: a PGN tag section with a Variant tag, then the variant's movetext (real PGN for Hyperspace)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from sqlmodel import Session, col, select

from pbem.app.game_options import public_notes
from pbem.app.game_state import computer_level, computer_name, computer_seat, engine_for, notes_of
from pbem.engine.base import Seat
from pbem.engine.capabilities import RecordExport
from pbem.engine.notation import comment_words, pgn_comment, wrap_words
from pbem.store.models import Account, Game, MoveRecord

__all__ = [
    "Comments",
    "MailRecord",
    "game_record",
    "load_game_record",
    "mail_movetext",
    "mail_record",
    "movetext_writer",
    "note_comments",
    "numbered_movetext",
    "written_comments",
]

log = logging.getLogger(__name__)

WIDTH = 79  # PGN's export format keeps lines under 80 characters

#: Texts to write as comments in a record, keyed by the ply they follow (0: before the first move).
Comments = Mapping[int, Sequence[str]]


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def note_comments(game: Game, plies: int, white: str, black: str) -> dict[int, list[str]]:
    """The players' notes of ``game`` as record comments (``alice: good luck``), keyed by the ply each was
    said at (0: before the first move); a note said at a ply a takeback removed follows the last ply."""
    names = {Seat.WHITE.value: white, Seat.BLACK.value: black}
    comments: dict[int, list[str]] = {}
    for note in notes_of(game.extras):
        ply = min(int(str(note.get("ply", 0))), plies)
        comments.setdefault(ply, []).append(f"{names.get(str(note.get('seat')), '?')}: {note.get('text', '')}")
    return comments


def written_comments(comments: Comments) -> tuple[str, ...]:
    """Each comment exactly as a record writes it, braces included, before lines are wrapped: the players'
    own words, which the secret scan skips once for each time a record holds them."""
    return tuple(pgn_comment(text) for texts in comments.values() for text in texts)


def numbered_movetext(moves: Sequence[MoveRecord], comments: Comments | None = None) -> list[str]:
    """The variant's own records, numbered as in PGN (``12.`` before White, ``12...`` for a Black turn
    that does not follow its White turn), with ``comments`` as brace comments after their ply."""
    comments = comments or {}
    words = [word for text in comments.get(0, ()) for word in comment_words(text)]
    previous_white = 0  # the move number of the white turn just written, if the last row was white
    for ply, row in enumerate(moves, start=1):
        if row.seat == Seat.WHITE.value:
            words.append(f"{row.move_number}.")
            previous_white = row.move_number
        else:
            if previous_white != row.move_number:
                words.append(f"{row.move_number}...")
            previous_white = 0
        words.append(row.record)
        if comments.get(ply):
            words.extend(word for text in comments[ply] for word in comment_words(text))
            previous_white = 0  # after a comment, Black's turn is numbered again
    return words


def movetext_writer(game: Game) -> Callable[[Sequence[MoveRecord], Comments | None], list[str]] | None:
    """The PGN movetext writer of ``game``'s variant if it exports records (RecordExport), else None."""
    engine = engine_for(game)
    if not isinstance(engine, RecordExport):
        return None
    exporter = engine

    def writer(moves: Sequence[MoveRecord], comments: Comments | None = None) -> list[str]:
        if any(not row.state_after for row in moves):
            raise ValueError("a turn was stored without its position")  # rows from before positions were kept
        return exporter.movetext([(row.record, row.state_after) for row in moves], comments)

    return writer


def _pgn_movetext(game: Game, moves: Sequence[MoveRecord], comments: Comments | None = None) -> list[str] | None:
    """The PGN movetext of ``game`` if its variant has a writer that can read these rows, else None."""
    writer = movetext_writer(game)
    if writer is None:
        return None
    try:
        return writer(moves, comments)
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


def game_record(game: Game, moves: Sequence[MoveRecord], white: str, black: str, site: str,
                comments: Comments | None = None) -> str:
    """The record of ``game`` as ``pbem export`` writes it: seven-tag roster, Variant, numbered turns, result.

    The movetext is PGN a chess program reads where the variant has a writer (Hyperspace Chess),
    else the variant's own notation. ``moves`` are the game's rows in ply order; ``white`` and
    ``black`` the players' handles; ``comments`` (note_comments) are written once each.
    """
    words = _pgn_movetext(game, moves, comments)
    return _record(game, numbered_movetext(moves, comments) if words is None else words, white, black, site)


class MailRecord(NamedTuple):
    """What ``history`` mails, and the players' words in it (see written_comments)."""

    text: str
    own_words: tuple[str, ...]


def mail_record(game: Game, moves: Sequence[MoveRecord], white: str, black: str, site: str,
                comments: Comments | None = None) -> MailRecord:
    """What ``history`` mails: the record in the server's notation, then the PGN where there is one;
    each of them with ``comments``."""
    plain = _record(game, numbered_movetext(moves, comments), white, black, site)
    once = written_comments(comments or {})
    words = _pgn_movetext(game, moves, comments)
    if words is None:
        return MailRecord(plain, once)
    return MailRecord(f"{plain}\n\nThe same record as PGN, for chess programs (see 'help {game.variant}'):\n\n"
                      f"{_record(game, words, white, black, site)}", once + once)


def mail_movetext(game: Game, moves: Sequence[MoveRecord]) -> str:
    """The whole game's movetext for the final mail, as ``pbem export`` writes it (PGN where the
    variant has a writer), with the result, in lines that fit a mail's 78 columns."""
    words = _pgn_movetext(game, moves)
    return "\n".join(wrap_words([*(numbered_movetext(moves) if words is None else words), game.result], 78))


def load_game_record(session: Session, game_id: int, site: str) -> str | None:
    """The public record of game ``game_id`` read through ``session`` (the players' notes only if the
    game made them public), or None if there is no such game."""
    game = session.get(Game, game_id)
    if game is None:
        return None
    statement = select(MoveRecord).where(MoveRecord.game_id == game_id).order_by(col(MoveRecord.ply))
    moves = list(session.exec(statement).all())
    accounts = session.get(Account, game.white_id), session.get(Account, game.black_id)
    names = {Seat.WHITE: accounts[0].handle if accounts[0] else "?",
             Seat.BLACK: accounts[1].handle if accounts[1] else "?"}
    computer = computer_seat(game)
    if computer is not None:
        names[computer] = computer_name(computer_level(game))
    white, black = names[Seat.WHITE], names[Seat.BLACK]
    comments = note_comments(game, len(moves), white, black) if public_notes(game.options) else None
    return game_record(game, moves, white, black, site, comments)
