"""Pictures of a game for its mails: the board as one reader may see it, and the whole game as a GIF."""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pbem.app.game_state import engine_for
from pbem.engine.base import Audience, Recipient, Seat, View
from pbem.engine.board_view import Highlight, Mark
from pbem.mail.compose import HtmlSource, InlineImage
from pbem.pictures.animation import animated_gif
from pbem.pictures.render import picture_size
from pbem.store.models import Game, MoveRecord

__all__ = ["Picture", "game_animation", "highlights_of", "html_source", "move_rows", "store_highlights"]

log = logging.getLogger(__name__)

#: Pictures are 600 px wide at their display size: at twice that a picture alone would take most of
#: a mail's 100 KB once base64-encoded, and it costs three times the CPU (bench/pictures.py).
SCALE = 1
#: The GIF of a whole game must leave room for the picture and the text in a mail under 100 KB.
GIF_BUDGET = 35_000
#: How long each position of the GIF stays, and the final one (milliseconds).
FRAME_MS, LAST_FRAME_MS = 900, 4000


@dataclass(frozen=True, slots=True)
class Picture:
    """A board picture for a mail: the inline image (drawn when the mail is delivered:
    pbem.mail.later_pictures) and the size it is displayed at (CSS pixels)."""

    image: InlineImage
    width: int
    height: int


def highlights_of(game: Game) -> tuple[Highlight, ...]:
    """The squares of the last move that pictures highlight (kept on the game by :func:`store_highlights`)."""
    return tuple((str(square), Mark(mark)) for square, mark in game.extras.get("highlights", []))


def store_highlights(game: Game, highlights: Sequence[Highlight]) -> None:
    extras = {key: value for key, value in game.extras.items() if key != "highlights"}
    if highlights:
        extras["highlights"] = [[square, str(mark)] for square, mark in highlights]
    game.extras = extras


def _picture(game: Game, view: View, cid: str) -> Picture | None:
    if view.board is None:
        return None
    width, height = picture_size(view.board)
    return Picture(InlineImage(cid, b"", filename=f"game-{game.id}.png", board=view.board, scale=SCALE), width, height)


def move_rows(moves: Sequence[MoveRecord]) -> tuple[tuple[str, str, str], ...]:
    """The record as table rows: move number, White's turn, Black's turn."""
    rows: dict[int, list[str]] = {}
    for row in moves:
        turns = rows.setdefault(row.move_number, ["", ""])
        turns[0 if row.seat == Seat.WHITE.value else 1] = row.record
    return tuple((f"{number}.", white, black) for number, (white, black) in sorted(rows.items()))


def html_source(game: Game, state: Any, audience: Recipient, domain: str, clock: Sequence[str] = (),
                moves: Sequence[MoveRecord] = (), highlight: bool = True, white_bottom: bool = False,
                link: str = "") -> HtmlSource:
    """What the HTML part of a game mail to ``audience`` shows: its picture, the diagram, clock and moves."""
    view = engine_for(game).view(state, audience, highlights_of(game) if highlight else (), white_bottom=white_bottom)
    picture = _picture(game, view, f"board.{secrets.token_hex(16)}@{domain}")
    return HtmlSource(picture.image if picture else None, (picture.width, picture.height) if picture else (0, 0),
                      view.diagram, tuple(clock), move_rows(moves), link)


def game_animation(game: Game, moves: Sequence[MoveRecord]) -> bytes | None:
    """The whole game as an animated GIF, one frame per position, as the public sees it (no secrets).

    None when the variant draws no pictures, or the GIF would not fit a mail even at a smaller size.
    """
    engine = engine_for(game)
    states = [engine.setup(), *(engine.load(row.state_after) for row in moves if row.state_after)]
    views = []
    for state in states:
        board = engine.view(state, Audience.PUBLIC).board
        if board is None:
            return None
        views.append(board)
    data = animated_gif(views, FRAME_MS, LAST_FRAME_MS, GIF_BUDGET)
    if data is None:
        log.info("game %s: the GIF of %d positions does not fit a mail; not attached", game.id, len(views))
    return data
