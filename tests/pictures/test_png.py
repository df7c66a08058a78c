"""The banded PNG encoder: valid PNGs that decode to exactly the picture, whatever its bands' history."""

from __future__ import annotations

import io
import itertools
import random
import struct
import zlib
from typing import Any

import pytest
from PIL import Image

from pbem.pictures.colours import PALETTE
from pbem.pictures.png import BAND_ROWS, BandedPngEncoder, adler32_combine, band_edges, index_bytes
from pbem.pictures.render import PNG_COMPRESS_LEVEL, PNG_STRATEGY, render_image, render_png

from .views import chess, hyperspace, outer_space, random_views, voidrider

FLAT = [channel for colour in PALETTE for channel in colour]


@pytest.fixture
def rng() -> random.Random:
    seed = random.randrange(2**32)
    print(f"png seed {seed}")
    return random.Random(seed)


def _picture(rng: random.Random, width: int, height: int) -> Image.Image:
    """Runs of palette indices, as a board picture has, with some noise."""
    data = bytearray()
    while len(data) < width * height:
        data += bytes([rng.randrange(len(PALETTE))]) * rng.choice((1, 2, 7, 40, 300))
    image = Image.frombytes("P", (width, height), bytes(data[:width * height]))
    image.putpalette(FLAT)
    return image


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """The chunks of a PNG, each CRC checked."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    found, at = [], 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, data = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", png[at + 8 + length:at + 12 + length])
        assert crc == zlib.crc32(kind + data), kind
        found.append((kind, data))
        at += 12 + length
    return found


def _decoded(png: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def test_adler32_of_joined_parts_is_combined_from_the_parts(rng: random.Random) -> None:
    for _ in range(200):
        first = rng.randbytes(rng.choice((0, 1, 5, 1000, 70000)))
        second = rng.randbytes(rng.choice((0, 1, 5, 1000, 70000, 140000)))
        combined = adler32_combine(zlib.adler32(first), zlib.adler32(second), len(second))
        assert combined == zlib.adler32(first + second)


def test_random_pictures_decode_to_exactly_their_pixels(rng: random.Random) -> None:
    encoder = BandedPngEncoder(bands=64)  # small: evictions happen along the way
    for _ in range(40):
        image = _picture(rng, rng.randint(1, 700), rng.randint(1, 5 * BAND_ROWS + 3))
        png = encoder.encode(image, FLAT)
        kinds = [kind for kind, _ in _chunks(png)]
        assert kinds == [b"IHDR", b"PLTE", b"IDAT", b"IEND"]
        idat = dict(_chunks(png))[b"IDAT"]
        rows = zlib.decompress(idat)  # checks the stream's Adler-32 too
        width, height = image.size
        assert rows == b"".join(b"\x00" + image.tobytes()[y * width:(y + 1) * width] for y in range(height))
        decoded = _decoded(png)
        assert decoded.mode == "P" and decoded.size == image.size
        assert decoded.tobytes() == image.tobytes()
        assert decoded.getpalette() == FLAT


def test_bands_seen_before_are_reused_and_the_bytes_do_not_depend_on_them(rng: random.Random) -> None:
    first, second = _picture(rng, 300, 6 * BAND_ROWS), _picture(rng, 300, 6 * BAND_ROWS)
    second.paste(first.crop((0, 0, 300, 3 * BAND_ROWS)), (0, 0))  # the top three bands are the first's
    warm = BandedPngEncoder()
    warm.encode(first, FLAT)
    misses = warm.misses
    again = warm.encode(second, FLAT)
    assert warm.misses - misses == 3 and warm.hits == 3
    assert again == BandedPngEncoder().encode(second, FLAT)
    assert _decoded(again).tobytes() == second.tobytes()


def test_bands_begin_at_the_cuts_given_and_long_stretches_are_split() -> None:
    assert band_edges(2 * BAND_ROWS) == [0, 2 * BAND_ROWS]  # not over twice BAND_ROWS: one band
    assert band_edges(3 * BAND_ROWS + 5) == [0, BAND_ROWS, 2 * BAND_ROWS, 3 * BAND_ROWS + 5]
    assert band_edges(300, [34, 104, 174, 104, 0, 300, 400]) == [0, 34, 104, 174, 174 + BAND_ROWS, 300]  # sorted, once
    steps = [30 + BAND_ROWS, 30 + 2 * BAND_ROWS, 30 + 3 * BAND_ROWS]  # the last piece of a stretch is the longest
    assert band_edges(400, [30, 250]) == [0, 30, *steps, 250, 250 + BAND_ROWS, 250 + 2 * BAND_ROWS, 400]
    for height in range(1, 500, 7):  # every band at least one row, at most twice BAND_ROWS unless a cut says so
        edges = band_edges(height, [height // 3])
        assert edges[0] == 0 and edges[-1] == height and edges == sorted(set(edges))
        assert all(0 < bottom - top <= 2 * BAND_ROWS for top, bottom in itertools.pairwise(edges))


def test_a_row_of_cells_drawn_as_before_is_a_band_found_again(rng: random.Random) -> None:
    # Bands cut where the cells' rows are: a picture whose one row of cells changed deflates only that band anew.
    cuts = [10, 80, 150, 220]
    first = _picture(rng, 200, 240)
    second = first.copy()
    second.paste(_picture(rng, 200, 70), (0, 80))  # the second row of cells, and nothing else, is new
    encoder = BandedPngEncoder()
    rows = [b"".join(b"\x00" + image.tobytes()[y * 200:(y + 1) * 200] for y in range(240)) for image in (first, second)]
    encoder.encode_filtered(rows[0], 200, 240, FLAT, cuts)
    assert (encoder.hits, encoder.misses) == (0, 5)
    again = encoder.encode_filtered(rows[1], 200, 240, FLAT, cuts)
    assert (encoder.hits, encoder.misses) == (4, 6)
    assert _decoded(again).tobytes() == second.tobytes()
    fresh = BandedPngEncoder().encode_filtered(rows[1], 200, 240, FLAT, cuts)
    assert again == fresh  # the bytes are the same whichever bands were found


def test_the_least_recently_used_bands_go_first() -> None:
    encoder = BandedPngEncoder(bands=4)
    bands = [Image.new("P", (10, BAND_ROWS), colour) for colour in range(6)]
    for band in bands:
        encoder.encode(band, FLAT)
    encoder.encode(bands[2], FLAT)  # kept: among the last four
    assert (encoder.hits, encoder.misses) == (1, 6)
    encoder.encode(bands[0], FLAT)  # gone: evicted by the fifth
    assert (encoder.hits, encoder.misses) == (1, 7)
    encoder.clear()
    encoder.encode(bands[2], FLAT)  # and now every one
    assert (encoder.hits, encoder.misses) == (1, 8)


@pytest.mark.parametrize("view", [chess(), hyperspace(), outer_space(), voidrider()],
                         ids=["chess", "hyperspace", "outer-space", "voidrider"])
def test_board_pictures_match_pillows_own_encoding(view: object) -> None:
    image = render_image(view)  # type: ignore[arg-type]
    reference = io.BytesIO()  # as pictures were saved before the bands
    image.save(reference, "PNG", compress_level=PNG_COMPRESS_LEVEL, compress_type=PNG_STRATEGY)
    ours = BandedPngEncoder().encode(image, FLAT)
    assert _decoded(ours).tobytes() == _decoded(reference.getvalue()).tobytes()
    assert len(ours) < 1.05 * len(reference.getvalue())  # the bands' flushes cost a few bytes each


def test_only_palette_pictures_are_taken() -> None:
    with pytest.raises(ValueError, match="palette"):
        BandedPngEncoder().encode(Image.new("RGB", (4, 4)), FLAT)


def test_rows_given_with_their_filter_bytes_are_checked() -> None:
    with pytest.raises(ValueError, match="filter byte"):
        BandedPngEncoder().encode_filtered(b"\x00" * 8, 4, 2, FLAT)  # two rows of four and their filter bytes are ten


def test_board_pictures_drawn_with_their_filter_column_are_the_drawn_image(rng: random.Random) -> None:
    # draw_png draws one column to the right and encodes the canvas's bytes as they are: the PNG must still be
    # exactly render_image's pixels, for every variant's boards as play leaves them.
    for name, board in random_views(rng, 30):
        for scale in (1, 2):
            assert _decoded(render_png(board, scale)).tobytes() == render_image(board, scale).tobytes(), name


def test_index_bytes_are_pillows_tobytes(rng: random.Random) -> None:
    sizes = [(1, 1), (1, 700), (700, 1), (601, 671), (1201, 1341)]
    sizes += [(rng.randint(1, 900), rng.randint(1, 900)) for _ in range(20)]
    for width, height in sizes:
        image = _picture(rng, width, height)
        assert index_bytes(image) == image.tobytes(), (width, height)


def test_index_bytes_fall_back_to_tobytes_when_pillows_encoder_answers_otherwise(
        rng: random.Random, monkeypatch: pytest.MonkeyPatch) -> None:
    image = _picture(rng, 301, 97)
    expected = image.tobytes()
    real = Image._getencoder
    asked: list[tuple[Any, ...]] = []

    def missing_once(*args: Any) -> object:
        asked.append(args)
        if len(asked) == 1:  # index_bytes's own ask; tobytes's, after it, gets the encoder
            raise OSError("encoder raw not available")
        return real(*args)

    monkeypatch.setattr(Image, "_getencoder", missing_once)
    assert index_bytes(image) == expected
    assert len(asked) == 2  # the fallback was taken


def test_index_bytes_need_a_palette_image() -> None:
    with pytest.raises(ValueError, match="mode RGB"):
        index_bytes(Image.new("RGB", (4, 4)))
