"""The draw claims shared by the chess-like variants (spec/variants/README.md: 50 moves and threefold are claims)."""

from __future__ import annotations

from pbem.engine.base import Outcome

__all__ = ["claimable_draw"]


def claimable_draw(game_over: bool, halfmove_clock: int, repetitions: int) -> Outcome | None:
    """The draw the player to move may claim now: 50 moves without capture or pawn move, or threefold."""
    if game_over:
        return None
    if halfmove_clock >= 100:
        return Outcome.draw("50-move rule")
    if repetitions >= 3:
        return Outcome.draw("threefold repetition")
    return None
