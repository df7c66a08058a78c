"""Random Hyperspace turns for the secrecy property tests: board moves and phase-outs, some without a square."""

from __future__ import annotations

import random

import chess

from pbem.variants import get_variant

__all__ = ["ENGINE", "random_square", "random_turn"]

ENGINE = get_variant("hyperspace")


def random_turn(rng: random.Random, state: object) -> str:
    """A board move, or a phase-out of a random eligible piece with a random delay and square; one
    phase-out in three is sent without its square (see ``later_secret``)."""
    actions = list(ENGINE.legal_actions(state))
    board_moves = [ENGINE.describe(state, a) for a in actions if "@" not in ENGINE.describe(state, a)]
    phases = [ENGINE.describe(state, a) for a in actions if "@" in ENGINE.describe(state, a)]
    if phases and rng.random() < 0.35:
        declaration = rng.choice(phases).split("@")[0]
        if rng.random() < 0.35:
            return f"{declaration}@{rng.randint(1, 4)}"
        return f"{declaration}@{rng.randint(1, 4)} {{{random_square(rng, declaration)}}}"
    return rng.choice(board_moves)


def random_square(rng: random.Random, declaration: str) -> str:
    """A return square valid for the piece of ``declaration`` ("Bc1": a square of c1's colour)."""
    origin = chess.parse_square(declaration[1:3])
    return rng.choice([chess.square_name(s) for s in chess.SQUARES
                       if declaration[0] != "B" or (chess.square_file(s) + chess.square_rank(s)) % 2
                       == (chess.square_file(origin) + chess.square_rank(origin)) % 2])
