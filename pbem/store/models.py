"""The tables: accounts, challenges, games, moves, the inbox and the outbox, the computer's ratings and analyses."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, LargeBinary, Text, UniqueConstraint, text
from sqlmodel import Field, SQLModel

from pbem.store.vocabulary import ChallengeStatus, GameStatus, InboxStatus, NoticeStatus, OutboxKind, OutboxStatus

#: A mail row whose body retention has not emptied yet: the condition of the retention indexes, which a query
#: must state in these very words (a bound parameter instead of the 0 would not match the index).
UNPURGED = "length(raw) > 0"


def utcnow() -> datetime:
    return datetime.now(UTC)


class Setting(SQLModel, table=True):
    """Server-wide values kept with the data, such as a generated secret key."""

    key: str = Field(primary_key=True, max_length=64)
    value: str = Field(sa_column=Column(Text, nullable=False))


class Account(SQLModel, table=True):
    """A registered player: a handle and the one address that speaks for it."""

    id: int | None = Field(default=None, primary_key=True)
    handle: str = Field(index=True, unique=True, max_length=32)
    email: str = Field(index=True, unique=True, max_length=320)
    created_at: datetime = Field(default_factory=utcnow)
    vacation_until: datetime | None = Field(default=None, index=True)  # clocks paused until then
    vacation_year: int = 0  # the calendar year vacation_used_days counts
    vacation_used_days: int = 0
    #: The player's settings (``set KEY VALUE``): only those changed from the defaults (pbem.app.settings).
    settings: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    #: Digest players: when the next daily digest is due (the sweep's index), and when the last one went.
    next_digest_at: datetime | None = Field(default=None, index=True)
    last_digest_at: datetime | None = None
    #: Set by the operator (`pbem admin player H disable`): every mail from or for the account is refused.
    disabled: bool = False


class Challenge(SQLModel, table=True):
    """An open, accepted or declined invitation to play one game; with no opponent and status seeking, a seek."""

    id: int | None = Field(default=None, primary_key=True)
    challenger_id: int = Field(foreign_key="account.id", index=True)
    opponent_id: int | None = Field(default=None, foreign_key="account.id", index=True)
    opponent_email: str = Field(max_length=320)  # set for invitations of unregistered addresses
    variant: str = Field(max_length=32)
    color: str = Field(default="random", max_length=8)  # the challenger's colour
    time_control: str = Field(default="", max_length=32)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    status: str = Field(default=ChallengeStatus.OPEN, max_length=16, index=True)
    game_id: int | None = Field(default=None, foreign_key="game.id")
    created_at: datetime = Field(default_factory=utcnow)
    #: Seeks only: when it lapses, and the rating range (in its variant) of who may accept it.
    expires_at: datetime | None = None
    rating_low: int | None = None
    rating_high: int | None = None


class Game(SQLModel, table=True):
    """One game: its engine state as JSON, the seats and the clock."""

    #: The sweep's questions, "active games due by now" and "the earliest event of an active game", answered
    #: from one index in O(due games) and O(1): with status and next_event_at in separate indexes SQLite
    #: (which has no statistics) walks every active game instead.
    __table_args__ = (Index("ix_game_status_next_event_at", "status", "next_event_at"),)

    id: int | None = Field(default=None, primary_key=True)
    variant: str = Field(max_length=32)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    white_id: int = Field(foreign_key="account.id", index=True)
    black_id: int = Field(foreign_key="account.id", index=True)
    #: Found by status through ix_game_status_next_event_at, whose first column it is (migration 0013).
    status: str = Field(default=GameStatus.ACTIVE, max_length=16)
    result: str = Field(default="*", max_length=8)
    reason: str = Field(default="", max_length=64)
    ply: int = 0
    time_control: str = Field(default="", max_length=32)
    deadline: datetime | None = None
    #: pbem.clock.Clock as JSON: budgets, the running turn, reminders sent.
    clock: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    #: The tournament (pbem.events) this game belongs to, and its round there; None for casual games.
    event_id: int | None = Field(default=None, index=True)
    event_round: int = 0
    #: Small per-game bookkeeping of the service: pending takeback, draw-offer history, conditional moves.
    extras: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    #: The earliest reminder, late notice or timeout still to come; the sweep reads it with the status, from
    #: ix_game_status_next_event_at.
    next_event_at: datetime | None = None
    draw_offer: str = Field(default="", max_length=8)  # the seat with a standing draw offer
    #: Games against the computer (pbem.app.computer): since when it owes a move or an answer; None when
    #: it owes nothing. The computer's loop polls this index; it is set and cleared with the game.
    computer_due_at: datetime | None = Field(default=None, index=True)
    version: int = 0  # bumped by every change; optimistic check on top of the row lock
    started_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class MoveRecord(SQLModel, table=True):
    """One turn of a game's public record, as the variant wrote it."""

    __table_args__ = (UniqueConstraint("game_id", "ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")  # found by the unique (game_id, ply) index, its first column
    ply: int
    seat: str = Field(max_length=8)
    move_number: int
    record: str = Field(sa_column=Column(Text, nullable=False))
    #: The engine's dump of the position after this turn, secrets included: never mailed as such;
    #: exports, takebacks and delayed observer views are built from it.
    state_after: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    played_at: datetime = Field(default_factory=utcnow)


class DigestItem(SQLModel, table=True):
    """A game mail held for a player who reads one digest a day: its news and the notes it relayed."""

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True)
    game_id: int = Field(foreign_key="game.id")
    news: str = Field(sa_column=Column(Text, nullable=False))
    notes: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)


