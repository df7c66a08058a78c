"""A real browser on the public web pages over a database filled by mail: links followed, moves stepped, screenshots."""

from __future__ import annotations

import os
import random
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from pbem.engine.base import Audience
from pbem.store.models import Account, Game
from pbem.variants import get_variant
from tests.helpers.browser import chromium, unavailable
from tests.helpers.events import config_file, organiser
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import FIRST_MOVES, register
from tests.helpers.web import WebSite, serving

#: Where the screenshots are copied when PBEM_SCREENSHOTS is set (the README shows docs/screenshots/).
SCREENSHOTS = os.environ.get("PBEM_SCREENSHOTS", "")

#: The widths the pages are looked at: a phone held upright and a desktop window.
WIDTHS = {"phone": 420, "desktop": 1280}

HANDLES = ("alice", "bob", "carol", "dave")
EVENT = "autumn-cup"
#: The Hyperspace game the browser steps through (plies 1..5).
STEPPED = ["Pe2-e4", "Pe7-e5", "Ng1-f3", "Nb8-c6", "Bf1-c4"]




pytestmark = [pytest.mark.slow, pytest.mark.skipif(bool(unavailable()), reason=unavailable())]


# -- a realistic database, filled through the mail pipeline and the organiser's commands ------------------


@dataclass
class Seeded:
    """What the pages should show: the games by role, the stepped game's moves, the event's name."""

    stepped: int = 0
    finished: int = 0
    event_games: list[int] = field(default_factory=list)
    games: dict[int, str] = field(default_factory=dict)  # id -> variant key


def _email(handle: str) -> str:
    return f"{handle}@players.example"


def _challenge(pipe: Pipeline, personal: dict[str, str], white: str, black: str, variant: str,
               terms: str = "") -> tuple[int, dict[str, str]]:
    """``white`` challenges ``black``, who accepts: the game's number and both seat addresses by handle."""
    pipe.send(_email(white), personal[white], f"challenge {black} {variant} white {terms}".strip())
    invitation = next(body_of(m) for r, m in pipe.drain_outbox() if r == _email(black))
    number = re.search(r"accept (\d+)", invitation)
    assert number, invitation
    pipe.send(_email(black), personal[black], f"accept {number.group(1)}")
    return _started(pipe)


def _started(pipe: Pipeline) -> tuple[int, dict[str, str]]:
    games = _opened(pipe.drain_outbox())
    assert len(games) == 1, games
    return next(iter(games.items()))


def _opened(mails: list[tuple[str, Any]]) -> dict[int, dict[str, str]]:
    """The seat addresses (by handle) of every game whose opening mail is among ``mails``."""
    games: dict[int, dict[str, str]] = {}
    for recipient, message in mails:
        found = re.match(r"\[pbem #(\d+)\]", str(message["Subject"]))  # a game's own thread, not a reply
        if found and "has started" in body_of(message):
            games.setdefault(int(found.group(1)), {})[recipient.split("@")[0]] = str(message["Reply-To"])
    return games


def _play(pipe: Pipeline, seats: dict[str, str], white: str, black: str, moves: list[str]) -> None:
    for ply, move in enumerate(moves):
        mover = white if ply % 2 == 0 else black
        pipe.send(_email(mover), seats[mover], move)
    refused = [body_of(m) for _, m in pipe.drain_outbox() if "not a legal" in body_of(m).lower()
               or "could not" in body_of(m).lower()]
    assert not refused, refused


def _legal_moves(variant: str, count: int, seed: int, opening: str) -> list[str]:
    """``opening`` then random legal moves, in the engine's canonical notation (what a player would mail)."""
    engine, rng = get_variant(variant), random.Random(seed)
    state = engine.apply(engine.setup(), engine.parse_action(engine.setup(), opening)).state
    moves = [opening]
    while len(moves) < count:
        action = rng.choice(sorted(engine.legal_actions(state), key=lambda a: engine.describe(state, a)))
        moves.append(engine.describe(state, action))
        state = engine.apply(state, action).state
    return moves


