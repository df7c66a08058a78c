"""Hyperspace Chess: FIDE chess plus phase-outs that return on a secret, committed square."""
