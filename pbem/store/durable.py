"""Putting a folder's entries on the disk: a file's name is durable only once its folder is synced."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["sync_folder"]


def sync_folder(folder: Path) -> None:
    """fsync ``folder``: the names created, linked or renamed in it are on the disk when this returns."""
    descriptor = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
