"""What the public may know of games and players: the one source of the web pages, the JSON API and the feeds.

Everything here is what an observer's mail would show: the position and moves
``observer-delay`` plies behind while a game runs, no unrevealed return square
(positions are the variants' ``Audience.PUBLIC`` views), notes only where both
players allowed them (``public-notes``), never an address or a token.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlmodel import col, or_, select

from pbem.app.clocks import clock_lines, clock_of
from pbem.app.context import Context
from pbem.app.game_options import game_option, game_rated, public_notes
from pbem.app.game_pictures import highlights_of
from pbem.app.game_state import engine_for, handles, notes_of
from pbem.app.records import game_record, note_comments
from pbem.engine.base import Audience, Seat, View
from pbem.engine.capabilities import RecordExport
from pbem.store.event_models import Rating
from pbem.store.models import Account, Challenge, ComputerRating, Game, MoveRecord
from pbem.store.vocabulary import ChallengeStatus, GameStatus
from pbem.variants import UnknownVariantError, get_variant

__all__ = [
    "PublicGame",
    "PublicMove",
    "PublicNote",
    "PublicSeek",
    "computer_rating_list",
    "game_list",
    "open_seeks",
    "player_games",
    "public_game",
    "public_position",
    "public_record",
    "rating_list",
]


@dataclass(frozen=True)
class PublicMove:
    """One turn of the public record: ply 1 is White's first move."""

    ply: int
    move_number: int
    seat: Seat
    record: str
    played_at: datetime

    @property
    def label(self) -> str:
        return f"{self.move_number}." if self.seat is Seat.WHITE else f"{self.move_number}..."


@dataclass(frozen=True)
class PublicNote:
    """A player's note, public because both players allowed it: said after ``ply`` plies."""

    ply: int
    handle: str
    text: str


@dataclass(frozen=True)
class PublicGame:
    """A game as the public sees it; ``moves`` stop at ``visible_ply`` (the observer delay)."""

    id: int
    variant: str
    title: str
    white: str
    black: str
    status: str
    result: str
    reason: str
    rated: bool
    time_control: str
    started_at: datetime
    updated_at: datetime
    version: int
    delay: int  # plies the public is kept behind while the game runs
    visible_ply: int
    moves: tuple[PublicMove, ...]
    move_number: int  # of the visible position
    to_move: Seat | None  # in the visible position; None when it is over
    deadline: datetime | None  # None while the public is kept behind (it would tell how far)
    clock: tuple[str, ...]
    notes: tuple[PublicNote, ...]
    event_id: int | None

    @property
    def active(self) -> bool:
        return self.status == GameStatus.ACTIVE

    @property
    def players(self) -> dict[Seat, str]:
        return {Seat.WHITE: self.white, Seat.BLACK: self.black}


@dataclass(frozen=True)
class PublicSeek:
    id: int
    handle: str
    variant: str
    title: str
    colour: str
    time_control: str
    expires_at: datetime | None


def _delay(game: Game) -> int:
    return game_option(game.options, "observer-delay") if game.status == GameStatus.ACTIVE else 0


def public_game(ctx: Context, game_id: int) -> PublicGame | None:
    """Game ``game_id`` as the public may see it, or None if there is no such game."""
    game = ctx.session.get(Game, game_id)
    if game is None or game.id is None:
        return None
    delay = _delay(game)
    visible = max(0, game.ply - delay)
    rows = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game.id, MoveRecord.ply <= visible)
                            .order_by(col(MoveRecord.ply))).all()
    moves = tuple(PublicMove(row.ply, row.move_number, Seat(row.seat), row.record, row.played_at) for row in rows)
    names = handles(ctx, game)
    engine = engine_for(game)
    state = _state_at(game, rows[-1] if rows else None)
    to_move = engine.to_act(state) if game.status == GameStatus.ACTIVE else None
    behind = delay > 0 and game.ply > visible
    finished = game.status != GameStatus.ACTIVE
    notes = _notes(game, names, visible, finished) if public_notes(game.options) else ()
    return PublicGame(
        id=game.id, variant=game.variant, title=engine.title, white=names[Seat.WHITE], black=names[Seat.BLACK],
        status=game.status, result=game.result, reason=game.reason, rated=game_rated(game.options),
        time_control=game.time_control, started_at=game.started_at, updated_at=game.updated_at,
        version=game.version, delay=delay, visible_ply=visible, moves=moves,
        move_number=engine.move_number(state), to_move=to_move,
        deadline=None if behind or game.status != GameStatus.ACTIVE else game.deadline,
        clock=() if delay or clock_of(ctx.services.config, game) is None else tuple(clock_lines(_as_of(ctx, game),
                                                                                               game, names)),
        notes=notes, event_id=game.event_id,
    )


def _as_of(ctx: Context, game: Game) -> Context:
    """The context to show ``game``'s clock in: a finished game's as it stood at the end (closing a game does
    not stop its clock, so the loser's time would run on down to 0s on the page)."""
    if game.status == GameStatus.ACTIVE:
        return ctx
    ended = game.updated_at
    return replace(ctx, services=replace(ctx.services, now=lambda: ended))


def _state_at(game: Game, row: MoveRecord | None) -> Any:
    engine = engine_for(game)
    if row is None:
        return engine.setup()
    return engine.load(row.state_after) if row.state_after else engine.load(game.state)


