"""What pbem serve's children share: their names in ps and top."""

from __future__ import annotations

import multiprocessing
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
