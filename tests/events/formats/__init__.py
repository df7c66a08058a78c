"""Tests of the event formats through the Format protocol."""
