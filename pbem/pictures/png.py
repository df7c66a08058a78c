"""PNG bytes of a palette picture, each band of rows deflated once and remembered: ``BandedPngEncoder``.

A move changes two or three ranks of a board; the margins, coordinates, legend and untouched ranks of
the next picture are the same pixels as before. Deflating was two thirds of a picture's cost (0.8 of
1.2 ms for a Hyperspace board), so each band of rows is deflated on its own, ending on a full flush
(byte-aligned, no reference to the band before it), and kept by its pixels. A picture is then its
bands' deflate segments joined in one zlib stream, whose Adler-32 is combined from the bands' own.
The bytes decode to exactly the image given; only the deflate blocks differ from one whole stream.

A board's bands are best cut where its cells' rows are (``cuts``): a band is then one row of cells, found again
whenever that row shows the same, where a band of BAND_ROWS straddling two rows of cells was new as soon as either
changed. Over 1,200 pictures of 40 interleaved Hyperspace games that deflated a quarter fewer rows (4,083 bands of
70 rows new against 8,011 of 48); over 300 of each other variant, 23 to 54% fewer.

Deflate and checksums are zlib-ng's, not the standard library zlib's: its run-length deflate wrote the same bytes
for 2,818 bands of all five variants' pictures, and over 800 pictures of 40 interleaved Hyperspace games (band
cache warm) the encoding took 0.43 ms a picture against 0.55 (a new band's deflate 25 against 35 µs, its
Adler-32 0.5 against 7.6).
"""

from __future__ import annotations

import itertools
import struct
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from PIL import Image
from xxhash import xxh3_128_intdigest
from zlib_ng import zlib_ng

__all__ = ["BAND_ROWS", "BandedPngEncoder", "adler32_combine", "band_edges", "index_bytes"]

#: Rows per band, measured over 300 pictures of 10 interleaved Hyperspace games (CPU a picture; Pillow's
#: own encoding 0.99 to 1.03 ms): 16 rows 0.67 to 0.71 ms in the run, 1.19 to 1.24 ms with no band seen
#: before; 32 rows 0.65 to 0.68 and 1.05 to 1.08; 48 rows 0.66 to 0.67 and 1.00; 64 rows 0.71 to 0.73 and
#: 0.96. Each band is a deflate block of its own (its own code tables), so small bands cost more when new.
BAND_ROWS = 48
_ADLER_MOD = 65521
_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ZLIB_HEADER = b"\x78\x01"  # deflate, 32 KB window, fastest (the level is advisory)
_FINAL_BLOCK = b"\x03\x00"  # an empty fixed-Huffman block with BFINAL set: the stream ends here
_COLOUR_TYPE_PALETTE = 3


