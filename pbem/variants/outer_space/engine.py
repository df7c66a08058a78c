"""The Outer Space Chess engine: the Variant protocol over the rules, notation and diagram."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pbem.engine.base import Note, Outcome, Recipient, Seat, VariantBase, side_title
from pbem.engine.board_view import BoardView, Highlight, Mark
from pbem.variants.outer_space import notation, rules, search_hooks
from pbem.variants.outer_space.diagram import board_view, diagram
from pbem.variants.outer_space.evaluation import evaluate
from pbem.variants.outer_space.explain import pass_refusal, refusal
from pbem.variants.outer_space.helptext import HELP_TEXT
from pbem.variants.outer_space.model import (
    HYPER_BH,
    INITIAL_POSITION,
    NAMES,
    PASS,
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
from pbem.variants.outer_space.rules import RawMove

__all__ = ["OuterSpaceChess"]


class OuterSpaceChess(VariantBase[OuterSpaceState, Action]):
    """Kuschinski's Outer Space Chess: a 5x8 board with Black Holes and a three-square hyperspace."""

    key: ClassVar[str] = "outer-space"
    aliases: ClassVar[tuple[str, ...]] = ("outer-space-chess", "osc")
    title: ClassVar[str] = "Outer Space Chess"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"A{n}" for n in range(1, 19))
    help: ClassVar[str] = HELP_TEXT

    #: Outer Space Chess has no check: a move may leave the own Galaxy attacked.
    royal_check: ClassVar[bool] = False

    # -- the game (hooks of VariantBase) -----------------------------------------------------------

    def _initial_state(self) -> OuterSpaceState:
        if self.options:
            raise ValueError(f"Outer Space Chess has no options (got {', '.join(sorted(self.options))})")
        return parse_position(INITIAL_POSITION)

    def position(self, text: str) -> OuterSpaceState:
        """A state from the position string documented in ``model`` (tests, analysis)."""
        return parse_position(text)

    def _outcome(self, state: OuterSpaceState) -> Outcome | None:
        return rules.outcome(state)

    def _side(self, state: OuterSpaceState) -> Seat:
        return state.turn

    def _fullmove(self, state: OuterSpaceState) -> int:
        return state.move_number

    def _rules_moves(self, state: OuterSpaceState) -> Mapping[Action, RawMove]:
        return notation.action_map(state)

    def parse_action(self, state: OuterSpaceState, text: str) -> Action:
        # The notation refuses after the game's end itself, naming the move ("illegal move 'x': the game is over").
        return notation.parse(state, text)

    def describe(self, state: OuterSpaceState, action: Action) -> str:
        return notation.describe(action)

    def _illegal_reason(self, state: OuterSpaceState, action: Action) -> str:
        return f"illegal move {notation.describe(action)!r}: {_reason(state, action)}"

    def _play(self, state: OuterSpaceState, action: Action) -> OuterSpaceState:
        return rules.play(state, notation.action_map(state)[action]).state

    def _move(self, state: OuterSpaceState, action: Action) -> tuple[OuterSpaceState, str, list[Note]]:
        raw = notation.action_map(state)[action]
        played = rules.play(state, raw)
        mover = side_title(state.turn)
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
                notes.append(Note(f"{mover}'s Galaxy captured {side_title(state.turn.other)}'s Nebula."))
            elif played.captured and action.is_shot:
                notes.append(Note(f"{mover}'s Spaceship shot {rules.describe_piece(played.captured)} "
                                  f"on {action.target}."))
        else:
            notes.append(Note(f"{mover} passed (the Nebula moved last turn and no other move was legal)."))
        after = rules.outcome(played.state)
        if after is not None and not (played.captured and played.captured.upper() == "N"):
            notes.append(Note(f"Game over: {after.result} ({after.reason})."))
        return played.state, record, notes

    def perft(self, state: OuterSpaceState, depth: int) -> int:
        return rules.perft(state, depth)

    # -- search (capabilities of pbem.engine.capabilities) ----------------------------------------

    def position_key(self, state: OuterSpaceState) -> Hashable:
        return search_hooks.position_key(state)

    def evaluate(self, state: OuterSpaceState) -> int:
        return evaluate(state)

    def capture_values(self, state: OuterSpaceState, action: Action) -> tuple[int, int] | None:
        return search_hooks.capture_values(state, action)

    def successor(self, state: OuterSpaceState, action: Action) -> OuterSpaceState:
        return search_hooks.successor(state, action)

    def search_actions(self, state: OuterSpaceState) -> tuple[Action, ...]:
        """The legal actions without asking again whether the game is over (the search has asked)."""
        return tuple(self._rules_moves(state))

    # -- views ------------------------------------------------------------------------------------

    def _extra_status(self, state: OuterSpaceState, over: Outcome | None) -> list[str]:
        status: list[str] = []
        seat = state.turn
        if over is None:
            legal = notation.action_map(state)
            if list(legal) == [PASS]:
                status.append(f"{side_title(seat)} must pass: the Nebula moved last turn and no other move is legal.")
            elif state.nebula_moved[0 if seat is Seat.WHITE else 1]:
                status.append(f"{side_title(seat)}'s Nebula moved last turn and may not move now.")
            for duty in rules.obligations(state):
                piece = (f"{side_title(seat)}'s {PIECE_NAMES[state.board[duty.square].upper()]} "
                         f"on {NAMES[duty.square]}")
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
        return status

    def _diagram(self, state: OuterSpaceState, flipped: bool) -> str:
        return diagram(state)  # the spec's one orientation for both sides

    def _board(self, state: OuterSpaceState, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView:
        return board_view(state, highlights)  # no secrets, one orientation: the same for every audience

    def _highlights(self, before: OuterSpaceState, action: Action, after: OuterSpaceState) -> Iterable[Highlight]:
        """From and to of the move (for a Spaceship's shot: the ship's square and the square shot at)."""
        if not isinstance(action, Move):
            return ()
        return ((action.origin, Mark.MOVE_FROM), (action.target, Mark.MOVE_TO))


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


#: The class the registry (pbem.variants) plugs in.
VARIANT = OuterSpaceChess
