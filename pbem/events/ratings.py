"""Elo ratings per variant: the expected score, K factors and the provisional period.

Pure arithmetic; pbem.events.store keeps the numbers. The parameters:

- everybody starts at 1500;
- a player is provisional for their first 10 rated games, and moves with
  K = 40 during that time (their rating is still being found), then K = 20;
- each side of a game moves by its own K, so a newcomer's wild swings do not
  shake an established opponent's rating as much;
- forfeits (games nobody played out) are not rated.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["INITIAL", "K_ESTABLISHED", "K_PROVISIONAL", "PROVISIONAL_GAMES", "Elo", "expected", "rated_game"]

INITIAL = 1500.0
PROVISIONAL_GAMES = 10
K_PROVISIONAL = 40.0
K_ESTABLISHED = 20.0


@dataclass(frozen=True, slots=True)
class Elo:
    """A rating and the number of rated games behind it."""

    rating: float = INITIAL
    games: int = 0

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def k(self) -> float:
        return K_PROVISIONAL if self.provisional else K_ESTABLISHED

    def __str__(self) -> str:
        return f"{round(self.rating)}{'?' if self.provisional else ''}"


def expected(rating: float, opponent: float) -> float:
    """The score ``rating`` is expected to make against ``opponent`` (0..1)."""
    odds: float = 10.0 ** ((opponent - rating) / 400.0)  # typed: float ** float is Any to mypy (could be complex)
    return 1.0 / (1.0 + odds)


def rated_game(white: Elo, black: Elo, white_score: float) -> tuple[Elo, Elo]:
    """Both ratings after one game in which White scored ``white_score`` (1, 0.5 or 0)."""
    change_white = white.k * (white_score - expected(white.rating, black.rating))
    change_black = black.k * ((1.0 - white_score) - expected(black.rating, white.rating))
    return (Elo(white.rating + change_white, white.games + 1), Elo(black.rating + change_black, black.games + 1))