def adler32_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings joined, from each one's checksum and the second's length."""
    a1, b1 = first & 0xFFFF, first >> 16
    a2, b2 = second & 0xFFFF, second >> 16
    a = (a1 + a2 - 1) % _ADLER_MOD
    b = (b1 + b2 + second_length * (a1 - 1)) % _ADLER_MOD
    return (b << 16) | a


def index_bytes(image: Image.Image) -> bytes:
    """A palette ("P") image's bytes, row after row: ``image.tobytes()`` in one piece.

    Pillow's ``tobytes`` asks its raw encoder for 64 KB at a time, each piece a new buffer, and joins the
    pieces; asked for the whole image at once, the encoder makes one buffer. Timed alone for a 601 x 671 board
    that is 17 µs against 228 µs (a picture in ``bench/move_cost.py``: 1.10 ms against 1.14). The encoder is not
    Pillow's public interface: if it is missing or answers otherwise, ``tobytes`` it is.
    """
    if image.mode != "P":
        raise ValueError(f"a palette image is needed, not mode {image.mode}")
    image.load()
    size = image.width * image.height
    try:
        encoder = Image._getencoder("P", "raw", "P")
        try:
            encoder.setimage(image.im, (0, 0, image.width, image.height))
            _, status, data = encoder.encode(size)
        finally:
            encoder.cleanup()
    except (AttributeError, TypeError, ValueError, RuntimeError, OSError):
        return image.tobytes()
    return data if status == 1 and len(data) == size else image.tobytes()  # 1: the encoder's "done"


def band_edges(height: int, cuts: Iterable[int] = ()) -> list[int]:
    """Where the bands of a picture ``height`` rows high begin, and its height: at each of ``cuts`` inside the
    picture, and every BAND_ROWS rows within a stretch longer than twice that (a legend, a picture without
    cuts)."""
    edges = [0]
    for cut in [*sorted(cut for cut in set(cuts) if 0 < cut < height), height]:
        if cut - edges[-1] > 2 * BAND_ROWS:
            edges += range(edges[-1] + BAND_ROWS, cut - BAND_ROWS + 1, BAND_ROWS)
        edges.append(cut)
    return edges


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib_ng.crc32(data, zlib_ng.crc32(kind)))


class BandedPngEncoder:
    """Encodes palette ("P") images as 8-bit PNGs, remembering up to ``bands`` deflated bands (least recently
    used go first). Safe to share between threads."""

    def __init__(self, bands: int = 4096, level: int = 3, strategy: int = zlib_ng.Z_RLE) -> None:
        self._capacity = bands
        self._level, self._strategy = level, strategy
        # key -> (deflate segment, Adler-32 of the filtered rows, their length); dict order is recency
        self._bands: dict[tuple[int, int, int], tuple[bytes, int, int]] = {}
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def clear(self) -> None:
        """Forget every band (a bench's picture of a position never seen)."""
        with self._lock:
            self._bands.clear()

    def encode(self, image: Image.Image, palette: Sequence[int]) -> bytes:
        """``image`` (mode "P") as PNG bytes with ``palette`` (flat r, g, b values) as its PLTE."""
        raw = index_bytes(image)  # refuses any but a palette image
        width, height = image.size
        # Each row is preceded by its filter type: 0, none (palette indices do not predict each other).
        rows = b"".join(b"\x00" + raw[start:start + width] for start in range(0, len(raw), width))
        return self.encode_filtered(rows, width, height, palette)

    def encode_filtered(self, rows: bytes, width: int, height: int, palette: Sequence[int],
                        cuts: Iterable[int] = ()) -> bytes:
        """A ``width`` x ``height`` palette picture as PNG bytes, from its ``rows`` of indices each already preceded
        by its filter byte (0); ``cuts``: the rows where bands should begin (see :func:`band_edges`)."""
        if len(rows) != (width + 1) * height:
            raise ValueError(f"{len(rows)} bytes are not {height} rows of {width} pixels and a filter byte")
        segments: list[bytes] = [_ZLIB_HEADER]
        adler = 1  # the Adler-32 of nothing
        # One deflater for the picture's new bands: each band ends on a full flush, which forgets the band
        # before it, so a segment is the same whichever bands came first.
        deflater = zlib_ng.compressobj(self._level, zlib_ng.DEFLATED, -15, 8, self._strategy)
        stride = width + 1
        view = memoryview(rows)  # bands looked at in place: only a new one is copied (by the deflater)
        edges = band_edges(height, cuts)
        for top, bottom in itertools.pairwise(edges):
            segment, band_adler, length = self._band(view[top * stride:bottom * stride], width, deflater)
            segments.append(segment)
            adler = adler32_combine(adler, band_adler, length)
        segments += (_FINAL_BLOCK, struct.pack(">I", adler))
        header = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPE_PALETTE, 0, 0, 0)
        return b"".join((_SIGNATURE, _chunk(b"IHDR", header), _chunk(b"PLTE", bytes(palette)),
                         _chunk(b"IDAT", b"".join(segments)), _chunk(b"IEND", b"")))

    def _band(self, rows: memoryview, width: int, deflater: Any) -> tuple[bytes, int, int]:
        # The rows' 128-bit XXH3: with 4096 bands kept, a false match is one in 2 ** 116 lookups. Python's own hash
        # of a copy of the rows was 11 µs a band (a picture has fourteen), XXH3 of the rows in place is 1.3.
        key = (width, len(rows), xxh3_128_intdigest(rows))
        with self._lock:
            found = self._bands.pop(key, None)
            if found is not None:
                self._bands[key] = found  # now the most recent
                self.hits += 1
                return found
        made = (deflater.compress(rows) + deflater.flush(zlib_ng.Z_FULL_FLUSH), zlib_ng.adler32(rows), len(rows))
        with self._lock:
            self.misses += 1
            self._bands[key] = made
            while len(self._bands) > self._capacity:
                del self._bands[next(iter(self._bands))]
        return made
