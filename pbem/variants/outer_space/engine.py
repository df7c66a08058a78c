"""The Outer Space Chess engine: the Variant protocol over the rules, notation and diagram."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from pbem.engine import IllegalMoveError, Note, Outcome, Seat, Transition, VariantBase, View
from pbem.engine.base import Recipient
from pbem.variants.outer_space import notation, rules
from pbem.variants.outer_space.diagram import diagram
from pbem.variants.outer_space.helptext import HELP_TEXT
from pbem.variants.outer_space.model import (
    HYPER_BH,
    INITIAL_POSITION,
    NAMES,
    PIECE_NAMES,
    QUIET_LIMIT,
    SQUARES,
    Action,
    Move,
    OuterSpaceState,
    dump_state,
    load_state,
    parse_position,
)
from pbem.variants.outer_space.refusals import pass_refusal, refusal

__all__ = ["OuterSpaceChess"]


def _title(seat: Seat) -> str:
    return seat.value.capitalize()


class OuterSpaceChess(VariantBase[OuterSpaceState, Action]):
    """Kuschinski's Outer Space Chess: a 5x8 board with Black Holes and a three-square hyperspace."""

    key: ClassVar[str] = "outer-space"
    aliases: ClassVar[tuple[str, ...]] = ("outer-space-chess", "osc")
    title: ClassVar[str] = "Outer Space Chess"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"A{n}" for n in range(1, 19))

    # -- the game ---------------------------------------------------------------------------------

    def setup(self, options: Mapping[str, object] | None = None) -> OuterSpaceState:
        if options:
            raise ValueError(f"Outer Space Chess has no options (got {', '.join(sorted(options))})")
        return parse_position(INITIAL_POSITION)

    def position(self, text: str) -> OuterSpaceState:
        """A state from the position string documented in ``model`` (tests, analysis)."""
        return parse_position(text)

    def to_act(self, state: OuterSpaceState) -> Seat | None:
        return None if rules.outcome(state) is not None else state.turn

    def move_number(self, state: OuterSpaceState) -> int:
        return state.move_number

    def legal_actions(self, state: OuterSpaceState) -> Iterator[Action]:
        yield from notation.action_map(state)

    def parse_action(self, state: OuterSpaceState, text: str) -> Action:
        return notation.parse(state, text)

    def describe(self, state: OuterSpaceState, action: Action) -> str:
        return notation.describe(action)

    def apply(self, state: OuterSpaceState, action: Action) -> Transition[OuterSpaceState]:
        over = rules.outcome(state)
        if over is not None:
            raise IllegalMoveError(f"the game is over ({over.result}, {over.reason})")
        raw = notation.action_map(state).get(action)
        if raw is None:
            raise IllegalMoveError(f"illegal move {notation.describe(action)!r}: {_reason(state, action)}")
        played = rules.play(state, raw)
        mover = _title(state.turn)
        record = notation.describe(action)
        notes: list[Note] = []
        marks = []
        for square in played.obliterated:
            landed = square == raw[1]
            cell = state.board[raw[0]] if landed else state.board[square]
            marks.append(notation.obliteration_mark(cell, square))
            cause = "it landed on a Black Hole while 2b was empty" if landed else "2b was vacated (ruling A11)"
            notes.append(Note(f"{rules.describe_piece(cell)} on {NAMES[square]} is destroyed: {cause}."))
        if marks:
            record += " " + " ".join(marks)
        if isinstance(action, Move):
            if played.captured and played.captured.upper() == "N":
                notes.append(Note(f"{mover}'s Galaxy captured {_title(state.turn.other)}'s Nebula."))
            elif played.captured and action.is_shot:
                notes.append(Note(f"{mover}'s Spaceship shot {rules.describe_piece(played.captured)} "
                                  f"on {action.target}."))
        else:
            notes.append(Note(f"{mover} passed (the Nebula moved last turn and no other move was legal)."))
        after = rules.outcome(played.state)
        if after is not None and not (played.captured and played.captured.upper() == "N"):
            notes.append(Note(f"Game over: {after.result} ({after.reason})."))
        return Transition(played.state, record, tuple(notes))

    def outcome(self, state: OuterSpaceState) -> Outcome | None:
        return rules.outcome(state)

    def perft(self, state: OuterSpaceState, depth: int) -> int:
        return rules.perft(state, depth)

    # -- views ------------------------------------------------------------------------------------

    def view(self, state: OuterSpaceState, audience: Recipient) -> View:
        over = rules.outcome(state)
        status: list[str] = []
        seat = state.turn
        if over is not None:
            status.append(f"Game over: {over.result} ({over.reason}).")
        else:
            status.append(f"{_title(seat)} to move (move {state.move_number}).")
            legal = notation.action_map(state)
            if list(legal) == [notation.PASS]:
                status.append(f"{_title(seat)} must pass: the Nebula moved last turn and no other move is legal.")
            elif state.nebula_moved[0 if seat is Seat.WHITE else 1]:
                status.append(f"{_title(seat)}'s Nebula moved last turn and may not move now.")
            for duty in rules.obligations(state):
                piece = f"{_title(seat)}'s {PIECE_NAMES[state.board[duty.square].upper()]} on {NAMES[duty.square]}"
                piece += f" (age {state.ages[duty.square - 40]})"
                if duty.duty == "exit":
                    when = "this turn" if duty.possible else "as soon as an exit is possible"
                    status.append(f"{piece} must leave hyperspace {when} (A6).")
                else:
                    when = "this turn" if duty.possible else "as soon as 2b is free"
                    status.append(f"{piece} must move to 2b {when} (A6).")
            if state.board[HYPER_BH] != ".":
                status.append("2b is occupied: Planets on Black Holes survive, Spaceships cannot enter.")
        if state.quiet >= QUIET_LIMIT // 3 and over is None:  # only worth a line once it starts to matter
            status.append(f"No capture for {state.quiet} plies; drawn at {QUIET_LIMIT} (30-move rule).")
        return View(diagram=diagram(state), to_move=None if over is not None else seat,
                    move_number=state.move_number, status=tuple(status))

    def help_text(self) -> str:
        return HELP_TEXT

    # -- storage ----------------------------------------------------------------------------------

    def dump(self, state: OuterSpaceState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> OuterSpaceState:
        return load_state(data)


def _reason(state: OuterSpaceState, action: Action) -> str:
    """Why ``action`` (built by hand, not parsed) is not legal here."""
    if not isinstance(action, Move):
        return pass_refusal(state)
    if action.origin not in SQUARES or action.target not in SQUARES:
        return "no such square"
    return refusal(state, SQUARES[action.origin], SQUARES[action.target]) + (
        "" if action.piece in PIECE_NAMES else f" (unknown piece letter {action.piece!r})")
