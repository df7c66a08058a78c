"""Random Hyperspace games with phase-outs, the whole web face fetched after every turn: no page, API response,
feed, record or picture contains an unrevealed return square, and the observer delay holds on all of them."""

from __future__ import annotations

import io
import json
import random
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from sqlmodel import select

from pbem.engine.base import Seat
from pbem.engine.capabilities import secrets_of
from pbem.pictures.colours import PENDING_COLOUR
from pbem.store.models import Game
from tests.helpers.hyperspace import ENGINE, random_square, random_turn
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, begin_game
from tests.helpers.web import WebSite, serving

OWNER = {Seat.WHITE: ALICE, Seat.BLACK: BOB}


def _server_state(pipe: Pipeline) -> tuple[object, int]:
    with pipe.db.read() as session:
        game = session.exec(select(Game)).one()
        return ENGINE.load(game.state), game.ply


def _forbidden(state: object) -> list[str]:
    """Every unrevealed secret of both sides (nonces, commitment strings, "{square}"), and the plain words a
    text would use to give a pending square away."""
    strings = [s for found in secrets_of(ENGINE, state).values() for s in found]
    for entry in state.pool:  # type: ignore[attr-defined]
        if entry.square is not None:
            square = entry.square.reveal()
            strings.extend((f"returns to {square}", f"{entry.public} {{{square}}}", f"to {square} on"))
    return strings


def _no_pending_ring(png: bytes) -> bool:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    return all(colour != PENDING_COLOUR for _, colour in image.getcolors(maxcolors=1 << 16) or [])


def _check_everything(site: WebSite, state: object, ply: int, delay: int) -> int:
    """Fetch every public resource of game 1; returns how many were checked."""
    visible = max(0, ply - delay) if ENGINE.to_act(state) is not None else ply
    forbidden = _forbidden(state)
    paths = ["/", "/games/1", "/games/1.pgn", "/games/1.atom", "/api/games", "/api/games/1", "/players/alice",
             "/players/bob", "/api/players/alice", "/ratings/hyperspace"]
    paths += [f"/games/1/{m}" for m in range(visible + 1)] + [f"/api/games/1/{m}" for m in range(visible + 1)]
    for path in paths:
        found = site.get(path)
        assert found.status == 200, path
        text = found.text
        for secret in forbidden:
            assert secret not in text, (path, secret)
    for m in range(visible + 1):
        picture = site.get(f"/games/1/{m}.png")
        assert picture.status == 200 and _no_pending_ring(picture.body), m
    # The observer delay: nothing past the visible ply anywhere.
    for path in (f"/games/1/{visible + 1}", f"/api/games/1/{visible + 1}", f"/games/1/{visible + 1}.png"):
        assert site.get(path).status == 404, path
    document = json.loads(site.get("/api/games/1").body)
    assert len(document["moves"]) == visible and document["visible_ply"] == visible
    assert len(re.findall(r"<entry>", site.get("/games/1.atom").text)) == visible + (ENGINE.to_act(state) is None)
    if delay and visible < ply:
        assert document["deadline"] is None and document["clock"] == []
    return len(paths) + 2 * (visible + 1) + 4


def play_and_fetch(tmp_path: Path, seed: int, plies: int, delay: int) -> tuple[int, int]:
    """One random game; after every turn the whole site is checked. Returns (resources checked, squares sealed)."""
    rng = random.Random(seed)
    pipe = Pipeline(tmp_path)
    checked = sealed = 0
    try:
        terms = f"days 3 option observer-delay={delay}" if delay else "days 3"
        seats = dict(zip((ALICE, BOB), begin_game(pipe, terms)[2:], strict=True))
        with serving(pipe) as site:
            state, ply = _server_state(pipe)
            for _ in range(plies):
                seat = ENGINE.to_act(state)
                if seat is None:
                    break
                player = OWNER[seat]
                turn = ENGINE.move_number(state)
                text = random_turn(rng, state)
                pipe.send(player, seats[player], text)
                state, ply = _server_state(pipe)
                if "@" in text and "{" not in text and rng.random() < 0.5 and ENGINE.to_act(state) is not seat:
                    declaration = text.split("@")[0]
                    pipe.send(player, seats[player], f"secret {turn} {declaration} {random_square(rng, declaration)}")
                    state, ply = _server_state(pipe)
                pipe.drain_outbox()
                sealed += sum(1 for entry in state.pool if entry.square is not None)  # type: ignore[attr-defined]
                checked += _check_everything(site, state, ply, delay)
        return checked, sealed
    finally:
        pipe.close()


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), delay=st.sampled_from([0, 0, 2, 3]))
def test_no_web_resource_shows_an_unrevealed_square_or_runs_ahead_of_the_delay(
        tmp_path_factory, seed: int, delay: int) -> None:  # type: ignore[no-untyped-def]
    checked, _ = play_and_fetch(tmp_path_factory.mktemp("web-secrecy"), seed, plies=24, delay=delay)
    assert checked > 0


def test_the_web_property_meets_sealed_squares(tmp_path: Path) -> None:
    """Guards the property test: over a few seeds the games really hold secret squares while pages are read."""
    total = 0
    for seed in range(3):
        (tmp_path / str(seed)).mkdir()
        total += play_and_fetch(tmp_path / str(seed), seed, plies=16, delay=seed % 2 * 2)[1]
    assert total >= 3