def seed(pipe: Pipeline, tmp_path: Path) -> Seeded:
    """Four players; a game in each variant with some moves; a finished rated game; a started round robin with a
    result; an open seek."""
    seeded = Seeded()
    personal = {handle: register(pipe, _email(handle), handle) for handle in HANDLES}
    seeded.stepped, seats = _challenge(pipe, personal, "alice", "bob", "hyperspace", "days 5 option public-notes=yes")
    _play(pipe, seats, "alice", "bob", STEPPED[:2])
    # The public reads a note once the move it came with is answered (as observers' mails show it).
    pipe.send(_email("alice"), seats["alice"], f"{STEPPED[2]}\nsay Your knight will not hold c6 for long.")
    pipe.send(_email("bob"), seats["bob"], STEPPED[3])
    pipe.send(_email("alice"), seats["alice"], STEPPED[4])
    pipe.drain_outbox()
    seeded.games[seeded.stepped] = "hyperspace"
    for number, (variant, white, black) in enumerate([("outer-space", "bob", "carol"), ("tri-d", "carol", "alice"),
                                                       ("space-chess", "dave", "alice")]):
        game, seats = _challenge(pipe, personal, white, black, variant, "days 7")
        _play(pipe, seats, white, black, _legal_moves(variant, 5, number, FIRST_MOVES[variant]))
        seeded.games[game] = variant
    seeded.finished, seats = _challenge(pipe, personal, "alice", "dave", "voidrider", "days 3")
    _play(pipe, seats, "alice", "dave", _legal_moves("voidrider", 4, 7, FIRST_MOVES["voidrider"]))
    pipe.send(_email("dave"), seats["dave"], "resign")
    pipe.drain_outbox()
    seeded.games[seeded.finished] = "voidrider"

    config = config_file(tmp_path, pipe.db.url, "pipeline-key")
    for argv in (("create", EVENT, "--variant", "hyperspace", "--format", "round-robin", "--time", "days 7"),
                 ("add", EVENT, *HANDLES), ("start", EVENT)):
        status, _, err = organiser(config, *argv)
        assert status == 0, err
    event_games = _opened(pipe.drain_outbox())
    seeded.event_games = sorted(event_games)
    with pipe.db.read() as session:
        handles = {a.id: a.handle for a in session.exec(select(Account))}
        colours = {g.id: (handles[g.white_id], handles[g.black_id]) for g in session.exec(select(Game))}
    decided = next(n for n in seeded.event_games if set(colours[n]) == {"bob", "dave"})
    pipe.send(_email("bob"), event_games[decided]["bob"], "resign")  # dave leads the event
    going = next(n for n in seeded.event_games if n != decided)
    _play(pipe, event_games[going], *colours[going], ["Pd2-d4", "Pd7-d5"])
    seeded.event_games.remove(decided)
    seeded.event_games.insert(0, decided)  # the decided game first
    pipe.send(_email("carol"), personal["carol"], "seek space-chess black days 3")
    pipe.drain_outbox()
    return seeded


# -- the browser --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def seeded_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Seeded, WebSite]]:
    tmp_path = tmp_path_factory.mktemp("web-browser")
    pipe = Pipeline(tmp_path)
    try:
        seeded = seed(pipe, tmp_path)
        with serving(pipe) as site:
            yield seeded, site
    finally:
        pipe.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from chromium(1280, 1000, console=True)


@pytest.fixture
def driver(browser: Any) -> Iterator[Any]:
    """The browser at desktop width with an empty console; after the test, nothing may have failed to load."""
    _width(browser, "desktop")
    browser.get_log("browser")  # what earlier tests left
    yield browser
    _assert_clean(browser)


def _width(driver: Any, name: str, height: int = 1000) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": WIDTHS[name], "height": height, "deviceScaleFactor": 1, "mobile": name == "phone"})


def _by(kind: str) -> Any:
    from selenium.webdriver.common.by import By

    return getattr(By, kind)


def _text(driver: Any, css: str) -> str:
    return str(driver.find_element(_by("CSS_SELECTOR"), css).text)


def _click(driver: Any, css: str, text: str | None = None) -> None:
    """Click the link matched by ``css`` (and showing ``text``) as a person would, and wait for the new page."""
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    links = driver.find_elements(_by("CSS_SELECTOR"), css)
    chosen = [link for link in links if text is None or link.text == text]
    assert chosen, f"no link {css!r} showing {text!r} on {driver.current_url}: {[link.text for link in links]}"
    chosen[0].click()
    WebDriverWait(driver, 10).until(expected_conditions.staleness_of(chosen[0]))
    WebDriverWait(driver, 10).until(lambda d: d.execute_script("return document.readyState") == "complete")


