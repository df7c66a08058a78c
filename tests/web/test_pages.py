"""The web pages over a real listener and a database filled through the mail pipeline: content, links, errors,
headers, caching, escaping."""

from __future__ import annotations

from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.models import Account
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register
from tests.helpers.web import serving


@pytest.fixture
def pipe(tmp_path: Path) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path)
    yield p
    p.close()


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "a" and found.get("href"):
            self.links.append(str(found["href"]))
        if tag == "img" and found.get("src"):
            self.images.append(str(found["src"]))
        self._in_title = tag == "title"

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


def parsed(html: str) -> _Links:
    parser = _Links()
    parser.feed(html)
    return parser


def played(pipe: Pipeline) -> tuple[str, str]:
    _, _, alice_seat, bob_seat = begin_game(pipe, "days 3")
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    pipe.send(BOB, bob_seat, "Pe7-e5")
    pipe.send(ALICE, alice_seat, "Ng1-f3")
    pipe.drain_outbox()
    return alice_seat, bob_seat


def test_every_page_links_to_the_others_and_has_a_title(pipe: Pipeline) -> None:
    played(pipe)
    with serving(pipe) as site:
        index = site.get("/")
        assert index.status == 200 and index.headers["Content-Type"].startswith("text/html")
        front = parsed(index.text)
        assert front.title.strip() == "pbem: correspondence space chess"
        assert "/games/1" in front.links and "/players/alice" in front.links and "/ratings/hyperspace" in front.links
        game = parsed(site.get("/games/1").text)
        assert game.title == "Game 1: alice vs bob (Hyperspace Chess)"
        assert {"/games/1/0", "/games/1/1", "/games/1/2", "/games/1/3", "/games/1.pgn", "/games/1.atom",
                "/players/alice", "/players/bob"} <= set(game.links)
        assert game.images == ["/games/1/3.png"]
        for link in game.links + game.images:
            if link.startswith("/"):
                assert site.get(link).status == 200, link
        player = parsed(site.get("/players/bob").text)
        assert player.title == "bob: games and ratings" and "/games/1" in player.links
        ratings = site.get("/ratings/hyperspace")
        assert ratings.status == 200 and parsed(ratings.text).title == "Hyperspace Chess ratings"