def _notes(game: Game, names: dict[Seat, str], visible: int, finished: bool) -> tuple[PublicNote, ...]:
    """The players' notes the public may read: those said before the visible position's last move was
    answered (ply < visible), as observers' mails show them, and all of them once the game is over."""
    notes = []
    for note in notes_of(game.extras):
        ply, seat, text = note.get("ply"), note.get("seat"), note.get("text")
        if isinstance(ply, int) and seat in ("white", "black") and isinstance(text, str) \
                and (ply < visible or finished):
            notes.append(PublicNote(ply, names[Seat(seat)], text))
    return tuple(notes)


def public_position(ctx: Context, game_id: int, ply: int | None = None) -> tuple[PublicGame, View] | None:
    """The public view after ``ply`` plies (None: the latest the public may see); None if the game does not
    exist or ``ply`` is beyond what the public may see. The last move is marked only on the latest position."""
    shown = public_game(ctx, game_id)
    if shown is None:
        return None
    ply = shown.visible_ply if ply is None else ply
    if not 0 <= ply <= shown.visible_ply:
        return None
    game = ctx.session.get(Game, game_id)
    assert game is not None
    row = ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id, MoveRecord.ply == ply)).first()
    state = _state_at(game, row) if ply else engine_for(game).setup()
    latest = ply == game.ply  # not behind: this is the game's own last move
    highlights = highlights_of(game) if latest and ply > 0 else ()
    return shown, engine_for(game).view(state, Audience.PUBLIC, highlights)


def public_record(ctx: Context, game_id: int) -> tuple[str, str, str] | None:
    """The public record (filename, media type, text) up to the visible position; None without the game."""
    shown = public_game(ctx, game_id)
    game = ctx.session.get(Game, game_id)
    if shown is None or game is None:
        return None
    rows = list(ctx.session.exec(select(MoveRecord).where(MoveRecord.game_id == game_id,
                                                          MoveRecord.ply <= shown.visible_ply)
                                 .order_by(col(MoveRecord.ply))).all())
    site = ctx.services.config.public_url or ctx.services.addresses.domain
    comments = None
    if public_notes(game.options):  # the notes the pages show, at the plies they were said
        said = note_comments(game, shown.visible_ply, shown.white, shown.black)
        comments = {ply: texts for ply, texts in said.items() if ply < shown.visible_ply or not shown.active}
    text = game_record(game, rows, shown.white, shown.black, site, comments)
    if isinstance(engine_for(game), RecordExport):
        return f"pbem-game-{game_id}.pgn", "application/x-chess-pgn", text + "\n"
    return f"pbem-game-{game_id}.txt", "text/plain", text + "\n"


def game_list(ctx: Context, active: bool, limit: int = 50) -> list[PublicGame]:
    """The latest active games (or the latest finished ones), most recently changed first."""
    wanted = Game.status == GameStatus.ACTIVE if active else Game.status != GameStatus.ACTIVE
    ids = ctx.session.exec(select(Game.id).where(wanted).order_by(col(Game.updated_at).desc(), col(Game.id).desc())
                           .limit(limit)).all()
    return [found for game_id in ids if game_id is not None and (found := public_game(ctx, game_id)) is not None]


def player_games(ctx: Context, account: Account) -> list[PublicGame]:
    """Every game of ``account``, newest first."""
    ids = ctx.session.exec(select(Game.id).where(or_(Game.white_id == account.id, Game.black_id == account.id))
                           .order_by(col(Game.id).desc())).all()
    return [found for game_id in ids if game_id is not None and (found := public_game(ctx, game_id)) is not None]


def open_seeks(ctx: Context) -> list[PublicSeek]:
    """The seeks still open now, oldest first."""
    now = ctx.services.now()
    seeks = ctx.session.exec(select(Challenge).where(Challenge.status == ChallengeStatus.SEEKING)
                             .order_by(col(Challenge.id))).all()
    found = []
    for seek in seeks:
        if seek.id is None or (seek.expires_at is not None and seek.expires_at <= now):
            continue
        owner = ctx.account_by_id(seek.challenger_id)
        found.append(PublicSeek(seek.id, owner.handle if owner else "?", seek.variant,
                                get_variant(seek.variant).title, seek.color,
                                seek.time_control, seek.expires_at))
    return found


def rating_list(ctx: Context, variant: str) -> tuple[Any, list[tuple[str, float, int]]] | None:
    """A variant's engine and its rating list, best first: (handle, rating, rated games); None for no such
    variant."""
    try:
        engine = get_variant(variant)
    except UnknownVariantError:
        return None
    rows = ctx.session.exec(select(Rating, Account.handle).join(Account, col(Account.id) == Rating.account_id)
                            .where(Rating.variant == engine.key).order_by(col(Rating.rating).desc())).all()
    return engine, [(handle, rating.rating, rating.games) for rating, handle in rows]


def computer_rating_list(ctx: Context, variant: str) -> list[tuple[str, float, int]]:
    """The list of ratings from games against the computer in ``variant`` (a key), best first."""
    rows = ctx.session.exec(select(ComputerRating, Account.handle)
                            .join(Account, col(Account.id) == ComputerRating.account_id)
                            .where(ComputerRating.variant == variant)
                            .order_by(col(ComputerRating.rating).desc())).all()
    return [(handle, rating.rating, rating.games) for rating, handle in rows]

