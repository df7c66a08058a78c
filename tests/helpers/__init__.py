"""Shared test helpers: servers, pipelines, players and organisers (imported by tests, never the reverse)."""
