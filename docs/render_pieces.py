"""One-off development tool: rasterise the Cburnett chess pieces into the PNG sprites the pictures ship.

Not used at run time (the renderer needs only Pillow and the PNGs in ``pbem/pictures/pieces/``).
The SVG sources are the Cburnett set (Colin M.L. Burnett, Wikimedia Commons; GPL/BSD/GFDL) as
embedded in python-chess's ``chess.svg.PIECES``. It was run once, in a throwaway venv, as::

    python3 -m venv /tmp/svgvenv
    /tmp/svgvenv/bin/pip install cairosvg chess
    /tmp/svgvenv/bin/python docs/render_pieces.py pbem/pictures/pieces

which writes ``white-king.png`` ... ``black-pawn.png`` at SIZE x SIZE pixels (RGBA, transparent
background), each the 45x45 SVG figure scaled to fill the square.
"""

from __future__ import annotations

import sys
from pathlib import Path

import cairosvg  # type: ignore[import-not-found]  # only in the throwaway venv
import chess.svg

SIZE = 180  # pixels: at least the largest figure drawn at scale 2, so the renderer only scales down
NAMES = {"k": "king", "q": "queen", "r": "rook", "b": "bishop", "n": "knight", "p": "pawn"}


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for symbol, figure in chess.svg.PIECES.items():
        colour = "white" if symbol.isupper() else "black"
        svg = (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
               f'width="{SIZE}" height="{SIZE}" viewBox="0 0 45 45">{figure}</svg>')
        target = out / f"{colour}-{NAMES[symbol.lower()]}.png"
        cairosvg.svg2png(bytestring=svg.encode(), write_to=str(target), output_width=SIZE, output_height=SIZE)
        print(target)


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "pbem/pictures/pieces"))
