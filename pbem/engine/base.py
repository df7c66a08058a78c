"""The Variant protocol and the small immutable values every engine speaks."""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from pbem.engine.board_view import BoardView, Highlight
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
    #: The squares a picture highlights for this turn (public: from, to, a square left or returned to).
    highlights: tuple[Highlight, ...] = ()


@dataclass(frozen=True, slots=True)
class View:
    """What one audience may know of a position, as plain text for templates."""

    diagram: str
    to_move: Seat | None
    move_number: int
    status: tuple[str, ...] = ()  # public lines: check, pool contents, pending offers
    private: tuple[str, ...] = ()  # lines only this audience may read (own secrets)
    #: The same position as data for a picture, built for the same audience (None: no picture).
    board: BoardView | None = None


@runtime_checkable
class Variant(Protocol[StateT, ActionT]):
    """One game's rules behind one interface; the core never looks inside a state.

    Geometry that can change during play (attack boards, moving spaces,
    hyperspace pools) lives in the state, never in module constants. Game
    options reach an engine once, through its constructor
    (``get_variant(name, options)``); ``setup`` validates them. Optional
    abilities (fast perft, secrets, PGN export) are the protocols of
    :mod:`pbem.engine.capabilities`.
    """

    key: ClassVar[str]
    aliases: ClassVar[tuple[str, ...]]
    title: ClassVar[str]
    #: Rulings from ../shared/spec/variants/ this engine implements (ids).
    rulings: ClassVar[tuple[str, ...]]
    #: Whether a move may not leave the own king attacked (False: a game without check).
    royal_check: ClassVar[bool]

    def setup(self) -> StateT: ...
    def to_act(self, state: StateT) -> Seat | None: ...
    def move_number(self, state: StateT) -> int: ...
    def legal_actions(self, state: StateT) -> Iterator[ActionT]: ...
    def parse_action(self, state: StateT, text: str) -> ActionT: ...
    def describe(self, state: StateT, action: ActionT) -> str: ...
    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]: ...
    def outcome(self, state: StateT) -> Outcome | None: ...
    def claim_draw(self, state: StateT) -> Outcome | None: ...
    def view(self, state: StateT, audience: Recipient, highlights: Sequence[Highlight] = (),
             picture: bool = True, white_bottom: bool = False) -> View: ...
    def help_text(self) -> str: ...
    def dump(self, state: StateT) -> dict[str, Any]: ...
    def load(self, data: Mapping[str, Any]) -> StateT: ...


def automatic_draw(halfmove_clock: int, repetitions: int) -> Outcome | None:
    """The draws that need no claim (FIDE 9.6): 75 moves without capture or pawn move, fivefold repetition."""
    if halfmove_clock >= 150:
        return Outcome.draw("75-move rule")
    if repetitions >= 5:
        return Outcome.draw("fivefold repetition")
    return None


def claimable_draw(game_over: bool, halfmove_clock: int, repetitions: int) -> Outcome | None:
    """The draw the player to move may claim now: 50 moves without capture or pawn move, or threefold.

    Spec/variants/README.md: 50 moves and threefold are claims, not automatic ends.
    """
    if game_over:
        return None
    if halfmove_clock >= 100:
        return Outcome.draw("50-move rule")
    if repetitions >= 3:
        return Outcome.draw("threefold repetition")
    return None


def side_title(seat: Seat) -> str:
    """``White`` or ``Black``, as status lines and notes write a side."""
    return seat.value.capitalize()


