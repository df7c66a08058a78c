"""The Voidrider Chess engine: the Variant protocol over the rules, notation and diagram."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from pbem.engine import IllegalMoveError, Note, Outcome, Seat, Transition, VariantBase, View
from pbem.engine.base import Recipient
from pbem.engine.draws import claimable_draw
from pbem.variants.voidrider import notation, rules
from pbem.variants.voidrider.diagram import diagram
from pbem.variants.voidrider.explain import move_error, piece_name
from pbem.variants.voidrider.geometry import ALL_RAYS, SQUARE_NAMES
from pbem.variants.voidrider.helptext import HELP_TEXT
from pbem.variants.voidrider.model import EMPTY, VOID, Move, VoidriderState, dump_state, load_state

__all__ = ["VoidriderChess"]


def _title(seat: Seat) -> str:
    return seat.value.capitalize()


def _across_void(board: str, move: Move) -> bool:
    """Did this Voidrider move ride over at least one void cell?"""
    for ray in ALL_RAYS[move.from_cell]:
        if move.to_cell in ray:
            return any(board[c] == VOID for c in ray[:ray.index(move.to_cell)])
    return False


class VoidriderChess(VariantBase[VoidriderState, Move]):
    """Chess without queens on 43 movable spaces in a 7x9 area, with the void-riding Voidrider."""

    key: ClassVar[str] = "voidrider"
    aliases: ClassVar[tuple[str, ...]] = ("voidrider-chess",)
    title: ClassVar[str] = "Voidrider Chess"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"W{n}" for n in range(1, 12))

    # -- the game ---------------------------------------------------------------------------------

    def setup(self, options: Mapping[str, object] | None = None) -> VoidriderState:
        if options:
            unknown = ", ".join(sorted(repr(str(key)) for key in options))
            raise ValueError(f"Voidrider Chess has no options (got {unknown})")
        return VoidriderState()

    def to_act(self, state: VoidriderState) -> Seat | None:
        return None if rules.outcome(state) is not None else state.turn

    def move_number(self, state: VoidriderState) -> int:
        return state.fullmove

    def legal_actions(self, state: VoidriderState) -> Iterator[Move]:
        if rules.outcome(state) is not None:
            return
        yield from rules.legal_moves(state)

    def parse_action(self, state: VoidriderState, text: str) -> Move:
        self._refuse_if_over(state)
        return notation.parse(state, text)

    def describe(self, state: VoidriderState, action: Move) -> str:
        return notation.describe(state, action)

    def apply(self, state: VoidriderState, action: Move) -> Transition[VoidriderState]:
        self._refuse_if_over(state)
        if action not in rules.legal_moves(state):
            raise IllegalMoveError(f"illegal move {action.uci!r}: {move_error(state, action)}")
        new = rules.play(state, action)
        record = notation.describe(state, action)
        if rules.in_check(new):
            record += "#" if not rules.legal_moves(new) else "+"
        return Transition(new, record, tuple(self._notes(state, action)))

    def _refuse_if_over(self, state: VoidriderState) -> None:
        over = rules.outcome(state)
        if over is not None:
            raise IllegalMoveError(f"the game is over ({over.result}, {over.reason})")

    def _notes(self, state: VoidriderState, move: Move) -> list[Note]:
        who = _title(state.turn)
        piece = state.board[move.from_cell]
        origin, target = SQUARE_NAMES[move.from_cell], SQUARE_NAMES[move.to_cell]
        notes: list[Note] = []
        if move.space:
            notes.append(Note(f"{who}'s {piece_name(piece)} carried its space from {origin} to {target}; "
                              f"{origin} is void now."))
        victim = state.board[move.to_cell]
        if not move.space and victim not in (VOID, EMPTY):
            how = " across the void" if piece in "Vv" and _across_void(state.board, move) else ""
            notes.append(Note(f"{_title(state.turn.other)}'s {piece_name(victim)} on {target} was captured"
                              f"{how}."))
        if move.promotion:
            notes.append(Note(f"{who}'s pawn promoted to a {piece_name(move.promotion)} on {target}."))
        return notes

    # -- results ----------------------------------------------------------------------------------

    def outcome(self, state: VoidriderState) -> Outcome | None:
        return rules.outcome(state)

    def claim_draw(self, state: VoidriderState) -> Outcome | None:
        return claimable_draw(rules.outcome(state) is not None, state.halfmove, rules.repetitions(state))

    def perft(self, state: VoidriderState, depth: int) -> int:
        """Leaf count of the move tree, by make/unmake (much faster than applying states)."""
        return rules.perft(state, depth)

    # -- views ------------------------------------------------------------------------------------

    def view(self, state: VoidriderState, audience: Recipient) -> View:
        over = rules.outcome(state)
        status: list[str] = []
        if over is not None:
            status.append(f"Game over: {over.result} ({over.reason}).")
        else:
            status.append(f"{_title(state.turn)} to move (move {state.fullmove}).")
            if rules.in_check(state):
                status.append(f"{_title(state.turn)} is in check.")
            status.append(f"Castling: {self._castling_line(state)}.")
            if state.halfmove >= 80:
                status.append(f"{state.halfmove} half-moves without a pawn move or capture "
                              "(a draw may be claimed at 100).")
            seen = rules.repetitions(state)
            if seen >= 2:
                status.append(f"This position has occurred {seen} times (a draw may be claimed at 3).")
        return View(
            diagram=diagram(state.board, flipped=audience is Seat.BLACK),
            to_move=None if over is not None else state.turn,
            move_number=state.fullmove,
            status=tuple(status),
        )

    @staticmethod
    def _castling_line(state: VoidriderState) -> str:
        parts = []
        for seat, short, long in ((Seat.WHITE, "G", "A"), (Seat.BLACK, "g", "a")):
            rights = [name for letter, name in ((short, "O-O"), (long, "O-O-O")) if letter in state.castling]
            parts.append(f"{_title(seat)} {', '.join(rights) if rights else 'none'}")
        return "; ".join(parts)

    def help_text(self) -> str:
        return HELP_TEXT

    # -- storage ----------------------------------------------------------------------------------

    def dump(self, state: VoidriderState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> VoidriderState:
        return load_state(data)
