"""What pbem serve's child processes share: how they start, dying with the server, their names.

Kept free of heavy imports: the fork server imports the modules of the children the server will
start (and nothing else), and a picture process needs only the pictures.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable
from multiprocessing.connection import Connection
from multiprocessing.context import ForkContext, ForkServerContext

__all__ = ["become_child", "child_context", "die_with", "forkserver", "name_process", "named", "preload"]

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
    """The context a child starts from once the server has threads (see :func:`child_context`): forked from a
    fork server that has imported the children's modules once, not spawned (a child starts in milliseconds
    instead of the second an import takes), and not forked from the server, whose other threads' locks a fork
    would copy. The fork server starts with the first child that needs it, which is none on most days."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(_PRELOAD))
    return context


def child_context() -> ForkContext | ForkServerContext:
    """How the next child starts: forked from this process while it has a single thread, else from the fork
    server (:func:`forkserver`).

    pbem serve starts its mail worker and picture process before its first thread. Forked then, a child shares
    the server's imported code, loaded variants and frozen heap until one of them writes a page: a forked worker
    had 37 MB of its own after 300 moves, the rest shared, where the fork server, which imports everything
    again, and a worker started from it held 92 MB before the first mail (docs/hot-path.md). A child started
    later (one that died) comes from the fork server: a fork copies the locks the other threads hold then.
    """
    if threading.active_count() == 1:
        fork: ForkContext = multiprocessing.get_context("fork")
        return fork
    return forkserver()


def become_child(server: int, name: str, servers_ends: Iterable[Connection] = ()) -> None:
    """What each of pbem serve's children does first: die with the server, take its name, leave Ctrl-C to the
    server (it reaches the whole process group; the server stops its children itself), and write no signal
    into the server's event loop (a forked child inherits the loop's wake-up descriptor).

    ``servers_ends``: the server's ends of the pipes to this child, which a forked child holds copies of. Closed
    here, so that the child reads the end of its own pipe when the server closes its end or dies.
    """
    die_with(server)
    name_process(name)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.set_wakeup_fd(-1)
    for end in servers_ends:
        end.close()


def die_with(server: int) -> None:
    """Be killed with the server: a SIGKILLed server must not leave its children (the mail worker, the picture
    process) working beside the next one's (harmless, every batch is a transaction, but an operator expects
    one service). Our parent is the server (forked at its start) or the fork server, which exits when the server
    does; a closed pipe ends the loop too."""
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
