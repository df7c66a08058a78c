"""Atom feeds over a real listener: one entry per move the public may see and one for the result."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.etree import ElementTree

import pytest

from pbem.app.context import Context
from pbem.events.entries import add_players, create_event
from pbem.events.running import start_event
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register
from tests.helpers.web import serving

ATOM = "{http://www.w3.org/2005/Atom}"


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path)
    yield p
    p.close()


def entries(xml: bytes) -> list[dict[str, str]]:
    feed = ElementTree.fromstring(xml)
    assert feed.tag == f"{ATOM}feed" and feed.findtext(f"{ATOM}id") and feed.findtext(f"{ATOM}updated")
    return [{"title": e.findtext(f"{ATOM}title") or "", "id": e.findtext(f"{ATOM}id") or "",
             "link": e.find(f"{ATOM}link").get("href", "") if e.find(f"{ATOM}link") is not None else "",
             "updated": e.findtext(f"{ATOM}updated") or ""} for e in feed.findall(f"{ATOM}entry")]


def test_a_game_feed_has_an_entry_per_move_and_one_for_the_result(pipe: Pipeline) -> None:
    _, _, alice_seat, bob_seat = begin_game(pipe, "days 3")
    with serving(pipe) as site:
        assert entries(site.get("/games/1.atom").body) == []
        pipe.send(ALICE, alice_seat, "Pe2-e4")
        pipe.send(BOB, bob_seat, "Pe7-e5")
        feed = site.get("/games/1.atom")
        assert feed.headers["Content-Type"].startswith("application/atom+xml")
        found = entries(feed.body)
        assert [e["title"] for e in found] == ["1... Pe7-e5", "1. Pe2-e4"]  # newest first
        assert found[0]["link"] == f"{site.base}/games/1/2" and len({e["id"] for e in found}) == 2
        pipe.send(ALICE, alice_seat, "resign")
        found = entries(site.get("/games/1.atom").body)
        assert found[0]["title"] == "0-1 (resignation)" and len(found) == 3
        assert site.get("/games/7.atom").status == 404


def test_a_delayed_game_feed_stays_behind(pipe: Pipeline) -> None:
    _, _, alice_seat, bob_seat = begin_game(pipe, "days 3 option observer-delay=2")
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    pipe.send(BOB, bob_seat, "Pe7-e5")
    pipe.send(ALICE, alice_seat, "Ng1-f3")
    with serving(pipe) as site:
        assert [e["title"] for e in entries(site.get("/games/1.atom").body)] == ["1. Pe2-e4"]


def test_an_event_feed_has_each_game_started(pipe: Pipeline) -> None:
    for address, handle in ((ALICE, "alice"), (BOB, "bob"), (CAROL, "carol")):
        register(pipe, address, handle)
    with pipe.db.transaction() as session:
        ctx = Context(session=session, services=pipe.services)
        event = create_event(ctx, "winter", "voidrider", "round-robin")
        add_players(ctx, event, ["alice", "bob", "carol"])
        start_event(ctx, event)
    with serving(pipe) as site:
        found = entries(site.get("/events/winter.atom").body)
        started = [e for e in found if "started" in e["title"]]
        assert len(started) >= 1 and all(e["link"].startswith(f"{site.base}/games/") for e in started)
        assert site.get("/events/nothing.atom").status == 404