def test_stepping_through_the_moves_shows_each_position(pipe: Pipeline) -> None:
    played(pipe)
    with serving(pipe) as site:
        start = site.get("/games/1/0").text
        assert "starting position" in start and 'rel="next" href="/games/1/1"' not in start
        assert '<a href="/games/1/1" rel="next">' in start
        after_one = site.get("/games/1/1").text
        assert "after 1. Pe2-e4" in after_one and "4 . . . . P . . . 4" in after_one
        assert "5 . . . . p . . . 5" not in after_one  # Black's reply is not on this board yet
        latest = site.get("/games/1").text
        assert "after 2. Ng1-f3" in latest and "5 . . . . p . . . 5" in latest
        assert site.get("/games/1/4").status == 404  # not played yet
        assert site.get("/games/1/3.png").body[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_finished_game_shows_its_result_and_record(pipe: Pipeline) -> None:
    alice_seat, _ = played(pipe)
    pipe.send(ALICE, alice_seat, "resign")
    with serving(pipe) as site:
        page = site.get("/games/1").text
        assert "Result: <strong>0-1</strong> (resignation)" in page
        record = site.get("/games/1.pgn")
        assert record.status == 200 and '[Result "0-1"]' in record.text
        assert record.headers["Content-Disposition"] == 'attachment; filename="pbem-game-1.pgn"'
        assert "1. e4 e5 2. Nf3" in record.text
        assert site.get("/games/1.txt").status == 404  # Hyperspace records are PGN
        front = site.get("/").text
        assert "Recent results" in front and "resignation" in front


def test_errors_are_pages_and_only_get_and_head_are_served(pipe: Pipeline) -> None:
    with serving(pipe) as site:
        missing = site.get("/games/99")
        assert missing.status == 404 and "<title>Not found</title>" in missing.text
        assert "Traceback" not in missing.text
        for path in ("/nothing/here", "/games/abc", "/games/1/x.png", "/players/nobody", "/events/none",
                     "/ratings/chess960", "/games/99999999999999999999", "/api/games/7"):
            assert site.get(path).status == 404, path
        assert site.get("/api/games/7").headers["Content-Type"].startswith("application/json")
        for method in ("POST", "PUT", "DELETE", "PATCH"):
            refused = site.get("/", method=method)
            assert refused.status == 405 and refused.headers["Allow"] == "GET, HEAD"
        head = site.get("/", method="HEAD")
        assert head.status == 200 and head.body == b""


def test_security_headers_and_no_cookies_on_every_response(pipe: Pipeline) -> None:
    played(pipe)
    with serving(pipe) as site:
        for path in ("/", "/games/1", "/games/1/1.png", "/games/1.atom", "/api/games/1", "/missing", "/style.css"):
            found = site.get(path)
            assert "default-src 'none'" in found.headers["Content-Security-Policy"], path
            assert "script-src" not in found.headers["Content-Security-Policy"]
            assert found.headers["X-Content-Type-Options"] == "nosniff"
            assert "Set-Cookie" not in found.headers, path
            assert "<script" not in found.body.decode("utf-8", "replace").lower()


def test_a_game_page_changes_when_the_game_does_and_not_before(pipe: Pipeline) -> None:
    _, bob_seat = played(pipe)
    with serving(pipe) as site:
        first = site.get("/games/1")
        again = site.get("/games/1", headers={"If-None-Match": first.headers["ETag"]})
        assert again.status == 304 and again.body == b""
        pipe.send(BOB, bob_seat, "Nb8-c6")
        pipe.drain_outbox()
        changed = site.get("/games/1", headers={"If-None-Match": first.headers["ETag"]})
        assert changed.status == 200 and "after 2... Nb8-c6" in changed.text
        assert changed.headers["ETag"] != first.headers["ETag"]


def test_player_supplied_text_is_escaped_on_every_page(pipe: Pipeline) -> None:
    """A handle, an event name and a note carrying markup and quotes come out as text everywhere."""
    hostile = "<script>alert(1)</script>\"'><img src=x onerror=alert(2)>"
    _, _, alice_seat, bob_seat = begin_game(pipe, "days 3 option public-notes=yes")
    pipe.send(ALICE, alice_seat, f"Pe2-e4\nsay {hostile}")
    pipe.send(BOB, bob_seat, "Pe7-e5")  # the public reads a note once the move it came with is answered
    register(pipe, CAROL, "carol")
    from pbem.app.context import Context
    from pbem.events.entries import add_players, create_event

    with pipe.db.transaction() as session:
        ctx = Context(session=session, services=pipe.services)
        event = create_event(ctx, "cup", "hyperspace", "round-robin")
        add_players(ctx, event, ["alice", "bob", "carol"])
        # Names and handles are checked when made; the pages must not rely on it.
        event.name = "cup" + hostile[:30]
        event_name = event.name
        carol = session.exec(select(Account).where(Account.email == CAROL)).one()
        carol.handle = "x" + hostile[:20]
        session.add(carol)
    pipe.drain_outbox()
    from urllib.parse import quote

    with serving(pipe) as site:
        pages = [site.get(path).text for path in (
            "/", "/games/1", "/games/1/1", "/players/alice", "/players/" + quote("x" + hostile[:20], safe=""),
            "/events/" + quote(event_name, safe=""), "/ratings/hyperspace", "/api/games/1", "/games/1.atom")]
        for text in pages:
            assert "<script>" not in text and "<img src=x" not in text
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in pages[1]  # the note, shown as text
        assert "&lt;script&gt;" in pages[5]  # the event name
        assert "&lt;script&gt;" in pages[4]  # the handle
        assert 'href="/players/x%3Cscript%3E' in pages[5]  # links quote what they carry


def test_mail_carries_the_game_pages_link_when_public_url_is_set(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path, PBEM_WEB_PUBLIC_URL="https://pbem.example.org/")
    try:
        _, _, alice_seat, _ = begin_game(pipe, "days 3")
        pipe.send(ALICE, alice_seat, "Pe2-e4")
        mails = pipe.drain_outbox()
        to_bob = [body_of(m) for r, m in mails if r == BOB]
        assert to_bob and "https://pbem.example.org/games/1" in to_bob[0]
    finally:
        pipe.close()
    (tmp_path / "plain").mkdir()
    plain = Pipeline(tmp_path / "plain")
    try:
        _, _, alice_seat, _ = begin_game(plain, "days 3")
        plain.send(ALICE, alice_seat, "Pe2-e4")
        assert all("http" not in body_of(m) for _, m in plain.drain_outbox())
    finally:
        plain.close()



@pytest.mark.parametrize("public", [False, True])
def test_notes_are_on_the_pages_only_when_public_and_only_once_answered(pipe: Pipeline, public: bool) -> None:
    terms = "days 3 option public-notes=yes" if public else "days 3"
    _, _, alice_seat, bob_seat = begin_game(pipe, terms)
    pipe.send(ALICE, alice_seat, "Pe2-e4\nsay have fun")
    with serving(pipe) as site:
        assert "have fun" not in site.get("/games/1").text  # said with the last move: not answered yet
        pipe.send(BOB, bob_seat, "Pe7-e5")
        page, record = site.get("/games/1").text, site.get("/games/1.pgn").text
        api = site.get("/api/games/1").text
        for text in (page, record, api):
            assert ("have fun" in text) is public
        if public:
            assert "{alice: have fun}" in record
