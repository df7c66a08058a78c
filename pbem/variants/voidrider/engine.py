"""The Voidrider Chess engine: the Variant protocol over the rules, notation and diagram."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pbem.engine.base import Note, Outcome, Recipient, Seat, VariantBase, side_title
from pbem.engine.board_view import BoardView, Highlight, Mark
from pbem.variants.voidrider import notation, rules, search_hooks
from pbem.variants.voidrider.diagram import board_view, diagram
from pbem.variants.voidrider.evaluation import evaluate
from pbem.variants.voidrider.explain import move_error, piece_name
from pbem.variants.voidrider.geometry import ALL_RAYS, SQUARE_NAMES
from pbem.variants.voidrider.helptext import HELP_TEXT
from pbem.variants.voidrider.model import EMPTY, VOID, Move, VoidriderState, dump_state, load_state

__all__ = ["VoidriderChess"]


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
    help: ClassVar[str] = HELP_TEXT

    # -- the game (hooks of VariantBase) -----------------------------------------------------------

    def _initial_state(self) -> VoidriderState:
        if self.options:
            unknown = ", ".join(sorted(repr(str(key)) for key in self.options))
            raise ValueError(f"Voidrider Chess has no options (got {unknown})")
        return VoidriderState()

    def _outcome(self, state: VoidriderState) -> Outcome | None:
        return rules.outcome(state)

    def _side(self, state: VoidriderState) -> Seat:
        return state.turn

    def _fullmove(self, state: VoidriderState) -> int:
        return state.fullmove

    def _rules_moves(self, state: VoidriderState) -> tuple[Move, ...]:
        return rules.legal_moves(state)

    def _parse(self, state: VoidriderState, text: str) -> Move:
        return notation.parse(state, text)

    def describe(self, state: VoidriderState, action: Move) -> str:
        return notation.describe(state, action)

    def _illegal_reason(self, state: VoidriderState, action: Move) -> str:
        return f"illegal move {action.uci!r}: {move_error(state, action)}"

    def _play(self, state: VoidriderState, action: Move) -> VoidriderState:
        return rules.play(state, action)

    def _in_check(self, state: VoidriderState) -> bool:
        return rules.in_check(state)

    def _notes(self, state: VoidriderState, move: Move, after: VoidriderState) -> list[Note]:
        who = side_title(state.turn)
        piece = state.board[move.from_cell]
        origin, target = SQUARE_NAMES[move.from_cell], SQUARE_NAMES[move.to_cell]
        notes: list[Note] = []
        if move.space:
            notes.append(Note(f"{who}'s {piece_name(piece)} carried its space from {origin} to {target}; "
                              f"{origin} is void now."))
        victim = state.board[move.to_cell]
        if not move.space and victim not in (VOID, EMPTY):
            how = " across the void" if piece in "Vv" and _across_void(state.board, move) else ""
            notes.append(Note(f"{side_title(state.turn.other)}'s {piece_name(victim)} on {target} was captured"
                              f"{how}."))
        if move.promotion:
            notes.append(Note(f"{who}'s pawn promoted to a {piece_name(move.promotion)} on {target}."))
        return notes

    # -- search (capabilities of pbem.engine.capabilities) ----------------------------------------

    def in_check(self, state: VoidriderState) -> bool:
        return rules.in_check(state)

    def position_key(self, state: VoidriderState) -> Hashable:
        return search_hooks.position_key(state)

    def evaluate(self, state: VoidriderState) -> int:
        return evaluate(state)

    def capture_values(self, state: VoidriderState, action: Move) -> tuple[int, int] | None:
        return search_hooks.capture_values(state, action)

    def successor(self, state: VoidriderState, action: Move) -> VoidriderState:
        return search_hooks.successor(state, action)

    def search_actions(self, state: VoidriderState) -> tuple[Move, ...]:
        """The legal actions without asking again whether the game is over (the search has asked)."""
        return tuple(self._rules_moves(state))

    # -- results and views -------------------------------------------------------------------------

    def _draw_counters(self, state: VoidriderState) -> tuple[int, int]:
        return state.halfmove, rules.repetitions(state)

    def perft(self, state: VoidriderState, depth: int) -> int:
        """Leaf count of the move tree, by make/unmake (much faster than applying states)."""
        return rules.perft(state, depth)

    def _extra_status(self, state: VoidriderState, over: Outcome | None) -> list[str]:
        if over is not None:
            return []
        status = [f"Castling: {self._castling_line(state)}."]
        if state.halfmove >= 80:
            status.append(f"{state.halfmove} half-moves without a pawn move or capture "
                          "(a draw may be claimed at 100).")
        seen = rules.repetitions(state)
        if seen >= 2:
            status.append(f"This position has occurred {seen} times (a draw may be claimed at 3).")
        return status

    def _diagram(self, state: VoidriderState, flipped: bool) -> str:
        return diagram(state.board, flipped=flipped)

    def _board(self, state: VoidriderState, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView:
        return board_view(state.board, highlights, flipped=flipped)

    def _highlights(self, before: VoidriderState, action: Move, after: VoidriderState) -> Iterable[Highlight]:
        """From and to of the move; for a space move, the space's old cell (void now) and its new one."""
        return ((SQUARE_NAMES[action.from_cell], Mark.MOVE_FROM), (SQUARE_NAMES[action.to_cell], Mark.MOVE_TO))

    @staticmethod
    def _castling_line(state: VoidriderState) -> str:
        parts = []
        for seat, short, long in ((Seat.WHITE, "G", "A"), (Seat.BLACK, "g", "a")):
            rights = [name for letter, name in ((short, "O-O"), (long, "O-O-O")) if letter in state.castling]
            parts.append(f"{side_title(seat)} {', '.join(rights) if rights else 'none'}")
        return "; ".join(parts)


    # -- storage ----------------------------------------------------------------------------------

    def dump(self, state: VoidriderState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> VoidriderState:
        return load_state(data)


#: The class the registry (pbem.variants) plugs in.
VARIANT = VoidriderChess
