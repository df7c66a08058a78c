"""What pbem serve's children share: how they start, their names in ps and top, what they leave to the server."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from pbem.children import name_process, named

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="process names are Linux's /proc")


def own_name() -> str:
    return Path("/proc/self/comm").read_text().rstrip("\n")


def remember(path: str, text: str) -> None:
    Path(path).write_text(text)


def test_a_pools_processes_are_named_before_their_first_task(tmp_path: Path) -> None:
    started = tmp_path / "started"
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=named,
                             initargs=("pbem-test", remember, str(started), "yes")) as pool:
        assert pool.submit(own_name).result(timeout=60) == "pbem-test"
    assert started.read_text() == "yes"  # then the initializer it was given ran


def renamed(name: str) -> str:
    name_process(name)
    return own_name()


def test_a_long_name_is_cut_to_the_kernels_fifteen_bytes() -> None:
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        assert pool.submit(renamed, "pbem-a-name-longer-than-fifteen").result(timeout=60) == "pbem-a-name-lon"
    assert own_name() != "pbem-a-name-lon"  # only the child was renamed


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                          cwd=Path(__file__).resolve().parents[1])
    return done.stdout.strip()


def test_a_child_is_forked_while_the_process_has_one_thread_and_comes_from_the_fork_server_after() -> None:
    methods = run_python(
        "import threading; from pbem.children import child_context\n"
        "alone = child_context().get_start_method()\n"
        "stop = threading.Event(); other = threading.Thread(target=stop.wait); other.start()\n"
        "print(alone, child_context().get_start_method()); stop.set(); other.join()")
    assert methods == "fork forkserver"


def test_a_child_writes_no_signal_into_its_parents_event_loop_and_keeps_none_of_its_pipes_ends() -> None:
    """A forked child inherits the descriptor Python writes each signal's number to (asyncio's wake-up), and
    the server's ends of the pipes to it."""
    left = run_python(
        "import multiprocessing, os, signal, socket; from pbem.children import become_child\n"
        "ours, loop_side = socket.socketpair(); ours.setblocking(False)\n"
        "signal.set_wakeup_fd(ours.fileno())\n"
        "servers_end, childs_end = multiprocessing.Pipe()\n"
        "become_child(os.getpid(), 'pbem-test', (servers_end,))\n"
        "print(signal.set_wakeup_fd(-1), signal.getsignal(signal.SIGINT) is signal.SIG_IGN, "
        "open('/proc/self/comm').read().strip(), servers_end.closed, childs_end.closed)")
    assert left == "-1 True pbem-test True False"