class GameNotice(SQLModel, table=True):
    """A deadline event the sweep decided (a reminder, a late notice, a game ended on time) whose mails the
    worker still has to write; the row is deleted in the transaction that queues them, so each goes once."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    kind: str = Field(max_length=16)  # NoticeKind
    seat: str = Field(max_length=8)  # whose clock it was
    #: The game's ply when it was decided: a reminder or late notice for a turn played since is dropped.
    ply: int = 0
    details: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    #: NoticeStatus: new, or failed (kept for the operator, with the error)
    status: str = Field(default=NoticeStatus.NEW, max_length=8)
    error: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)

    __table_args__ = (Index("ix_gamenotice_status_id", "status", "id"),)


class Observation(SQLModel, table=True):
    """An account that receives a game's public mails."""

    __table_args__ = (UniqueConstraint("game_id", "account_id"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    account_id: int = Field(foreign_key="account.id", index=True)
    since: datetime = Field(default_factory=utcnow)


class InboxItem(SQLModel, table=True):
    """A mail accepted by the listener, stored before the 250; the worker applies it once."""

    #: Retention's index (pbem.store.retention): only the rows whose body is still there, so that the hourly
    #: purge visits the bodies it empties, not every mail ever received. The status leads because SQLite, with
    #: no statistics, would otherwise prefer the plain status index (every processed mail ever).
    __table_args__ = (Index("ix_inboxitem_unpurged", "status", "received_at", sqlite_where=text(UNPURGED),
                            postgresql_where=text(UNPURGED)),)

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(index=True, unique=True, max_length=998)
    envelope_from: str = Field(default="", max_length=320)
    recipients: list[str] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    #: The listener's reading of ``raw`` for the worker, as JSON (pbem.mail.inbound.reading); "" for none: the
    #: worker then reads ``raw`` itself.
    parsed: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    status: str = Field(default=InboxStatus.NEW, max_length=16, index=True)
    error: str = Field(default="", sa_column=Column(Text, nullable=False))
    received_at: datetime = Field(default_factory=utcnow)
    processed_at: datetime | None = None


class OutboxItem(SQLModel, table=True):
    """A rendered mail waiting for delivery; marked sent only after the relay's 250."""

    __table_args__ = (
        #: Delivery's index: the earliest due mail and the due ones found in the index alone. With status alone,
        #: SQLite reads every waiting row for its due time, past its body (a backlog while the relay is down).
        Index("ix_outboxitem_status_next_attempt_at", "status", "next_attempt_at"),
        #: Retention's index, as InboxItem's: the rows with a body, by the moment retention counts from.
        Index("ix_outboxitem_unpurged", "status", text("coalesce(sent_at, created_at)"),
              sqlite_where=text(UNPURGED), postgresql_where=text(UNPURGED)),
    )

    id: int | None = Field(default=None, primary_key=True)
    recipient: str = Field(max_length=320, index=True)
    message_id: str = Field(max_length=998)
    raw: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    #: Boards to draw into ``raw`` before it is sent (JSON, "" for none; pbem.mail.later_pictures).
    pictures: str = Field(default="", sa_column=Column(Text, nullable=False, server_default=""))
    game_id: int | None = None  # no query looks a game's mails up: an index would cost every insert
    kind: str = Field(default=OutboxKind.REPLY, max_length=16)
    status: str = Field(default=OutboxStatus.PENDING, max_length=16)  # by ix_outboxitem_status_next_attempt_at
    attempts: int = 0
    next_attempt_at: datetime = Field(default_factory=utcnow)  # read only with the status, as above
    leased_by: str = Field(default="", max_length=32)  # the delivering process, while it holds the row
    last_error: str = Field(default="", sa_column=Column(Text, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None



class RatingColumns(SQLModel):
    """The columns of a rating list's row: one player's Elo rating in one variant (pbem.events.ratings)."""

    id: int | None = Field(default=None, primary_key=True)
    account_id: int = Field(foreign_key="account.id", index=True)
    variant: str = Field(max_length=32)
    rating: float = 1500.0
    games: int = 0
    updated_at: datetime = Field(default_factory=utcnow)


class ComputerRating(RatingColumns, table=True):
    """A rating from games against the computer: a list of its own, never mixed with the ratings from
    games between people (event_models.Rating)."""

    __table_args__ = (UniqueConstraint("account_id", "variant"),)


class AnalysisRequest(SQLModel, table=True):
    """``analyse`` by mail: the engine's view of a game's position, mailed when the computer has looked."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id")
    account_id: int = Field(foreign_key="account.id")
    #: The ply analysed (the position the request was made in); the reply threads to the request.
    ply: int = 0
    in_reply_to: str = Field(default="", max_length=998)
    requested_at: datetime = Field(default_factory=utcnow)
    done_at: datetime | None = Field(default=None, index=True)
