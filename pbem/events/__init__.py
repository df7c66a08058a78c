"""Tournaments: events with round-robin, Swiss and knockout pairings, standings and crosstables."""