@dataclass
class VariantBase(Generic[StateT, ActionT]):
    """What every engine repeats, as template methods over a few hooks (python-chess style).

    The templates: ``to_act`` and ``legal_actions`` (nothing once the game is over),
    ``parse_action`` and ``apply`` (refused once the game is over; ``apply`` checks
    legality, plays, and adds the ``+``/``#`` suffix), ``outcome``, ``claim_draw``
    (50 moves and threefold, spec README) and ``view`` (the "White to move (move N)." /
    "Game over: ..." line, the check line, the diagram flipped for Black).

    The hooks a variant fills in:

    - ``_initial_state()``: the start position from ``self.options`` (validating them);
    - ``_outcome(state)``: mate, stalemate and the draws that end the game by themselves;
    - ``_side(state)``: the side to move, over or not; ``_fullmove(state)``: the move number;
    - ``_rules_moves(state)``: the legal moves, game over or not (a container: ``in`` works);
    - ``_parse(state, text)``: one move line as a legal action (MoveError otherwise);
    - ``_play(state, action)``: the plain successor state, no checks;
    - ``_in_check(state)``: whether the side to move is in check (False without check);
    - ``_illegal_reason(state, action)``: the refusal text of an action not in ``_rules_moves``;
    - ``_check_legal(state, action)``: override when legality is more than membership;
    - ``_move(state, action)``: successor, record body and notes (default: ``_play``,
      ``describe`` and ``_notes(before, action, after)``);
    - ``_highlights(before, action, after)``: the public (square name, Mark) pairs a picture
      marks for the turn (``Transition.highlights``; default none);
    - ``_board(state, audience, highlights, flipped)``: the position as a BoardView for ``audience``,
      turned (Black at the bottom) where ``flipped``;
    - ``_draw_counters(state)``: (halfmove clock, repetitions) where draws may be claimed;
    - ``_check_line(state)``, ``_extra_status(state, over)``, ``_private(state, audience)``
      and ``_diagram(state, flipped)``: the parts of ``view``.

    The default ``parse_action`` follows python-chess: canonicalise the text, then
    look for exactly one legal action whose canonical form matches, so the parser can
    never accept a move the engine forbids.
    """

    key: ClassVar[str] = ""
    aliases: ClassVar[tuple[str, ...]] = ()
    title: ClassVar[str] = ""
    rulings: ClassVar[tuple[str, ...]] = ()
    royal_check: ClassVar[bool] = True
    #: The variant's help text (its helptext.py), returned by ``help_text``.
    help: ClassVar[str] = ""
    options: dict[str, object] = field(default_factory=dict)
    #: The last state whose outcome was worked out, and that outcome (see _over).
    _last: tuple[Any, Outcome | None] | None = field(default=None, init=False, repr=False, compare=False)
    #: The last text view made (see view): state, audience, flipped, the view without its picture.
    _last_text: tuple[Any, Recipient, bool, View] | None = field(default=None, init=False, repr=False,
                                                                compare=False)

    def help_text(self) -> str:
        return self.help

    def _over(self, state: StateT) -> Outcome | None:
        """``_outcome(state)``, kept for the last state asked about: a move's mails ask a dozen times about the
        same two states (whose turn, over or not, the picture), and the search asks about a node, then for its
        moves. States are immutable; the entry holds its state, so no other object can take its identity."""
        last = self._last  # one read: another thread may replace the entry meanwhile
        if last is not None and last[0] is state:
            return last[1]
        outcome = self._outcome(state)
        self._last = (state, outcome)
        return outcome

    # -- hooks ------------------------------------------------------------------------------------

    def _initial_state(self) -> StateT:
        raise NotImplementedError

    def _outcome(self, state: StateT) -> Outcome | None:
        raise NotImplementedError

    def _side(self, state: StateT) -> Seat:
        raise NotImplementedError

    def _fullmove(self, state: StateT) -> int:
        raise NotImplementedError

    def _rules_moves(self, state: StateT) -> Collection[ActionT]:
        raise NotImplementedError

    def _parse(self, state: StateT, text: str) -> ActionT:
        wanted = text.strip().lower()
        matches = [a for a in self.legal_actions(state) if self.describe(state, a).lower() == wanted]
        if not matches:
            raise IllegalMoveError(f"illegal move: {text!r}")
        if len(matches) > 1:
            raise AmbiguousMoveError(f"ambiguous move: {text!r}")
        return matches[0]

    def _play(self, state: StateT, action: ActionT) -> StateT:
        raise NotImplementedError

    def _in_check(self, state: StateT) -> bool:
        return False

    def _illegal_reason(self, state: StateT, action: ActionT) -> str:
        return f"illegal move {action!r}"

    def _check_legal(self, state: StateT, action: ActionT) -> None:
        if action not in self._rules_moves(state):
            raise IllegalMoveError(self._illegal_reason(state, action))

    def _move(self, state: StateT, action: ActionT) -> tuple[StateT, str, list[Note]]:
        new = self._play(state, action)
        return new, self.describe(state, action), list(self._notes(state, action, new))

    def _notes(self, before: StateT, action: ActionT, after: StateT) -> Iterable[Note]:
        return ()

    def _highlights(self, before: StateT, action: ActionT, after: StateT) -> Iterable[Highlight]:
        """The squares a picture marks for this turn, by name; public information only."""
        return ()

    def _draw_counters(self, state: StateT) -> tuple[int, int] | None:
        return None

    def _check_line(self, state: StateT) -> str:
        return f"{side_title(self._side(state))} is in check."

    def _extra_status(self, state: StateT, over: Outcome | None) -> Iterable[str]:
        return ()

    def _private(self, state: StateT, audience: Recipient) -> Iterable[str]:
        return ()

    def _diagram(self, state: StateT, flipped: bool) -> str:
        raise NotImplementedError

    def _board(self, state: StateT, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView | None:
        """The position as picture data for ``audience`` (None until the variant draws one)."""
        return None

    # -- templates --------------------------------------------------------------------------------

    def setup(self) -> StateT:
        """The initial position under ``self.options``; bad options raise ValueError here."""
        return self._initial_state()

    def to_act(self, state: StateT) -> Seat | None:
        return None if self._over(state) is not None else self._side(state)

    def move_number(self, state: StateT) -> int:
        return self._fullmove(state)

    def legal_actions(self, state: StateT) -> Iterator[ActionT]:
        if self._over(state) is not None:
            return iter(())
        return iter(self._rules_moves(state))

    def describe(self, state: StateT, action: ActionT) -> str:
        raise NotImplementedError

    def parse_action(self, state: StateT, text: str) -> ActionT:
        self._refuse_if_over(state)
        return self._parse(state, text)

    def apply(self, state: StateT, action: ActionT) -> Transition[StateT]:
        self._refuse_if_over(state)
        self._check_legal(state, action)
        new, record, notes = self._move(state, action)
        if self._in_check(new):
            record += "+" if self._has_moves(new) else "#"
        return Transition(new, record, tuple(notes), tuple(self._highlights(state, action, new)))

    def _has_moves(self, state: StateT) -> bool:
        return len(self._rules_moves(state)) > 0

    def _refuse_if_over(self, state: StateT) -> None:
        over = self._over(state)
        if over is not None:
            raise IllegalMoveError(f"the game is over ({over.result}, {over.reason})")

    def outcome(self, state: StateT) -> Outcome | None:
        return self._over(state)

    def claim_draw(self, state: StateT) -> Outcome | None:
        counters = self._draw_counters(state)
        if counters is None:
            return None
        return claimable_draw(self._over(state) is not None, *counters)

    def view(self, state: StateT, audience: Recipient, highlights: Sequence[Highlight] = (),
             picture: bool = True, white_bottom: bool = False) -> View:
        """What ``audience`` may know of ``state``; ``highlights`` mark the last move in the picture.

        ``picture=False`` leaves out the picture data (``board``) where only the text is wanted.
        Black sees the board turned (Black at the bottom) where the variant turns it, unless
        ``white_bottom`` (a player's ``board white-bottom`` setting).
        """
        flipped = audience is Seat.BLACK and not white_bottom
        text = self._text_view(state, audience, flipped)
        return replace(text, board=self._board(state, audience, highlights, flipped)) if picture else text

    def _text_view(self, state: StateT, audience: Recipient, flipped: bool) -> View:
        """The view without its picture, kept for the last state, audience and turn asked about: a move's
        mail to the opponent shows it in its text and its HTML part (as ``_over``, the entry holds its state)."""
        last = self._last_text
        if last is not None and last[0] is state and last[1] is audience and last[2] is flipped:
            return last[3]
        over = self._over(state)
        side = self._side(state)
        status: list[str] = []
        if over is not None:
            status.append(f"Game over: {over.result} ({over.reason}).")
        else:
            status.append(f"{side_title(side)} to move (move {self._fullmove(state)}).")
            if self._in_check(state):
                status.append(self._check_line(state))
        status.extend(self._extra_status(state, over))
        text = View(
            diagram=self._diagram(state, flipped),
            to_move=None if over is not None else side,
            move_number=self._fullmove(state),
            status=tuple(status),
            private=tuple(self._private(state, audience)),
        )
        self._last_text = (state, audience, flipped, text)
        return text