def _assert_clean(driver: Any) -> None:
    """Every picture loaded, the stylesheet applied, nothing failed to load, nothing on the console."""
    pictures = driver.execute_script(
        "return Array.from(document.images).map(i => [i.src, i.complete, i.naturalWidth]);")
    assert all(complete and width > 0 for _, complete, width in pictures), pictures
    failed = driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.responseStatus >= 400).map(e => e.name);")
    assert failed == [], failed
    assert driver.execute_script(
        "return getComputedStyle(document.querySelector('header')).borderBottomStyle;") == "solid", \
        "the stylesheet was not applied"
    errors = [entry for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    assert errors == [], errors


def _position(driver: Any) -> tuple[str, str, int, str]:
    """What the game page shows of its position: where it is, the current move, the picture's width and ply."""
    where = _text(driver, ".steps .where")
    current = driver.find_elements(_by("CSS_SELECTOR"), "ol.moves li.current")
    picture = driver.find_element(_by("CSS_SELECTOR"), ".board img")
    loaded = driver.execute_script("const i = arguments[0]; return i.complete ? i.naturalWidth : 0;", picture)
    src = re.search(r"/games/\d+/(\d+)\.png$", str(picture.get_attribute("src")))
    assert src, picture.get_attribute("src")
    return where, current[0].text if current else "", int(loaded), src.group(1)


def _diagrams(variant: str, moves: list[str]) -> list[str]:
    """The public diagram after each number of plies, from the engine itself."""
    engine = get_variant(variant)
    state = engine.setup()
    shown = [engine.view(state, Audience.PUBLIC, picture=False).diagram]
    for move in moves:
        state = engine.apply(state, engine.parse_action(state, move)).state
        shown.append(engine.view(state, Audience.PUBLIC, picture=False).diagram)
    return shown


def _labels(moves: list[str]) -> list[str]:
    return [f"{ply // 2 + 1}{'.' if ply % 2 == 0 else '...'} {move}" for ply, move in enumerate(moves)]


def test_from_the_front_page_to_a_game_and_through_its_moves(seeded_site: tuple[Seeded, WebSite],
                                                              driver: Any) -> None:
    seeded, site = seeded_site
    driver.get(site.base + "/")
    assert driver.title == "pbem: correspondence space chess"
    assert _text(driver, "h1") == "Correspondence space chess"
    captions = [c.text for c in driver.find_elements(_by("TAG_NAME"), "caption")]
    assert captions == ["Games being played", "Recent results"]
    assert f"#{seeded.finished}" in _text(driver, "table.games:nth-of-type(2)")
    assert "carol" in _text(driver, "table.seeks") and "Space Chess" in _text(driver, "table.seeks")
    assert EVENT in _text(driver, "ul.events")
    _assert_clean(driver)

    _click(driver, f'table.games a[href="/games/{seeded.stepped}"]', f"#{seeded.stepped}")
    assert driver.current_url == f"{site.base}/games/{seeded.stepped}"
    assert driver.title == f"Game {seeded.stepped}: alice vs bob (Hyperspace Chess)"
    assert _text(driver, "h1") == f"Game {seeded.stepped}: alice vs bob"
    assert "Being played: black to move" in _text(driver, "p.summary")
    assert "Your knight will not hold c6 for long." in _text(driver, "ul.notes")
    labels, diagrams = _labels(STEPPED), _diagrams("hyperspace", STEPPED)
    assert [li.text for li in driver.find_elements(_by("CSS_SELECTOR"), "ol.moves li")] == labels

    def shows(ply: int) -> None:
        where, current, width, picture_ply = _position(driver)
        assert where == (f"after {labels[ply - 1]}" if ply else "starting position")
        assert current == (labels[ply - 1] if ply else "")
        assert width > 0 and picture_ply == str(ply), (width, picture_ply)
        assert _text(driver, "pre.diagram") == diagrams[ply].strip("\n")
        _assert_clean(driver)

    shows(len(STEPPED))
    assert not driver.find_elements(_by("CSS_SELECTOR"), 'a[rel="next"]')  # nothing after the latest move
    for ply in range(len(STEPPED) - 1, -1, -1):
        _click(driver, 'a[rel="prev"]', "< back")
        assert driver.current_url == f"{site.base}/games/{seeded.stepped}/{ply}"
        shows(ply)
    assert not driver.find_elements(_by("CSS_SELECTOR"), 'a[rel="prev"]')  # nothing before the start
    for ply in range(1, len(STEPPED) + 1):
        _click(driver, 'a[rel="next"]', "forward >")
        shows(ply)
    assert driver.current_url == f"{site.base}/games/{seeded.stepped}/{len(STEPPED)}"
    _click(driver, "ol.moves a", labels[1])  # a move in the list is a link to its position
    shows(2)
    _click(driver, 'a[rel="last"]', "latest >|")
    assert driver.current_url == f"{site.base}/games/{seeded.stepped}"
    shows(len(STEPPED))


def test_a_players_page_by_its_link(seeded_site: tuple[Seeded, WebSite], driver: Any) -> None:
    seeded, site = seeded_site
    driver.get(f"{site.base}/games/{seeded.finished}")
    assert "Result: 1-0 (resignation)" in _text(driver, "p.summary")
    _click(driver, "h1 a", "alice")
    assert driver.current_url == f"{site.base}/players/alice"
    assert driver.title == "alice: games and ratings"
    assert _text(driver, "h1") == "alice"
    assert "Finished games: 1 won, 0 drawn, 0 lost." in _text(driver, "p.summary")
    ratings = {row.find_elements(_by("TAG_NAME"), "td")[0].text: row.find_elements(_by("TAG_NAME"), "td")[1].text
               for row in driver.find_elements(_by("CSS_SELECTOR"), "table.ratings tbody tr")}
    assert re.fullmatch(r"1[5-9]\d\d \(provisional\)", ratings.get("Voidrider Chess", "")), ratings
    body = _text(driver, "body")
    assert "@" not in body and "players.example" not in driver.page_source  # never an address
    played = {int(a.get_attribute("href").rsplit("/", 1)[1])
              for a in driver.find_elements(_by("CSS_SELECTOR"), 'table.games a[href^="/games/"]')}
    assert {seeded.stepped, seeded.finished} <= played
    _click(driver, 'table.ratings a', "Voidrider Chess")
    assert driver.title == "Voidrider Chess ratings"
    assert [td.text for td in driver.find_elements(_by("CSS_SELECTOR"), "table.ratings tbody td:nth-child(2)")] \
        == ["alice", "dave"]  # the winner above the loser


def test_an_events_page_by_its_link(seeded_site: tuple[Seeded, WebSite], driver: Any) -> None:
    seeded, site = seeded_site
    driver.get(site.base + "/")
    _click(driver, "ul.events a", EVENT)
    assert driver.current_url == f"{site.base}/events/{EVENT}"
    assert driver.title == f"{EVENT}: Hyperspace Chess event"
    assert _text(driver, "h1") == EVENT
    headings = [h.text for h in driver.find_elements(_by("TAG_NAME"), "h2")]
    assert headings[0] == "Standings" and "Pairings and games" in headings and "Players" in headings
    standings = _text(driver, "pre.table")
    assert all(handle in standings for handle in HANDLES)
    players = [li.text for li in driver.find_elements(_by("CSS_SELECTOR"), "ul.players li")]
    assert sorted(players) == sorted(HANDLES)
    assert standings.splitlines()[2].split()[:2] == ["1", "dave"]  # the only winner so far leads
    pairings = driver.find_elements(_by("CSS_SELECTOR"), "ul.pairings li")
    assert len(pairings) == len(seeded.event_games) == 6  # a round robin of four: every pair once
    assert sum("1-0" in p.text or "0-1" in p.text for p in pairings) == 1
    first = seeded.event_games[0]
    _click(driver, f'ul.pairings a[href="/games/{first}"]', f"#{first}")
    assert "resignation" in _text(driver, "p.summary")
    _click(driver, "p.summary a", EVENT)  # a game of an event links back to it
    assert driver.current_url == f"{site.base}/events/{EVENT}"


def _full_page(driver: Any, width: str, path: Path) -> None:
    """A screenshot of the whole page at ``width``; at phone width nothing may stick out sideways."""
    _width(driver, width)
    height = int(driver.execute_script("return document.documentElement.scrollHeight"))
    _width(driver, width, min(height, 4000))
    if width == "phone":
        overflow = driver.execute_script("return document.documentElement.scrollWidth")
        assert overflow <= WIDTHS["phone"], f"{driver.current_url} is {overflow} px wide on a phone"
    assert driver.save_screenshot(str(path))
    assert path.stat().st_size > 10_000


@pytest.mark.parametrize("width", sorted(WIDTHS))
def test_screenshots_of_each_page(seeded_site: tuple[Seeded, WebSite], driver: Any, tmp_path: Path,
                                  width: str) -> None:
    seeded, site = seeded_site
    pages = {"index": "/", "game": f"/games/{seeded.stepped}", "player": "/players/alice", "event": f"/events/{EVENT}"}
    for name, path in pages.items():
        driver.get(site.base + path)
        assert driver.find_element(_by("TAG_NAME"), "h1").is_displayed()
        shot = tmp_path / (f"web-{name}.png" if width == "desktop" else f"web-{name}-phone.png")
        _full_page(driver, width, shot)
        _assert_clean(driver)
        if SCREENSHOTS:
            Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
            shutil.copy(shot, Path(SCREENSHOTS) / shot.name)
