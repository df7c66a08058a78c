"""Pure pairing rules: round-robin schedules, Swiss pairings, knockout brackets and matches (no I/O)."""
