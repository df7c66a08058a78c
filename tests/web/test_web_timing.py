"""How the web pages age and what they cost: one build per version, the minute's turn spread, finished clocks."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from pbem.web import pages, site
from tests.helpers.clock import T0, FakeTime
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register
from tests.helpers.web import serving


@pytest.fixture
def timed(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    """A pipeline on the injected clock, half a second past a minute's turn."""
    time.now = T0 + timedelta(seconds=0.5)
    p = Pipeline(tmp_path, now=time)
    yield p
    p.close()


def _counting(monkeypatch: pytest.MonkeyPatch, module: Any, name: str, pause: float = 0.0) -> list[Any]:
    """Replace ``module.name`` by itself counting its calls (first argument after the context); the calls."""
    calls: list[Any] = []
    lock = threading.Lock()
    real = getattr(module, name)

    def counted(*args: Any) -> Any:
        with lock:
            calls.append(args[1] if len(args) > 1 else args[0])
        time.sleep(pause)
        return real(*args)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_concurrent_requests_for_a_page_not_yet_cached_build_it_once(pipe: Pipeline,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    _, _, alice_seat, _ = begin_game(pipe, "days 3")
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    builds = _counting(monkeypatch, pages, "game_page", pause=0.5)  # every request meanwhile must wait for it
    with serving(pipe) as web, ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda _: web.get("/games/1"), range(20)))
        assert {a.status for a in answers} == {200}
        assert len({a.body for a in answers}) == 1 and b"after 1. Pe2-e4" in answers[0].body
        assert builds == [1]
        assert web.get("/games/1/0").status == 200 and builds == [1, 1]  # another page is another build
        assert web.get("/games/99").status == 404 and web.get("/games/1/5").status == 404
        assert builds == [1, 1, 1]  # game 1 exists, so its ply 5 is looked for (and missing); game 99 is not


def test_the_minute_turns_for_each_game_at_its_own_second_and_pictures_outlive_it(
        timed: Pipeline, time: FakeTime, monkeypatch: pytest.MonkeyPatch) -> None:
    alice, _, alice_seat, _ = begin_game(timed, "days 3")
    timed.send(ALICE, alice_seat, "Pe2-e4")
    carol = register(timed, CAROL, "carol")
    timed.send(CAROL, carol, "challenge alice voidrider white")
    number = re.search(r"accept (\d+)", next(body_of(m) for r, m in timed.drain_outbox() if r == ALICE))
    assert number
    timed.send(ALICE, alice, f"accept {number.group(1)}")
    builds = _counting(monkeypatch, pages, "game_page")
    drawn = _counting(monkeypatch, site, "render_png")
    with serving(timed) as web:
        for path in ("/games/1", "/games/2", "/games/1/1.png"):
            assert web.get(path).status == 200, path
        assert builds == [1, 2] and len(drawn) == 1
        time.now = T0 + timedelta(seconds=1.5)  # game 1's minute has turned, game 2's not yet
        for path in ("/games/1", "/games/2", "/games/1/1.png"):
            assert web.get(path).status == 200, path
        assert builds == [1, 2, 1] and len(drawn) == 1  # the picture shows no time: kept
        time.now = T0 + timedelta(seconds=2.5)
        assert web.get("/games/2").status == 200 and builds == [1, 2, 1, 2]
        time.now = T0 + timedelta(days=1)
        assert web.get("/games/1/1.png").status == 200 and len(drawn) == 1


def test_a_finished_games_clock_stands_still_on_its_page(timed: Pipeline, time: FakeTime) -> None:
    _, _, alice_seat, bob_seat = begin_game(timed, "days 3")
    time.now += timedelta(hours=5)
    timed.send(ALICE, alice_seat, "Pe2-e4")
    time.now += timedelta(hours=7)
    timed.send(BOB, bob_seat, "resign")  # bob's clock ran 7 hours of his 3 days
    with serving(timed) as web:
        at_the_end = re.findall(r"time left [^,]+", web.get("/games/1").text)
        assert at_the_end == ["time left 3d 0h", "time left 2d 17h"]  # days per move: alice has all 3 again
        time.now += timedelta(days=30)
        assert re.findall(r"time left [^,]+", web.get("/games/1").text) == at_the_end


def test_the_site_icon_is_served(pipe: Pipeline) -> None:
    with serving(pipe) as web:
        icon = web.get("/favicon.ico")
        assert icon.status == 200 and icon.headers["Content-Type"] == "image/png"
        assert icon.body[:8] == b"\x89PNG\r\n\x1a\n" and "Content-Security-Policy" in icon.headers
