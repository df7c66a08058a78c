"""Victor Rules Space Chess: Star Trek tri-dimensional chess with movable attack boards."""
