"""Board pictures: a :class:`pbem.engine.board_view.BoardView` drawn as a small palette PNG.

``pbem.pictures.render`` holds the entry points (``render_png``, ``render_image``, ``cell_box``)
and the colours other modules check pixels against; ``pbem.pictures.figures`` draws (and caches)
the piece figures; ``pieces/`` holds the Cburnett chess-piece sprites with their LICENSE.
"""
