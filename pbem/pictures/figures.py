"""The figure of each piece kind as an RGBA image of a given size, made once per size and cached.

The six chess pieces are the Cburnett sprites shipped in ``pieces/`` (see ``pieces/LICENSE``),
scaled down from their 180 px masters; the unorthodox pieces are drawn with Pillow primitives at
four times the size and scaled down, so their edges are smooth. White figures are light and black
figures dark, both outlined in black (as the Cburnett pieces), with inner details in the contrasting colour.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache
from importlib import resources

from PIL import Image, ImageDraw

from pbem.engine.board_view import PieceKind

__all__ = ["CHESS_KINDS", "DEFAULT_NAMES", "UNORTHODOX_KINDS", "figure"]

CHESS_KINDS = frozenset({PieceKind.KING, PieceKind.QUEEN, PieceKind.ROOK, PieceKind.BISHOP, PieceKind.KNIGHT,
                         PieceKind.PAWN})
UNORTHODOX_KINDS = tuple(kind for kind in PieceKind if kind not in CHESS_KINDS)

#: The legend's name of an unorthodox piece when the view does not name it.
DEFAULT_NAMES: dict[PieceKind, str] = {
    PieceKind.STAR_CLUSTER: "Star cluster", PieceKind.PLANET: "Planet", PieceKind.SPACESHIP: "Spaceship",
    PieceKind.GALAXY: "Galaxy", PieceKind.NEBULA: "Nebula", PieceKind.VOIDRIDER: "Voidrider",
}

_SUPERSAMPLE = 4
_Point = tuple[float, float]


@lru_cache(maxsize=12)
def _sprite(kind: PieceKind, white: bool) -> Image.Image:
    name = f"{'white' if white else 'black'}-{kind.value}.png"
    with (resources.files(__package__ or "pbem.pictures") / "pieces" / name).open("rb") as stream:
        image = Image.open(stream)
        image.load()
    return image.convert("RGBA")


@lru_cache(maxsize=256)
def figure(kind: PieceKind, white: bool, size: int) -> Image.Image:
    """The figure of a piece, ``size`` x ``size`` pixels, RGBA on a transparent ground (do not modify it)."""
    if size < 1:
        raise ValueError("a figure needs at least one pixel")
    if kind in CHESS_KINDS:
        return _sprite(kind, white).resize((size, size), Image.Resampling.LANCZOS)
    big = size * _SUPERSAMPLE
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    _Pen(image, white).draw(kind)
    return image.resize((size, size), Image.Resampling.LANCZOS)


class _Pen:
    """Draws one unorthodox figure in unit coordinates (0..1 across the square)."""

    def __init__(self, image: Image.Image, white: bool) -> None:
        self.image = image
        self.size = image.width
        self.draw_on = ImageDraw.Draw(image)
        self.fill = (255, 255, 255, 255) if white else (34, 34, 34, 255)
        self.line = (0, 0, 0, 255)  # dark on both, as the Cburnett pieces: black figures show by their fill
        self.detail = (0, 0, 0, 255) if white else (236, 236, 236, 255)
        self.stroke = max(1, round(self.size * 0.045))

    def draw(self, kind: PieceKind) -> None:
        drawers: dict[PieceKind, Callable[[], None]] = {
            PieceKind.STAR_CLUSTER: self.star_cluster, PieceKind.PLANET: self.planet,
            PieceKind.SPACESHIP: self.spaceship, PieceKind.GALAXY: self.galaxy, PieceKind.NEBULA: self.nebula,
            PieceKind.VOIDRIDER: self.voidrider,
        }
        drawers[kind]()

    def px(self, points: list[_Point]) -> list[_Point]:
        return [(x * self.size, y * self.size) for x, y in points]

    def polygon(self, points: list[_Point], fill: tuple[int, int, int, int] | None = None) -> None:
        self.draw_on.polygon(self.px(points), fill=fill or self.fill, outline=self.line, width=self.stroke)

    def disc(self, x: float, y: float, r: float, fill: tuple[int, int, int, int] | None = None,
             outline: bool = True) -> None:
        s = self.size
        box = ((x - r) * s, (y - r) * s, (x + r) * s, (y + r) * s)
        self.draw_on.ellipse(box, fill=fill or self.fill, outline=self.line if outline else None,
                             width=self.stroke if outline else 0)

    def stroke_path(self, points: list[_Point], width: float) -> None:
        """A thick band along a path: the outline colour, then the fill colour inside it."""
        pixels = self.px(points)
        w = round(width * self.size)
        self.draw_on.line(pixels, fill=self.line, width=w + 2 * self.stroke, joint="curve")
        for x, y in (pixels[0], pixels[-1]):
            r = (w + 2 * self.stroke) / 2
            self.draw_on.ellipse((x - r, y - r, x + r, y + r), fill=self.line)
        self.draw_on.line(pixels, fill=self.fill, width=w, joint="curve")
        for x, y in (pixels[0], pixels[-1]):
            r = w / 2
            self.draw_on.ellipse((x - r, y - r, x + r, y + r), fill=self.fill)

    @staticmethod
    def star_points(x: float, y: float, r: float, points: int = 5, inner: float = 0.45) -> list[_Point]:
        out: list[_Point] = []
        for i in range(points * 2):
            angle = -math.pi / 2 + i * math.pi / points
            radius = r if i % 2 == 0 else r * inner
            out.append((x + radius * math.cos(angle), y + radius * math.sin(angle)))
        return out

    def star_cluster(self) -> None:
        self.polygon(self.star_points(0.70, 0.27, 0.17))
        self.polygon(self.star_points(0.74, 0.72, 0.15))
        self.polygon(self.star_points(0.40, 0.54, 0.32))

    def planet(self) -> None:
        layer = Image.new("RGBA", self.image.size, (0, 0, 0, 0))
        pen = _Pen(layer, self.fill[0] > 128)
        s, band = self.size, 0.07
        ring = (0.06 * s, 0.40 * s, 0.94 * s, 0.64 * s)
        pen.draw_on.ellipse(ring, outline=pen.line, width=round((band + 0.09) * s))  # the back of the ring
        pen.draw_on.ellipse(_inset(ring, 0.045 * s), outline=pen.fill, width=round(band * s))
        pen.disc(0.5, 0.52, 0.26)
        pen.draw_on.arc(ring, 8, 172, fill=pen.line, width=round((band + 0.09) * s))  # its front, over the disc
        pen.draw_on.arc(_inset(ring, 0.045 * s), 4, 176, fill=pen.fill, width=round(band * s))
        pen.draw_on.arc((0.33 * s, 0.35 * s, 0.67 * s, 0.69 * s), 200, 250, fill=pen.detail, width=pen.stroke)
        self.image.alpha_composite(layer.rotate(22, resample=Image.Resampling.BICUBIC))

    def spaceship(self) -> None:
        self.polygon([(0.35, 0.52), (0.16, 0.76), (0.16, 0.88), (0.37, 0.74)])  # fins
        self.polygon([(0.65, 0.52), (0.84, 0.76), (0.84, 0.88), (0.63, 0.74)])
        self.polygon([(0.43, 0.74), (0.57, 0.74), (0.50, 0.94)])  # exhaust
        self.polygon([(0.50, 0.06), (0.60, 0.18), (0.65, 0.34), (0.65, 0.76), (0.35, 0.76), (0.35, 0.34),
                      (0.40, 0.18)])  # the body
        self.disc(0.5, 0.38, 0.075, fill=self.detail, outline=False)  # the window
        self.draw_on.line(self.px([(0.37, 0.62), (0.63, 0.62)]), fill=self.detail, width=self.stroke)

    def galaxy(self) -> None:
        for turn in (0.0, math.pi):
            arm: list[_Point] = []
            for i in range(28):
                theta = 0.35 + i * 0.16
                r = 0.06 + 0.075 * theta
                arm.append((0.5 + r * math.cos(theta + turn), 0.5 + 0.8 * r * math.sin(theta + turn)))
            self.stroke_path(arm, 0.075)
        self.disc(0.5, 0.5, 0.14)
        self.disc(0.5, 0.5, 0.05, fill=self.detail, outline=False)

    def nebula(self) -> None:
        puffs = [(0.20, 0.62, 0.13), (0.34, 0.48, 0.18), (0.55, 0.38, 0.21), (0.74, 0.53, 0.17),
                 (0.80, 0.68, 0.12), (0.50, 0.66, 0.18), (0.30, 0.70, 0.13), (0.66, 0.72, 0.12)]
        grown = self.stroke / self.size
        for x, y, r in puffs:
            self.disc(x, y, r + grown, fill=self.line, outline=False)
        for x, y, r in puffs:
            self.disc(x, y, r, outline=False)
        for x, y, r in ((0.40, 0.55, 0.035), (0.60, 0.47, 0.045), (0.66, 0.64, 0.03)):
            self.polygon(self.star_points(x, y, r * 2.2, 4, 0.35), fill=self.detail)

    def voidrider(self) -> None:
        self.polygon([(0.42, 0.46), (0.05, 0.22), (0.16, 0.48), (0.06, 0.74), (0.42, 0.62)])  # wings
        self.polygon([(0.58, 0.46), (0.95, 0.22), (0.84, 0.48), (0.94, 0.74), (0.58, 0.62)])
        self.disc(0.5, 0.54, 0.25)
        self.disc(0.5, 0.54, 0.12, fill=self.detail, outline=False)  # the void it rides
        self.polygon([(0.5, 0.12), (0.60, 0.30), (0.40, 0.30)])  # a crest


def _inset(box: tuple[float, float, float, float], by: float) -> tuple[float, float, float, float]:
    return box[0] + by, box[1] + by, box[2] - by, box[3] - by
