"""`pbem serve` as an operator runs it: a real process with a config file, stopped or killed by signal."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from tests.helpers.harness import Harness

#: The line `pbem serve` prints once it listens, with the port it got.
SERVING = re.compile(rb"pbem serving \S+ on [^\s:]+:(\d+)[ ,]")
#: The same line's web listener, when it runs.
_WEB = re.compile(rb"web pages on http://[^\s:]+:(\d+)/")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Instance:
    """One `pbem serve` process relaying to the harness's sink; restartable on the same port."""

    def __init__(self, tmp_path: Path, name: str, harness: Harness, url: str, games: str = "",
                 extra: str = "", worker_process: bool = False) -> None:
        """``games``: the [games] section's lines; ``extra``: more sections of the config file;
        ``worker_process``: the mail worker in a process of its own."""
        self.name = name
        self.tmp_path = tmp_path
        self.port = 0  # the first start picks a free port itself; restarts keep it
        self.web_port = 0
        self.config = tmp_path / f"{name}.toml"
        self._settings = (f'[server]\nsecret_key = "{harness.environ["PBEM_SERVER_SECRET_KEY"]}"\n'
                          f"worker_process = {str(worker_process).lower()}\n"
                          f'[outbound]\nsmtp_host = "127.0.0.1"\nsmtp_port = {harness.sink_port}\n'
                          f'[database]\nurl = "{url}"\n'
                          f"[games]\n{games or 'reminders = []'}\n"
                          "[web]\nport = 0\n"
                          f"{extra}")
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self, timeout: float = 30.0) -> None:
        # Port 0 on the first start: a port probed free and bound later can be taken in between.
        self.config.write_text(f"[smtp]\nport = {self.port}\n{self._settings}", encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
        log_path = self.tmp_path / f"{self.name}.log"
        starts_before = len(SERVING.findall(log_path.read_bytes())) if log_path.exists() else 0
        with log_path.open("ab") as log:
            self.process = subprocess.Popen([sys.executable, "-m", "pbem", "serve", "--config", str(self.config)],
                                            env=env, cwd=self.tmp_path, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while True:
            assert self.process.poll() is None, f"{self.name} exited; see {self.name}.log"
            started = SERVING.findall(log_path.read_bytes())[starts_before:]
            if started:  # printed once the listener is bound
                self.port = int(started[-1])
                web = _WEB.findall(log_path.read_bytes())
                self.web_port = int(web[-1]) if web else 0
                return
            assert time.monotonic() < deadline, f"{self.name} did not start listening"
            time.sleep(0.05)

    def stop(self) -> int | None:
        """SIGTERM, as an operator stops it; its exit status (None if it was not running)."""
        if self.process is None or self.process.poll() is not None:
            return None
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=30)

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as a power cut or the OOM killer would do."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)
