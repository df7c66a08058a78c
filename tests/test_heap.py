"""The started process's heap is frozen out of the collector's way (pbem.heap)."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from pbem.heap import freeze_startup_heap


def test_freezing_sets_the_existing_objects_apart_and_leaves_new_garbage_collectable() -> None:
    try:
        freeze_startup_heap()
        frozen = gc.get_freeze_count()
        assert frozen > 1000  # this test process's modules at least

        class Node:
            def __init__(self) -> None:
                self.me = self  # a cycle: only the collector frees it

        Node()
        assert gc.collect() >= 1  # what is made after the freeze is still collected
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


_STARTED_SERVER = """
import asyncio, gc, sys
from pbem.config import load_config
from pbem.server import Server

async def main() -> None:
    server = Server(load_config(None))
    await server.start()
    loaded = "pbem.variants.space_chess.rules" in sys.modules and "pbem.variants.tri_d.engine" in sys.modules
    from pbem.variants.space_chess import geometry
    tracked = {id(item) for item in gc.get_objects()}  # the frozen generation is not listed
    print(loaded, id(geometry.ROOK_RAYS) in tracked, gc.get_freeze_count())
    await server.stop()

asyncio.run(main())
"""


def test_a_started_server_has_its_variants_loaded_and_frozen(tmp_path: Path) -> None:
    """Not on the first mail's time, and not where every full collection walks them."""
    environ = {**os.environ, "PBEM_SMTP_PORT": "0", "PBEM_WEB_PORT": "0",
               "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'pbem.sqlite3'}", "PBEM_OUTBOUND_MAILDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", _STARTED_SERVER], env=environ, cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=True)
    loaded, tracked, frozen = done.stdout.split()
    assert loaded == "True" and tracked == "False" and int(frozen) > 100_000
