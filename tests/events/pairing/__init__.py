"""Tests of the pure pairing rules."""
