"""`pbem serve` as an operator runs it serves the web pages beside SMTP; SIGTERM stops both listeners cleanly."""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.harness import Harness, Player
from tests.helpers.serving import Instance

pytestmark = pytest.mark.slow


def refused(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(2)
        return probe.connect_ex(("127.0.0.1", port)) != 0


def test_serve_answers_web_requests_beside_smtp_and_stops_both_on_sigterm(tmp_path: Path) -> None:
    harness = Harness(tmp_path, serve=False)
    server = Instance(tmp_path, "serve", harness, harness.environ["PBEM_DATABASE_URL"])
    harness.port = server.port
    try:
        assert server.web_port and server.web_port != server.port
        alice = Player(harness, "alice@players.example")
        alice.register("alice")  # by mail, through the SMTP listener
        with urllib.request.urlopen(f"http://127.0.0.1:{server.web_port}/players/alice", timeout=10) as page:
            assert page.status == 200 and b"<h1>alice</h1>" in page.read()
        assert server.stop() == 0
        assert refused(server.port) and refused(server.web_port)
    finally:
        server.kill()
        harness.close()
