"""Hyperspace Chess: FIDE chess plus phase-outs that return on a secret, committed square."""

from pbem.variants.hyperspace.engine import HyperspaceChess
from pbem.variants.hyperspace.model import (
    BoardMove,
    HyperspaceState,
    PhaseOut,
    PoolEntry,
    commitment_digest,
    commitment_string,
)

VARIANT = HyperspaceChess

__all__ = [
    "VARIANT",
    "BoardMove",
    "HyperspaceChess",
    "HyperspaceState",
    "PhaseOut",
    "PoolEntry",
    "commitment_digest",
    "commitment_string",
]
