"""The Space Chess engine: the Variant protocol over the rules, notation, diagram and options."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

from pbem.engine.base import Note, Outcome, Recipient, Seat, VariantBase, side_title
from pbem.engine.board_view import BoardView, Highlight, Mark
from pbem.variants.space_chess import notation, rules, search_hooks
from pbem.variants.space_chess.diagram import board_view, diagram
from pbem.variants.space_chess.evaluation import evaluate
from pbem.variants.space_chess.explain import explain
from pbem.variants.space_chess.helptext import HELP_TEXT
from pbem.variants.space_chess.model import (
    KING,
    PIECE_NAMES,
    Move,
    SpaceState,
    dump_state,
    load_state,
    parse_options,
    square_name,
)

__all__ = ["SpaceChess"]


class SpaceChess(VariantBase[SpaceState, Move]):
    """Chessex Space Chess: orthodox moves on three stacked boards, with level transfers from stars."""

    key: ClassVar[str] = "space-chess"
    aliases: ClassVar[tuple[str, ...]] = ("chessex",)
    title: ClassVar[str] = "Space Chess"
    rulings: ClassVar[tuple[str, ...]] = tuple(f"S{n}" for n in range(1, 17))
    help: ClassVar[str] = HELP_TEXT

    # -- the game (hooks of VariantBase) -----------------------------------------------------------

    def _initial_state(self) -> SpaceState:
        """The initial position under the engine's options, validated here."""
        return rules.initial_state(parse_options(self.options))

    def _outcome(self, state: SpaceState) -> Outcome | None:
        return rules.outcome(state)

    def _side(self, state: SpaceState) -> Seat:
        return rules.seat_of(state.turn)

    def _fullmove(self, state: SpaceState) -> int:
        return state.fullmove

    def _rules_moves(self, state: SpaceState) -> tuple[Move, ...]:
        return rules.legal_moves(state)

    def _parse(self, state: SpaceState, text: str) -> Move:
        return notation.parse(state, text)

    def describe(self, state: SpaceState, action: Move) -> str:
        return notation.describe(state, action)

    def _play(self, state: SpaceState, action: Move) -> SpaceState:
        return rules.play(state, action)

    def _in_check(self, state: SpaceState) -> bool:
        return rules.in_check(state)

    def _illegal_reason(self, state: SpaceState, action: Move) -> str:
        if not all(0 <= s < 192 for s in action[:3]):
            return f"illegal move {action!r}: no such square"
        text = f"{square_name(action.origin)}-{square_name(action.final)}"
        reason = explain(state, action.origin, action.landing, action.final >> 6,
                               action.promotion or None)
        return f"illegal move {text!r}: {reason}"

    def _notes(self, before: SpaceState, move: Move, after: SpaceState) -> list[Note]:
        """News lines: captures, promotions, and why a first move stayed on its level."""
        notes: list[Note] = []
        mover = "White" if before.turn > 0 else "Black"
        other = "Black" if before.turn > 0 else "White"
        piece = before.board[move.origin]
        name = PIECE_NAMES[abs(piece)]
        if rules.is_capture(before, move):
            taken_square = move.landing
            if before.board[taken_square] == 0:  # en passant: the pawn stood behind the landing square
                taken_square = move.landing - 8 * before.turn
            taken = PIECE_NAMES[abs(before.board[taken_square])]
            notes.append(Note(f"{other}'s {taken} on {square_name(taken_square)} is captured."))
        if move.promotion:
            notes.append(Note(f"{mover}'s pawn promotes to a {PIECE_NAMES[move.promotion]} on "
                              f"{square_name(move.landing)}."))
        first = before.unmoved >> move.origin & 1
        if first and abs(piece) != KING and move.final == move.landing:
            step = 64 * before.turn
            blocked = before.board[move.landing + step] != 0
            if blocked:
                notes.append(Note(f"{mover}'s {name} stays on level {move.landing // 64 + 1}: "
                                  f"{square_name(move.landing + step)} is occupied (ruling S4)."))
            else:
                notes.append(Note(f"{mover}'s {name} stays on level {move.landing // 64 + 1} to meet the "
                                  "check (ruling S5)."))
        if rules.in_check(after) and rules.legal_moves(after):
            king = rules.king_square(after, after.turn)
            notes.append(Note(f"{other}'s king on {square_name(king)} is in check."))
        return notes

    # -- search (capabilities of pbem.engine.capabilities) ----------------------------------------

    def in_check(self, state: SpaceState) -> bool:
        return rules.in_check(state)

    def position_key(self, state: SpaceState) -> Hashable:
        return search_hooks.position_key(state)

    def evaluate(self, state: SpaceState) -> int:
        return evaluate(state)

    def capture_values(self, state: SpaceState, action: Move) -> tuple[int, int] | None:
        return search_hooks.capture_values(state, action)

    def successor(self, state: SpaceState, action: Move) -> SpaceState:
        return search_hooks.successor(state, action)

    def search_actions(self, state: SpaceState) -> tuple[Move, ...]:
        """The legal actions without asking again whether the game is over (the search has asked)."""
        return tuple(self._rules_moves(state))

    # -- results and views -------------------------------------------------------------------------

    def _draw_counters(self, state: SpaceState) -> tuple[int, int]:
        return state.halfmove, rules.repetitions(state)

    def _check_line(self, state: SpaceState) -> str:
        who = side_title(self._side(state))
        return f"{who}'s king on {square_name(rules.king_square(state, state.turn))} is in check."

    def _extra_status(self, state: SpaceState, over: Outcome | None) -> list[str]:
        status: list[str] = []
        claim = self.claim_draw(state)
        if over is None and claim is not None:
            status.append(f"{side_title(self._side(state))} may claim a draw ({claim.reason}) by sending 'draw'.")
        changed = state.options.changed()
        if changed:
            status.append("Options: " + ", ".join(f"{key}={value}" for key, value in changed.items())
                          + " (see 'help space-chess').")
        return status

    def _diagram(self, state: SpaceState, flipped: bool) -> str:
        return diagram(state, flipped=flipped)

    def _board(self, state: SpaceState, audience: Recipient, highlights: Sequence[Highlight],
               flipped: bool) -> BoardView:
        return board_view(state, highlights, flipped=flipped)

    def _highlights(self, before: SpaceState, action: Move, after: SpaceState) -> Iterable[Highlight]:
        """Where the piece started and where it ended, after any level transfer (castling: the king's)."""
        return ((square_name(action.origin), Mark.MOVE_FROM), (square_name(action.final), Mark.MOVE_TO))


    # -- tools and storage ------------------------------------------------------------------------

    def perft(self, state: SpaceState, depth: int) -> int:
        """Leaf count of the legal-move tree (draws by claim ignored, as `pbem perft` documents)."""
        if depth > 0 and rules.outcome(state) is not None:
            return 0
        return rules.perft(state, depth)

    def dump(self, state: SpaceState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> SpaceState:
        return load_state(data)


#: The class the registry (pbem.variants) plugs in.
VARIANT = SpaceChess
