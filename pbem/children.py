"""What pbem serve's child processes share: the fork server they start from, dying with the server, their names.

Kept free of heavy imports: the fork server imports the modules of the children the server will
start (and nothing else), and a picture process needs only the pictures.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
from collections.abc import Callable
from multiprocessing.context import ForkServerContext

__all__ = ["die_with", "forkserver", "name_process", "named", "preload"]

_PR_SET_PDEATHSIG = 1
_PR_SET_NAME = 15
#: The kernel keeps a process's name in 16 bytes, the last a NUL.
_NAME_BYTES = 15
#: The modules the fork server imports once, for the children this server starts (see preload).
_PRELOAD: list[str] = []


def preload(module: str) -> None:
    """Have the fork server import ``module`` (a child's): call before the first child starts."""
    if module not in _PRELOAD:
        _PRELOAD.append(module)


def forkserver() -> ForkServerContext:
    """The context pbem serve's children start from: forked from a fork server that has imported their
    modules once, not spawned (a child starts in milliseconds instead of the second an import takes), and not
    forked from the server, which has threads whose locks a fork would copy. Only the modules of the children
    this server starts are imported there: with the mail worker a thread, the fork server and the picture
    process hold the pictures' modules alone (27 MB PSS at start with multiprocessing's resource tracker,
    against 107 MB for the server's own process)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(_PRELOAD))
    return context


def die_with(server: int) -> None:
    """Be killed with the server: a SIGKILLed server must not leave its children (the mail worker, the picture
    process) working beside the next one's (harmless, every batch is a transaction, but an operator expects
    one service). Our parent is the fork server, which exits when the server does; a closed pipe ends the
    loop too."""
    with contextlib.suppress(Exception):  # Linux only
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    try:
        os.kill(server, 0)
    except ProcessLookupError:  # the server died before we started
        os._exit(0)


def name_process(name: str) -> None:
    """Show this process as ``name`` (its first 15 bytes) where ps, top and /proc/PID/comm name processes, in
    place of "python": an operator tells the mail worker from the picture process at a glance. Linux only;
    elsewhere nothing changes."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_NAME, name.encode("ascii", "replace")[:_NAME_BYTES])


def named(name: str, then: Callable[..., object], *args: object) -> None:
    """A process pool's initializer: :func:`name_process`, then ``then(*args)``."""
    name_process(name)
    then(*args)
