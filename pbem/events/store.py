"""Reading and writing the event tables: find an event, its players and games, and the ratings."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, func, select

from pbem.app.computer import LEVEL_RATINGS
from pbem.app.game_options import game_rated
from pbem.app.game_state import computer_level, computer_seat, player_id
from pbem.engine.base import Seat
from pbem.events.ratings import PROVISIONAL_GAMES, Elo, rated_game
from pbem.events.tiebreaks import score_of
from pbem.store.event_models import Event, EventPlayer, Rating
from pbem.store.models import Account, ComputerRating, Game, utcnow
from pbem.store.vocabulary import GameStatus

__all__ = ["EventData", "computer_rating_of", "event_by_name", "load", "lock_event", "rate_game", "rating_of",
           "ratings_of"]


def event_by_name(session: Session, name: str) -> Event | None:
    return session.exec(select(Event).where(func.lower(Event.name) == name.lower())).first()


def lock_event(session: Session, event_id: int) -> Event:
    """The event row, locked on PostgreSQL: two games of one round ending at once must not both pair it.

    SQLite ignores FOR UPDATE, and needs nothing: every writer holds the whole file.
    """
    statement = select(Event).where(Event.id == event_id).with_for_update()
    # populate_existing: another transaction may have changed the row before we had the lock.
    return session.exec(statement.execution_options(populate_existing=True)).one()


def rating_of(session: Session, account_id: int, variant: str) -> Elo:
    return _elo(session.exec(select(Rating).where(Rating.account_id == account_id, Rating.variant == variant)).first())


def ratings_of(session: Session, account_ids: Sequence[int], variant: str) -> dict[int, Elo]:
    rows = session.exec(select(Rating).where(col(Rating.account_id).in_(list(account_ids)),
                                             Rating.variant == variant)).all()
    found = {row.account_id: Elo(row.rating, row.games) for row in rows}
    return {account_id: found.get(account_id, Elo()) for account_id in account_ids}


def _elo(row: Rating | None) -> Elo:
    return Elo(row.rating, row.games) if row else Elo()


def _store_rating(session: Session, rows: dict[int, Rating], account_id: int, variant: str, elo: Elo) -> None:
    """Write ``elo`` into the player's row of ``rows`` (read before), or a new row kept there."""
    row = rows.get(account_id)
    if row is None:
        row = rows[account_id] = Rating(account_id=account_id, variant=variant)
    row.rating, row.games, row.updated_at = elo.rating, elo.games, utcnow()
    session.add(row)


def is_rated(game: Game) -> bool:
    """Every finished game is rated except forfeits, which nobody played out, aborted games (result ``*``),
    and games played with ``option rated=no``."""
    return game.status == GameStatus.FINISHED and game.result in ("1-0", "0-1", "1/2-1/2") \
        and not game.reason.startswith("forfeit") and game_rated(game.options)


def rate_game(session: Session, game: Game) -> tuple[Elo, Elo] | None:
    """Update both players' ratings in the game's variant, once; the new ratings, or None if unrated."""
    if not is_rated(game) or game.extras.get("rated"):
        return None
    if computer_seat(game) is not None:
        return _rate_against_computer(session, game)
    # Both rows in one look, written back by the flush that ends the game's work: a sweep rates up to a
    # hundred games at once, and four looks a game (each flushing the row before) were two fifths of its time.
    with session.no_autoflush:
        rows = {row.account_id: row for row in session.exec(select(Rating).where(
            col(Rating.account_id).in_([game.white_id, game.black_id]), Rating.variant == game.variant))}
    new_white, new_black = rated_game(_elo(rows.get(game.white_id)), _elo(rows.get(game.black_id)),
                                      score_of(game.result)[0])
    _store_rating(session, rows, game.white_id, game.variant, new_white)
    _store_rating(session, rows, game.black_id, game.variant, new_black)
    game.extras = {**game.extras, "rated": True}
    session.add(game)
    return new_white, new_black


def computer_rating_of(session: Session, account_id: int, variant: str) -> Elo:
    """``account_id``'s rating on the computer list of ``variant`` (games against the computer only)."""
    row = session.exec(select(ComputerRating).where(ComputerRating.account_id == account_id,
                                                    ComputerRating.variant == variant)).first()
    return Elo(row.rating, row.games) if row else Elo()


def _rate_against_computer(session: Session, game: Game) -> tuple[Elo, Elo]:
    """Rate the player on the computer list against the level's fixed anchor, which does not move."""
    computer = computer_seat(game)
    assert computer is not None
    player = player_id(game, computer.other)
    with session.no_autoflush:
        mine = computer_rating_of(session, player, game.variant)
    anchor = Elo(LEVEL_RATINGS[computer_level(game)], PROVISIONAL_GAMES)
    white, black = (mine, anchor) if computer is Seat.BLACK else (anchor, mine)
    new_white, new_black = rated_game(white, black, score_of(game.result)[0])
    updated = new_black if computer is Seat.WHITE else new_white
    row = session.exec(select(ComputerRating).where(ComputerRating.account_id == player,
                                                    ComputerRating.variant == game.variant)).first()
    if row is None:
        row = ComputerRating(account_id=player, variant=game.variant)
    row.rating, row.games, row.updated_at = updated.rating, updated.games, utcnow()
    session.add(row)
    game.extras = {**game.extras, "rated": True}
    session.add(game)
    return (updated, anchor) if computer is Seat.BLACK else (anchor, updated)


@dataclass
class EventData:
    """An event with its players (in start order), their accounts and ratings, and its games."""

    event: Event
    players: list[EventPlayer]
    accounts: dict[int, Account]
    ratings: dict[int, Elo]
    games: list[Game]

    def handle(self, account_id: int) -> str:
        account = self.accounts.get(account_id)
        return account.handle if account else f"#{account_id}"

    def entry(self, account_id: int) -> EventPlayer | None:
        return next((p for p in self.players if p.account_id == account_id), None)


def load(session: Session, event: Event) -> EventData:
    """Everything the standings, crosstable and pairings of ``event`` need."""
    players = list(session.exec(select(EventPlayer).where(EventPlayer.event_id == event.id)
                                .order_by(col(EventPlayer.seed), col(EventPlayer.id))).all())
    ids = [p.account_id for p in players if p.account_id is not None]
    accounts = {a.id: a for a in session.exec(select(Account).where(col(Account.id).in_(ids))).all()
                if a.id is not None}
    games = list(session.exec(select(Game).where(Game.event_id == event.id)
                              .order_by(col(Game.event_round), col(Game.id))).all())
    return EventData(event=event, players=players, accounts=accounts,
                     ratings=ratings_of(session, ids, event.variant), games=games)
