"""/healthz and /metrics of a running server (listener, worker, delivery and relay sink in-process)."""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.helpers.harness import Harness, Player, body_of


def fetch(port: int, path: str) -> tuple[int, str, dict[str, str]]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as response:
            return response.status, response.read().decode(), dict(response.headers.items())
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(), dict(error.headers.items())


def samples(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of /metrics, parsed with the Prometheus client's own parser."""
    status, text, headers = fetch(port, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def delta(before: dict[tuple[str, tuple[tuple[str, str], ...]], float],
          after: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str) -> float:
    key = (name, tuple(sorted(labels.items())))
    return after.get(key, 0.0) - before.get(key, 0.0)


def test_metrics_count_the_mails_of_a_session(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    try:
        assert harness.server is not None and harness.server.web is not None
        port = harness.server.web.port
        before = samples(port)
        alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
        welcome = alice.register("alice")
        bob.register("bob")
        alice.reply(welcome, "challenge bob hyperspace white")
        alice.next_mail()
        harness.settle(quiet=0.5)
        after = samples(port)
        assert delta(before, after, "pbem_mails_received_total", outcome="stored") == 3
        assert delta(before, after, "pbem_mails_processed_total", status="done") == 3
        assert delta(before, after, "pbem_outbox_sent_total") == harness.total_received() == 4
        assert delta(before, after, "pbem_processing_seconds_count") == 3
        assert after[("pbem_queue_items", (("queue", "outbox"), ("status", "sent")))] == 4
        assert after[("pbem_queue_oldest_seconds", (("queue", "inbox"),))] == 0
        assert after[("pbem_games_active", ())] == 0
        assert after[("pbem_computer_due", ())] == 0
        # A game against the computer at level 5: its turn shows while it thinks, its move counts after.
        carol = Player(harness, "carol@players.example")
        carol.reply(carol.register("carol"), "challenge computer voidrider black level 5")
        carol.next_mail(lambda m: "Results:" in body_of(m))
        waiting = samples(port)
        assert waiting[("pbem_computer_due", ())] == 1
        carol.next_mail(lambda m: "pbem computer (level 5) played" in body_of(m), timeout=30)
        done = samples(port)
        assert done[("pbem_computer_due", ())] == 0
        assert delta(after, done, "pbem_computer_turns_total", kind="game") == 1
        assert delta(after, done, "pbem_computer_search_seconds_count") == 1
    finally:
        harness.close()


def test_healthz_is_ok_then_503_when_the_worker_stops_and_the_queue_goes_stale(tmp_path: Path) -> None:
    # The worker in the server's own process, whose loop a task is (tests/test_worker_process.py stops the
    # worker process of the default set-up).
    harness = Harness(tmp_path, PBEM_WEB_HEALTH_QUEUE_SECONDS="1", PBEM_SERVER_WORKER_PROCESS="false")
    try:
        server = harness.server
        assert server is not None and server.web is not None and server.worker_process is None
        port = server.web.port
        assert fetch(port, "/healthz")[:2] == (200, "ok\n")
        worker = next(task for task in server._tasks if task.get_name() == "pbem-worker")
        harness.loop.call_soon_threadsafe(worker.cancel)
        time.sleep(0.2)
        status, text, _ = fetch(port, "/healthz")
        assert status == 503 and "the worker loop has stopped" in text
        harness.send("carol@players.example", harness.public, "help")  # stored, never processed now
        time.sleep(1.5)
        status, text, _ = fetch(port, "/healthz")
        assert status == 503 and "oldest unprocessed mail waits" in text
    finally:
        harness.close()
