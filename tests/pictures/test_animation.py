"""The game GIF: one frame per position with its duration, drawn crisp at a narrower width when too heavy."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageChops, ImageSequence

from pbem.engine.base import Audience
from pbem.engine.board_view import BoardView
from pbem.engine.capabilities import ActionCompletion, SecretKeeping
from pbem.pictures.animation import GIF_COLOURS, GIF_WIDTHS, animated_gif
from pbem.pictures.colours import PALETTE
from pbem.pictures.layout import layout_of
from pbem.pictures.render import render_image
from pbem.variants import get_variant


def random_game(key: str, plies: int, seed: int = 1) -> list[BoardView]:
    engine = get_variant(key)
    rng = random.Random(seed)
    state = engine.setup()
    views = [engine.view(state, Audience.PUBLIC).board]
    for ply in range(plies):
        if engine.outcome(state) is not None:
            break
        action = rng.choice(list(engine.legal_actions(state)))
        if isinstance(engine, ActionCompletion):
            action = engine.complete_action(state, action)
        if isinstance(engine, SecretKeeping):
            action = engine.seal(state, action, f"seal-{ply}")
        state = engine.apply(state, action).state
        views.append(engine.view(state, Audience.PUBLIC).board)
    assert all(view is not None for view in views)
    return [view for view in views if view is not None]


def frames_of(data: bytes) -> tuple[Image.Image, list[Image.Image], list[int]]:
    gif = Image.open(io.BytesIO(data))
    frames = [frame.convert("RGB") for frame in ImageSequence.Iterator(gif)]
    durations = [frame.info["duration"] for frame in ImageSequence.Iterator(Image.open(io.BytesIO(data)))]
    return gif, frames, durations


def test_each_position_is_a_frame_shown_for_its_time_and_the_last_one_longer() -> None:
    views = random_game("space-chess", 6)
    data = animated_gif(views, 900, 4000, 100_000)
    assert data is not None and data.startswith(b"GIF89a")
    gif, _, durations = frames_of(data)
    assert gif.n_frames == len(views) == 7
    assert durations == [900] * 6 + [4000]
    assert gif.info.get("loop") == 0
    assert gif.size == (GIF_WIDTHS[0], layout_of(views[0]).height)


def test_a_frame_shows_its_position_in_no_more_than_the_gif_colours() -> None:
    views = random_game("tri-d", 4)
    data = animated_gif(views, 900, 4000, 100_000)
    assert data is not None
    _, frames, _ = frames_of(data)
    for view, frame in zip(views, frames, strict=True):
        drawn = render_image(view).convert("RGB")
        colours = frame.getcolors(maxcolors=256)
        assert colours is not None and len(colours) <= GIF_COLOURS
        # the reduction keeps the colours that cover the picture: nearly every pixel is exactly as drawn
        red, green, blue = ImageChops.difference(drawn, frame).split()
        same = ImageChops.lighter(ImageChops.lighter(red, green), blue).histogram()[0]
        assert same / (frame.width * frame.height) > 0.97


def test_a_heavy_game_is_drawn_narrower_to_fit_and_stays_in_the_palette() -> None:
    views = random_game("tri-d", 40)
    full = animated_gif(views, 900, 4000, 10_000_000)
    assert full is not None
    budget = len(full) * 2 // 3
    fitted = animated_gif(views, 900, 4000, budget)
    assert fitted is not None and len(fitted) <= budget
    gif, frames, _ = frames_of(fitted)
    assert gif.n_frames == len(views)
    assert gif.width in GIF_WIDTHS[1:] and gif.height < layout_of(views[0]).height
    # drawn small, not resampled: every colour is one of the pictures' own
    assert {colour for _, colour in frames[-1].getcolors(maxcolors=256) or []} <= set(PALETTE)


def test_none_when_even_the_narrowest_does_not_fit() -> None:
    views = random_game("voidrider", 30)
    assert animated_gif(views, 900, 4000, 2_000) is None
    assert animated_gif([], 900, 4000, 100_000) is None
