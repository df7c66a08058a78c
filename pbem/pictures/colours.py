"""The colours of a board picture and the one fixed palette every picture (and GIF frame) uses.

Every colour named here is in the palette exactly, so a pixel drawn in it decodes to it unchanged
(the pictures are drawn straight into palette indices; nothing is dithered).
"""

from __future__ import annotations

__all__ = [
    "BACKGROUND", "BLACK_HOLE", "BLACK_HOLE_SWIRL", "DARK", "HIGHLIGHT", "HIGHLIGHT_FROM", "HIGHLIGHT_TO",
    "KING_SQUARE_COLOUR", "LEFT_COLOUR", "LIGHT", "PALETTE", "PENDING_COLOUR", "RETURNED_COLOUR", "RGB",
    "STAR_COLOUR", "TEXT", "index_of",
]

RGB = tuple[int, int, int]

BACKGROUND: RGB = (250, 248, 243)  # the page: margins, missing cells, the legend and notes
TEXT: RGB = (48, 44, 40)  # coordinates, titles, legend names, notes
LIGHT: RGB = (240, 217, 181)  # light squares
DARK: RGB = (181, 136, 99)  # dark squares

HIGHLIGHT_FROM: RGB = (214, 214, 118)  # the cell the last move started on (replaces light or dark)
HIGHLIGHT_TO: RGB = (186, 202, 68)  # and the cell it ended on
HIGHLIGHT: RGB = HIGHLIGHT_TO  # "the" highlight colour

LEFT_COLOUR: RGB = (214, 58, 40)  # corner triangle (top left): a piece left the board from here
RETURNED_COLOUR: RGB = (40, 120, 214)  # corner triangle (top right): a piece came back from hyperspace here
PENDING_COLOUR: RGB = (128, 56, 200)  # dashed ring: the owner's secret return square
BLACK_HOLE: RGB = (28, 22, 40)  # a black hole cell
BLACK_HOLE_SWIRL: RGB = (150, 120, 210)  # its swirl
STAR_COLOUR: RGB = (230, 170, 20)  # the star marker (bottom left) of a Space Chess transfer square
KING_SQUARE_COLOUR: RGB = (200, 40, 120)  # the crown marker (bottom right) of a Space Chess king square

_WHITE: RGB = (255, 255, 255)
_BLACK: RGB = (0, 0, 0)


def _mix(a: RGB, b: RGB, t: float) -> RGB:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _palette() -> tuple[RGB, ...]:
    """The named colours, then the blends anti-aliased edges need: each ink over each ground."""
    grounds = (BACKGROUND, LIGHT, DARK, HIGHLIGHT_FROM, HIGHLIGHT_TO, BLACK_HOLE)
    inks = (_BLACK, _WHITE, TEXT, LEFT_COLOUR, RETURNED_COLOUR, PENDING_COLOUR, BLACK_HOLE_SWIRL, STAR_COLOUR,
            KING_SQUARE_COLOUR)
    colours: list[RGB] = [*grounds, *inks]
    colours += [_mix(_BLACK, _WHITE, i / 15) for i in range(1, 15)]  # a grey ramp: the figures' insides
    for ground in grounds:
        for ink in inks:
            colours += [_mix(ground, ink, t) for t in (0.2, 0.4, 0.6, 0.8)]
    unique = list(dict.fromkeys(colours))
    if len(unique) > 256:
        raise AssertionError(f"{len(unique)} colours do not fit a palette")
    return tuple(unique)


#: The palette of every picture, in order (at most 256 colours; BACKGROUND is index 0).
PALETTE: tuple[RGB, ...] = _palette()
_INDEX = {colour: i for i, colour in enumerate(PALETTE)}


def index_of(colour: RGB) -> int:
    """The palette index of a named colour."""
    return _INDEX[colour]
