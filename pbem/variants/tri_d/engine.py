"""The tri-d engine: the Variant protocol over geometry, rules, notation and the diagram."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from pbem.engine import IllegalMoveError, Note, Outcome, Seat, Transition, VariantBase, View
from pbem.engine.base import Recipient
from pbem.engine.draws import claimable_draw
from pbem.variants.tri_d import notation, rules
from pbem.variants.tri_d.diagram import diagram
from pbem.variants.tri_d.explain import explain
from pbem.variants.tri_d.helptext import HELP_TEXT
from pbem.variants.tri_d.model import (
    BLACK,
    BOARD,
    BOX,
    COLOR_NAMES,
    EP,
    KING,
    PINS,
    WHITE,
    Move,
    Rules,
    TriDState,
    dump_state,
    load_raw,
    square_name,
    type_of,
)

__all__ = ["TriDChess", "parse_options"]

_TRUE = ("yes", "true", "on", "1", "allowed")
_FALSE = ("no", "false", "off", "0", "forbidden")
_OPTION_HELP = ("first-move-castling=yes|no, carried-double-step=yes|no, "
                "knight-routes=both|destination")


def _flag(key: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"option {key} takes yes or no, not {value!r}")


def parse_options(options: Mapping[str, object]) -> Rules:
    """Game options as Rules; unknown keys and bad values raise ValueError naming the valid ones."""
    values: dict[str, bool] = {}
    for raw_key, value in options.items():
        key = str(raw_key).strip().lower().replace("_", "-")
        if key == "first-move-castling":
            values["castle_on_first_move"] = _flag(key, value)
        elif key == "carried-double-step":
            values["carried_double_step"] = _flag(key, value)
        elif key == "knight-routes":
            text = str(value).strip().lower()
            if text not in ("both", "destination"):
                raise ValueError(f"option knight-routes takes both or destination, not {value!r}")
            values["knight_two_routes"] = text == "both"
        else:
            raise ValueError(f"unknown option {raw_key!r} for tri-d chess (options: {_OPTION_HELP})")
    return Rules(**values)


class TriDChess(VariantBase[TriDState, Move]):
    """Victor Rules Space Chess v0.1.1 as ruled in shared/spec/variants/tri-d.md."""

    key: ClassVar[str] = "tri-d"
    aliases: ClassVar[tuple[str, ...]] = ("victor", "star-trek", "space-chess-victor")
    title: ClassVar[str] = "Victor Rules Space Chess (tri-d)"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"V{n}" for n in range(1, 18))

    # -- the game ---------------------------------------------------------------------------------

    def setup(self, options: Mapping[str, object] | None = None) -> TriDState:
        return rules.initial_state(parse_options(options if options else self.options))

    def to_act(self, state: TriDState) -> Seat | None:
        if rules.outcome(state) is not None:
            return None
        return _seat(state.turn)

    def move_number(self, state: TriDState) -> int:
        return state.fullmove

    def legal_actions(self, state: TriDState) -> Iterator[Move]:
        if rules.automatic_draw(state) is not None:
            return
        yield from rules.legal_moves(state)

    def parse_action(self, state: TriDState, text: str) -> Move:
        over = rules.outcome(state)
        if over is not None:
            raise IllegalMoveError(f"the game is over ({over.result}, {over.reason})")
        return notation.parse(state, text)

    def describe(self, state: TriDState, action: Move) -> str:
        return notation.describe(state, action)

    def apply(self, state: TriDState, action: Move) -> Transition[TriDState]:
        over = rules.outcome(state)
        if over is not None:
            raise IllegalMoveError(f"the game is over ({over.result}, {over.reason})")
        if action not in rules.legal_moves(state):
            if not _well_formed(action):
                raise IllegalMoveError(f"illegal move {action!r}: not a move of this game")
            raise IllegalMoveError(f"illegal move {notation.describe(state, action)!r}: {explain(state, action)}")
        new = rules.play(state, action)
        record = notation.describe(state, action)
        if rules.in_check(new):
            record += "+" if rules.legal_moves(new) else "#"
        before = dict(state.boards)
        notes = [Note(f"The attack board at {PINS[pin].name} now belongs to {COLOR_NAMES[owner]} (ruling V12).")
                 for pin, owner in new.boards if before.get(pin, owner) != owner]
        return Transition(new, record, tuple(notes))

    # -- results ----------------------------------------------------------------------------------

    def outcome(self, state: TriDState) -> Outcome | None:
        return rules.outcome(state)

    def claim_draw(self, state: TriDState) -> Outcome | None:
        return claimable_draw(rules.outcome(state) is not None, state.halfmove, rules.repetitions(state))

    def perft(self, state: TriDState, depth: int) -> int:
        """Leaf count straight on the board arrays, without notation, history or draw checks."""
        return rules.perft(state, depth)

    # -- views ------------------------------------------------------------------------------------

    def view(self, state: TriDState, audience: Recipient) -> View:
        over = rules.outcome(state)
        status: list[str] = []
        to_move = _seat(state.turn)
        if over is not None:
            status.append(f"Game over: {over.result} ({over.reason}).")
        else:
            status.append(f"{COLOR_NAMES[state.turn]} to move (move {state.fullmove}).")
            if rules.in_check(state):
                status.append(f"{COLOR_NAMES[state.turn]} is in check.")
            if any(m.kind == EP for m in rules.legal_moves(state)):
                status.append(f"En passant capture possible on {square_name(state.ep)}.")
        return View(diagram=diagram(state), to_move=None if over is not None else to_move,
                    move_number=state.fullmove, status=tuple(status))

    def help_text(self) -> str:
        return HELP_TEXT

    # -- storage ----------------------------------------------------------------------------------

    def dump(self, state: TriDState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> TriDState:
        state = load_raw(data)
        _validate(state)
        if not state.history:
            # A hand-made position (tests, adjudication) starts its own repetition history.
            state = replace(state, history=(rules.position_key(state),))
        return state


def _well_formed(action: object) -> bool:
    if not isinstance(action, Move) or action.kind not in range(BOARD + 1) or action.promo not in range(6):
        return False
    limit = len(PINS) if action.kind == BOARD else BOX
    return 0 <= action.src < limit and 0 <= action.dst < limit


def _seat(turn: int) -> Seat:
    return Seat.WHITE if turn == WHITE else Seat.BLACK


def _validate(state: TriDState) -> None:
    """Refuse stored positions the rules could not have produced in shape (not in history)."""
    if len(state.board) != BOX or len(state.boards) != 4 or len({p for p, _ in state.boards}) != 4:
        raise ValueError("a tri-d state needs four attack boards on four different pins")
    geo = rules.geometry(state)
    for p, code in enumerate(state.board):
        if code and not geo.surface[p]:
            raise ValueError(f"a piece stands on {square_name(p)}, which has no surface")
    for color in (WHITE, BLACK):
        kings = [c for c in state.board if c and type_of(c) == KING and (c >> 3) & 1 == color]
        if len(kings) != 1:
            raise ValueError(f"{COLOR_NAMES[color]} needs exactly one king, not {len(kings)}")
