"""Chessex Space Chess: three stacked 8x8 levels, with level transfers from star and king-symbol squares."""
