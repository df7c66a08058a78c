"""The JSON API over a real listener: every response validates against the served OpenAPI description, ETags
answer 304, the documents say what the pages say."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openapi_core import OpenAPI
from openapi_core.testing import MockRequest, MockResponse
from openapi_core.validation.exceptions import ValidationError

from pbem.app.context import Context
from pbem.events.entries import add_players, create_event
from pbem.events.running import start_event
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register
from tests.helpers.web import WebSite, serving


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path)
    yield p
    p.close()


def seeded(pipe: Pipeline) -> None:
    """A finished rated game, a running one, an event with its games, an open seek."""
    alice, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    pipe.send(BOB, bob_seat, "Pe7-e5")
    pipe.send(ALICE, alice_seat, "resign")
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "challenge alice voidrider white days 2")
    pipe.send(ALICE, alice, "accept 2")
    pipe.send(BOB, bob, "seek tri-d black days 4")
    with pipe.db.transaction() as session:
        ctx = Context(session=session, services=pipe.services)
        event = create_event(ctx, "autumn-cup", "space-chess", "round-robin")
        add_players(ctx, event, ["alice", "bob", "carol"])
        start_event(ctx, event)
        from pbem.app.secrecy import queue_outgoing

        queue_outgoing(ctx)
    pipe.drain_outbox()


def validated(site: WebSite, spec: OpenAPI, path: str, pattern: str, status: int = 200) -> Any:
    found = site.get(path)
    assert found.status == status, (path, found.text)
    request = MockRequest(site.base, "get", path, path_pattern=pattern)
    spec.validate_response(request, MockResponse(found.body, status_code=found.status,
                                                 headers=found.headers, content_type="application/json"))
    return json.loads(found.body)


def test_every_api_response_validates_against_the_served_description(pipe: Pipeline) -> None:
    seeded(pipe)
    with serving(pipe) as site:
        description = site.get("/api/openapi.json")
        assert description.status == 200
        spec = OpenAPI.from_dict(json.loads(description.body))  # also checks the description itself
        games = validated(site, spec, "/api/games", "/api/games")
        assert {g["id"] for g in games["finished"]} == {1} and games["seeks"][0]["variant"] == "tri-d"
        listed = {g["id"] for g in games["active"]}
        assert 2 in listed and len(listed) >= 4  # the voidrider game and the event's games
        for game_id in sorted(listed | {1}):
            game = validated(site, spec, f"/api/games/{game_id}", "/api/games/{game_id}")
            assert game["id"] == game_id and game["position"]["diagram"]
            for ply in range(game["visible_ply"] + 1):
                position = validated(site, spec, f"/api/games/{game_id}/{ply}", "/api/games/{game_id}/{ply}")
                assert position["ply"] == ply
        finished = validated(site, spec, "/api/games/1", "/api/games/{game_id}")
        assert finished["result"] == "0-1" and [m["record"] for m in finished["moves"]] == ["Pe2-e4", "Pe7-e5"]
        player = validated(site, spec, "/api/players/alice", "/api/players/{handle}")
        assert player["handle"] == "alice" and "hyperspace" in player["ratings"]
        assert "@" not in json.dumps(player)  # never an address
        event = validated(site, spec, "/api/events/autumn-cup", "/api/events/{name}")
        assert sorted(event["players"]) == ["alice", "bob", "carol"] and event["games"]
        ratings = validated(site, spec, "/api/ratings/hyperspace", "/api/ratings/{variant}")
        assert [row["handle"] for row in ratings["ratings"]] == ["bob", "alice"]
        for path, pattern in (("/api/games/99", "/api/games/{game_id}"),
                              ("/api/players/nobody", "/api/players/{handle}"),
                              ("/api/events/none", "/api/events/{name}"),
                              ("/api/ratings/chess960", "/api/ratings/{variant}"),
                              ("/api/games/1/3", "/api/games/{game_id}/{ply}")):
            assert "error" in validated(site, spec, path, pattern, status=404)


def test_a_description_that_does_not_fit_is_caught(pipe: Pipeline) -> None:
    """The validation above can fail: a response checked against a schema it does not meet raises."""
    seeded(pipe)
    with serving(pipe) as site:
        document = json.loads(site.get("/api/openapi.json").body)
        document["components"]["schemas"]["GameSummary"]["properties"]["id"] = {"type": "string"}
        spec = OpenAPI.from_dict(document)
        with pytest.raises(ValidationError):
            validated(site, spec, "/api/games/1", "/api/games/{game_id}")


def test_an_unchanged_game_is_answered_304_and_a_move_changes_its_etag(pipe: Pipeline) -> None:
    _, _, alice_seat, _ = begin_game(pipe, "days 3")
    pipe.drain_outbox()
    with serving(pipe) as site:
        first = site.get("/api/games/1")
        etag = first.headers["ETag"]
        again = site.get("/api/games/1", headers={"If-None-Match": etag})
        assert again.status == 304 and again.body == b"" and again.headers["ETag"] == etag
        pipe.send(ALICE, alice_seat, "Pe2-e4")
        moved = site.get("/api/games/1", headers={"If-None-Match": etag})
        assert moved.status == 200 and moved.headers["ETag"] != etag
        assert json.loads(moved.body)["moves"][0]["record"] == "Pe2-e4"
