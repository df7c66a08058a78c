"""The Variant protocol and the small immutable values every engine speaks."""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from pbem.engine.errors import AmbiguousMoveError, IllegalMoveError

StateT = TypeVar("StateT")
ActionT = TypeVar("ActionT")


class Seat(enum.StrEnum):
    """A side of a two-player game; the value is what mails and the database use."""

    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Seat:
        return Seat.BLACK if self is Seat.WHITE else Seat.WHITE

    def __str__(self) -> str:
        return self.value


class Audience(enum.StrEnum):
    """Who a view or a note is meant for, beyond the two seats."""

    PUBLIC = "public"  # opponent, observers, records: knows no secret
    REFEREE = "referee"  # the configured human referee: knows every secret


#: A note or view is addressed to one seat, to the public, or to the referee.
Recipient = Seat | Audience


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: ``result`` is ``1-0``, ``0-1`` or ``1/2-1/2``."""

    result: str
    reason: str

    @property
    def winner(self) -> Seat | None:
        return {"1-0": Seat.WHITE, "0-1": Seat.BLACK}.get(self.result)

    @classmethod
    def win(cls, seat: Seat, reason: str) -> Outcome:
        return cls("1-0" if seat is Seat.WHITE else "0-1", reason)

    @classmethod
    def draw(cls, reason: str) -> Outcome:
        return cls("1/2-1/2", reason)


@dataclass(frozen=True, slots=True)
class Note:
    """A line of news produced by a move, for one recipient or for everybody.

    ``to`` is ``None`` for everybody (both seats, observers, record); a seat
    for that seat only (e.g. the owner's commitment receipt); ``REFEREE``
    for the referee only.
    """

    text: str
    to: Recipient | None = None


@dataclass(frozen=True, slots=True)
class Transition(Generic[StateT]):
    """The result of applying one action: the new state and what to tell whom.

    ``record`` is the public canonical record of the turn (what the game
    record and the opponent see, e.g. ``Nb1-c3 &Bf4+``); ``notes`` carry
    anything beyond it, each for its own audience.
    """

    state: StateT
    record: str
    notes: tuple[Note, ...] = ()


@dataclass(frozen=True, slots=True)
class View:
    """What one audience may know of a position, as plain text for templates."""

    diagram: str
    to_move: Seat | None
    move_number: int
    status: tuple[str, ...] = ()  # public lines: check, pool contents, pending offers
    private: tuple[str, ...] = ()  # lines only this audience may read (own secrets)


@runtime_checkable
class Variant(Protocol[StateT, ActionT]):
    """One game's rules behind one interface; the core never looks inside a state.

    Geometry that can change during play (attack boards, moving spaces,
    hyperspace pools) lives in the state, never in module constants.
    """

    key: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    #: Rulings from ../shared/spec/variants/ this engine implements (ids).
    rulings: ClassVar[tuple[str, ...]]

    def setup(self, options: Mapping[str, object] | None = None) -> StateT: ...
    def to_act(self, state: StateT) -> Seat | None: ...
    def move_number(self, state: StateT) -> int: ...
    def legal_actions(self, state: StateT) -> Iterator[ActionT]: ...
    def parse_action(self, state: StateT, text: str) -> ActionT: ...
    def describe(self, state: StateT, action: ActionT) -> str: ...
    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]: ...
    def outcome(self, state: StateT) -> Outcome | None: ...
    def claim_draw(self, state: StateT) -> Outcome | None: ...
    def view(self, state: StateT, audience: Recipient) -> View: ...
    def secrets(self, state: StateT) -> Mapping[Seat, tuple[str, ...]]: ...
    def seal(self, state: StateT, action: ActionT, nonce: str) -> ActionT: ...
    def help_text(self) -> str: ...
    def dump(self, state: StateT) -> dict[str, Any]: ...
    def load(self, data: Mapping[str, Any]) -> StateT: ...


@dataclass
class VariantBase(Generic[StateT, ActionT]):
    """Shared behaviour for engines: parsing by matching against legal moves.

    Subclasses implement the rules; the default ``parse_action`` follows
    python-chess: canonicalise the text, then look for exactly one legal
    action whose canonical form matches, so the parser can never accept a
    move the engine forbids.
    """

    key: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    rulings: ClassVar[tuple[str, ...]] = ()
    options: dict[str, object] = field(default_factory=dict)

    def legal_actions(self, state: StateT) -> Iterator[ActionT]:
        raise NotImplementedError

    def describe(self, state: StateT, action: ActionT) -> str:
        raise NotImplementedError

    def parse_action(self, state: StateT, text: str) -> ActionT:
        wanted = text.strip().lower()
        matches = [a for a in self.legal_actions(state) if self.describe(state, a).lower() == wanted]
        if not matches:
            raise IllegalMoveError(f"illegal move: {text!r}")
        if len(matches) > 1:
            raise AmbiguousMoveError(f"ambiguous move: {text!r}")
        return matches[0]

    def claim_draw(self, state: StateT) -> Outcome | None:
        return None

    def secrets(self, state: StateT) -> Mapping[Seat, tuple[str, ...]]:
        return {}

    def seal(self, state: StateT, action: ActionT, nonce: str) -> ActionT:
        return action
