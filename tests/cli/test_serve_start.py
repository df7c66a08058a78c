"""`pbem serve` refusing to start, in one line: a SQLite database another server uses, a port already taken."""

from __future__ import annotations

import os
import signal
import smtplib
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.serving import SERVING, free_port

REPO = Path(__file__).resolve().parents[2]


def configure(tmp_path: Path, name: str, database: Path, smtp_port: int) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'[smtp]\nport = {smtp_port}\n[web]\nport = 0\n[database]\nurl = "sqlite:///{database}"\n'
                    f'[outbound]\nmaildir = "{tmp_path / name / "outbox"}"\n', encoding="utf-8")
    return path


def serve(tmp_path: Path, name: str, config: Path) -> subprocess.Popen[bytes]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PBEM_")}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--config", str(config)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def wait_serving(process: subprocess.Popen[bytes], timeout: float = 60) -> int:
    """The SMTP port ``process`` listens on, once it says so."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if found := SERVING.search(line):
            return int(found.group(1))
        assert line or process.poll() is None, f"pbem serve exited: {process.communicate()[1].decode()[-2000:]}"
    raise AssertionError("pbem serve did not start listening")


def refused(process: subprocess.Popen[bytes]) -> str:
    """The one line ``process`` said on its way out, after checking that it ended with status 1, cleanly."""
    _, err = process.communicate(timeout=60)
    text = err.decode()
    assert process.returncode == 1, text
    assert "Traceback" not in text, text
    return text.strip().splitlines()[-1]


def answers(port: int) -> bool:
    with smtplib.SMTP("127.0.0.1", port, timeout=10) as client:
        return client.ehlo()[0] == 250


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(number) for number in (task / "children").read_text().split()]
    return found


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)


def test_a_second_server_on_the_same_sqlite_database_is_refused_and_the_first_goes_on(tmp_path: Path) -> None:
    database = tmp_path / "pbem.sqlite3"
    first = serve(tmp_path, "first", configure(tmp_path, "first", database, 0))
    try:
        port = wait_serving(first)
        # Another configuration (its own port), the same database: it would send the first one's mail again.
        second = serve(tmp_path, "second", configure(tmp_path, "second", database, free_port()))
        said = refused(second)
        assert said == (f"pbem: pbem serve cannot start: another pbem serve (process {first.pid}) is using the "
                        f"database {database}: one server per SQLite database (several instances need PostgreSQL)")
        assert first.poll() is None and answers(port)
        stop(first)
        assert first.returncode == 0
        again = serve(tmp_path, "second", tmp_path / "second.toml")  # the lock went with the first
        try:
            assert answers(wait_serving(again))
        finally:
            stop(again)
        assert again.returncode == 0
    finally:
        stop(first)


def test_a_killed_servers_lock_goes_with_it_and_its_children(tmp_path: Path) -> None:
    database = tmp_path / "pbem.sqlite3"
    config = configure(tmp_path, "server", database, 0)
    first = serve(tmp_path, "server", config)
    try:
        wait_serving(first)
        forked = children(first.pid)
        assert forked  # the mail worker and the picture process, which hold the lock's file too
        first.kill()
        first.communicate(timeout=60)
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in forked):  # they die with it (PDEATHSIG)
            assert time.monotonic() < deadline, "the server's children outlived it"
            time.sleep(0.05)
        after = serve(tmp_path, "server", config)
        try:
            assert answers(wait_serving(after))
        finally:
            stop(after)
    finally:
        if first.poll() is None:
            first.kill()


@pytest.mark.parametrize("listener", ["smtp", "web"])
def test_a_port_already_taken_is_said_in_one_line(tmp_path: Path, listener: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        config = configure(tmp_path, "server", tmp_path / "pbem.sqlite3", port if listener == "smtp" else 0)
        if listener == "web":
            config.write_text(config.read_text().replace("[web]\nport = 0", f"[web]\nport = {port}"))
        said = refused(serve(tmp_path, "server", config))
    what, setting = ("the SMTP listener", "[smtp] port") if listener == "smtp" else ("the web listener", "[web] port")
    assert said.startswith(f"pbem: pbem serve cannot start: {what} cannot listen on 127.0.0.1:{port}: ")
    assert said.endswith(f"(another server on that port? {setting} in the configuration)")
