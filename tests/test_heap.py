"""The started process's heap is frozen out of the collector's way (pbem.heap)."""

from __future__ import annotations

import gc

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
