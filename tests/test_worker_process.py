"""The mail worker in a process of its own: it applies the mail, reports its counts, is restarted when it
dies, goes with the server, and a stuck one shows at /healthz."""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from pbem.config import load_config
from pbem.worker_process import uses_worker_process
from tests.helpers.harness import Harness, Player, body_of, open_game
from tests.helpers.serving import Instance
from tests.web.test_health import delta, fetch, samples


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def serving(tmp_path: Path, **settings: str) -> Harness:
    """A harness whose server keeps its mail worker in a process of its own."""
    return Harness(tmp_path, PBEM_SERVER_WORKER_PROCESS="true", **settings)


def worker_pid(harness: Harness) -> int:
    assert harness.server is not None and harness.server.worker_process is not None
    pid = harness.server.worker_process.pid
    assert pid is not None
    return pid


def wait_until(condition: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_worker_is_a_process_of_its_own_and_its_counts_reach_metrics(tmp_path: Path) -> None:
    harness = serving(tmp_path)
    try:
        assert harness.server is not None and harness.server.web is not None
        pid = worker_pid(harness)
        assert pid != os.getpid() and alive(pid)
        port = harness.server.web.port
        before = samples(port)
        alice, bob, opening_a, _ = open_game(harness, "hyperspace")
        alice.reply(opening_a, "e2e4")
        assert "alice played 1. Pe2-e4" in body_of(bob.next_mail(lambda m: "alice played" in body_of(m)))
        harness.settle(quiet=0.5)
        after = samples(port)
        # register x2, challenge, accept, the move: each applied in the worker process, counted here.
        assert delta(before, after, "pbem_mails_processed_total", status="done") == 5
        assert delta(before, after, "pbem_processing_seconds_count") == 5
        assert delta(before, after, "pbem_moves_applied_total", variant="hyperspace") == 1
        assert delta(before, after, "pbem_mails_received_total", outcome="stored") == 5  # the server's own
        assert worker_pid(harness) == pid  # one worker did it all
        assert Path(f"/proc/{pid}/comm").read_text() == "pbem-worker\n"  # what ps and top show
    finally:
        harness.close()


def test_a_killed_worker_is_replaced_and_no_mail_is_lost(tmp_path: Path) -> None:
    harness = serving(tmp_path)
    try:
        assert harness.server is not None and harness.server.web is not None
        port = harness.server.web.port
        alice = Player(harness, "alice@players.example")
        alice.register("alice")
        harness.settle(quiet=0.3)
        counted = samples(port)[("pbem_mails_processed_total", (("status", "done"),))]
        first = worker_pid(harness)
        os.kill(first, signal.SIGKILL)
        harness.send("alice@players.example", harness.public, "help", subject="while no worker runs")
        wait_until(lambda: worker_pid(harness) != first)
        assert alice.next_mail()["Subject"] == "Re: while no worker runs"
        harness.settle(quiet=0.3)
        after = samples(port)
        # The dead worker's counts are kept: the counter goes on from where it was, never backwards.
        assert after[("pbem_mails_processed_total", (("status", "done"),))] == counted + 1
        assert fetch(port, "/healthz")[:2] == (200, "ok\n")
    finally:
        harness.close()


def test_a_stuck_worker_shows_at_healthz_and_recovers(tmp_path: Path) -> None:
    harness = serving(tmp_path, PBEM_WEB_HEALTH_QUEUE_SECONDS="1")
    try:
        assert harness.server is not None and harness.server.web is not None
        port = harness.server.web.port
        pid = worker_pid(harness)
        assert fetch(port, "/healthz")[:2] == (200, "ok\n")
        os.kill(pid, signal.SIGSTOP)
        try:
            harness.send("carol@players.example", harness.public, "help", subject="while stopped")
            time.sleep(1.5)
            status, text, _ = fetch(port, "/healthz")
            assert status == 503 and "oldest unprocessed mail waits" in text
        finally:
            os.kill(pid, signal.SIGCONT)
        assert Player(harness, "carol@players.example").next_mail()["Subject"] == "Re: while stopped"
        wait_until(lambda: fetch(port, "/healthz")[0] == 200)
        assert worker_pid(harness) == pid
    finally:
        harness.close()


def test_the_worker_stops_with_the_server_and_nothing_waits(tmp_path: Path) -> None:
    harness = serving(tmp_path)
    pid = worker_pid(harness)
    alice = Player(harness, "alice@players.example")
    alice.register("alice")
    harness.stop_server()
    assert not alive(pid)
    harness.close()


def test_the_worker_goes_when_the_server_is_killed(tmp_path: Path) -> None:
    """`pbem serve` SIGKILLed (the crash tests' case): its worker process does not live on beside the next."""
    harness = Harness(tmp_path, serve=False)
    instance = Instance(tmp_path, "solo", harness, f"sqlite:///{tmp_path / 'solo.sqlite3'}", worker_process=True)
    try:
        log = tmp_path / "solo.log"
        wait_until(lambda: started(log, "mail worker process"))
        [(pid, _)] = started(log, "mail worker process")
        assert alive(pid)
        instance.kill()
        wait_until(lambda: not alive(pid), timeout=10)
    finally:
        instance.stop()
        harness.close()


@pytest.mark.parametrize(("url", "own_process"), [
    ("sqlite:///var/pbem.sqlite3", True),
    ("sqlite://", False),
    ("sqlite:///:memory:", False),
    ("sqlite:///file:pbem?mode=memory&uri=true", False),
    ("postgresql+psycopg://127.0.0.1/test", True),
])
def test_a_database_only_this_process_sees_keeps_the_worker_in_it(url: str, own_process: bool) -> None:
    config = load_config(None, environ={"PBEM_DATABASE_URL": url, "PBEM_SERVER_WORKER_PROCESS": "true"})
    assert uses_worker_process(config) is own_process
    default = load_config(None, environ={"PBEM_DATABASE_URL": url})
    assert uses_worker_process(default) is own_process  # the default: a process of its own where it can be


def parent_of(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text()
    found = re.search(r"^PPid:\s+(\d+)$", status, re.MULTILINE)
    assert found, status
    return int(found.group(1))


def started(log: Path, what: str) -> list[tuple[int, str]]:
    """The (pid, start method) of each ``what`` process the server's log says it started."""
    return [(int(pid), method.decode()) for pid, method in
            re.findall(rb"%s (\d+) started \((\w+)\)" % what.encode(), log.read_bytes())]


def test_pbem_serve_forks_its_children_and_starts_a_dead_workers_successor_from_the_fork_server(
        tmp_path: Path) -> None:
    """Forked before the server's first thread, the worker and picture process share its loaded code (the memory
    figures are in the README); a worker started again later, when the server has threads, comes from the fork
    server, and applies the mail as the first did."""
    harness = Harness(tmp_path, serve=False)
    instance = Instance(tmp_path, "solo", harness, f"sqlite:///{tmp_path / 'solo.sqlite3'}", worker_process=True)
    harness.port = instance.port
    log = tmp_path / "solo.log"
    try:
        assert instance.process is not None
        server = instance.process.pid
        wait_until(lambda: started(log, "mail worker process") and started(log, "picture process"))
        [(worker, worker_method)] = started(log, "mail worker process")
        [(pictures, pictures_method)] = started(log, "picture process")
        assert (worker_method, pictures_method) == ("fork", "fork")
        assert parent_of(worker) == server and parent_of(pictures) == server
        assert Path(f"/proc/{worker}/comm").read_text() == "pbem-worker\n"
        os.kill(worker, signal.SIGKILL)
        wait_until(lambda: len(started(log, "mail worker process")) == 2)
        successor, method = started(log, "mail worker process")[1]
        assert method == "forkserver" and parent_of(successor) != server and alive(successor)
        harness.send("alice@players.example", harness.public, "help", subject="after the first worker died")
        assert Player(harness, "alice@players.example").next_mail()["Subject"] == "Re: after the first worker died"
    finally:
        instance.stop()
        harness.close()
