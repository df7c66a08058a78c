"""The tri-d engine: the Variant protocol over geometry, rules, notation and the diagram."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar

from pbem.engine.base import Note, Outcome, Recipient, Seat, VariantBase
from pbem.engine.board_view import BoardView, Highlight, Mark
from pbem.variants.tri_d import notation, rules, search_hooks
from pbem.variants.tri_d.diagram import board_view, diagram
from pbem.variants.tri_d.evaluation import evaluate
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
    help: ClassVar[str] = HELP_TEXT

    # -- the game (hooks of VariantBase) -----------------------------------------------------------

    def _initial_state(self) -> TriDState:
        return rules.initial_state(parse_options(self.options))

    def _outcome(self, state: TriDState) -> Outcome | None:
        return rules.outcome(state)

    def _side(self, state: TriDState) -> Seat:
        return _seat(state.turn)

    def _fullmove(self, state: TriDState) -> int:
        return state.fullmove

    def _rules_moves(self, state: TriDState) -> tuple[Move, ...]:
        return rules.legal_moves(state)

    def _parse(self, state: TriDState, text: str) -> Move:
        return notation.parse(state, text)

    def describe(self, state: TriDState, action: Move) -> str:
        return notation.describe(state, action)

    def _illegal_reason(self, state: TriDState, action: Move) -> str:
        if not _well_formed(action):
            return f"illegal move {action!r}: not a move of this game"
        return f"illegal move {notation.describe(state, action)!r}: {explain(state, action)}"

    def _play(self, state: TriDState, action: Move) -> TriDState:
        return rules.play(state, action)

    def _in_check(self, state: TriDState) -> bool:
        return rules.in_check(state)

    def _notes(self, before: TriDState, action: Move, after: TriDState) -> list[Note]:
        owners = dict(before.boards)
        return [Note(f"The attack board at {PINS[pin].name} now belongs to {COLOR_NAMES[owner]} (ruling V12).")
                for pin, owner in after.boards if owners.get(pin, owner) != owner]

    # -- search (capabilities of pbem.engine.capabilities) ----------------------------------------

    def in_check(self, state: TriDState) -> bool:
        return rules.in_check(state)

    def position_key(self, state: TriDState) -> Hashable:
        return search_hooks.position_key(state)

    def evaluate(self, state: TriDState) -> int:
        return evaluate(state)

    def capture_values(self, state: TriDState, action: Move) -> tuple[int, int] | None:
        return search_hooks.capture_values(state, action)

    def successor(self, state: TriDState, action: Move) -> TriDState:
        return search_hooks.successor(state, action)

    def search_actions(self, state: TriDState) -> tuple[Move, ...]:
        """The legal actions without asking again whether the game is over (the search has asked)."""
        return tuple(self._rules_moves(state))

    # -- results and views -------------------------------------------------------------------------

    def _draw_counters(self, state: TriDState) -> tuple[int, int]:
        return state.halfmove, rules.repetitions(state)

    def perft(self, state: TriDState, depth: int) -> int:
        """Leaf count straight on the board arrays, without notation, history or draw checks."""
        return rules.perft(state, depth)

    def _extra_status(self, state: TriDState, over: Outcome | None) -> list[str]:
        if over is None and any(m.kind == EP for m in rules.legal_moves(state)):
            return [f"En passant capture possible on {square_name(state.ep)}."]
        return []

    def _diagram(self, state: TriDState, flipped: bool) -> str:
        return diagram(state)  # one fixed orientation: the levels read the same for both sides

    def _board(self, state: TriDState, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView:
        return board_view(state, highlights)  # no secrets, one orientation: the same for everybody

    def _highlights(self, before: TriDState, action: Move, after: TriDState) -> Iterable[Highlight]:
        """A piece move's from and to (castling: the king's); an attack-board move marks the four
        squares of the board's old position MOVE_FROM and of its new one MOVE_TO."""
        if action.kind == BOARD:
            return (*((square_name(p), Mark.MOVE_FROM) for p in PINS[action.src].cells),
                    *((square_name(p), Mark.MOVE_TO) for p in PINS[action.dst].cells))
        return ((square_name(action.src), Mark.MOVE_FROM), (square_name(action.dst), Mark.MOVE_TO))


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


#: The class the registry (pbem.variants) plugs in.
VARIANT = TriDChess
