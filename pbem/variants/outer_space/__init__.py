"""Outer Space Chess (Kuschinski): a 5x8 board with six Black Holes beside a three-square hyperspace."""
