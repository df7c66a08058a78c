"""The mails claimed for delivery and not yet taken, by recipient, shared by the relay connections: ``RecipientQueue``.

The deliverer keeps adding claimed mails while its connections send (no rounds: a connection that is done takes
the next recipient's mails at once). One recipient's mails go on one connection, in the order they were added:
a recipient a connection is sending to is not offered again until it is done; mails added for it meanwhile wait
and are offered then.
"""

from __future__ import annotations

import threading
from collections import deque

from pbem.mail.claimed import ClaimedMail

__all__ = ["RecipientQueue"]


class RecipientQueue:
    """Recipients waiting for a connection (in the order of their first waiting mail), each with its mails.

    Thread-safe. ``take`` blocks until a recipient waits, or the queue is closed (no more mails will come) and
    nobody waits, or it is stopped (the relay is down: what was not taken is handed back by ``stop``). The
    connections and the feeder wait on conditions of their own, so that a connection taking a recipient wakes
    the feeder only when the queue runs short (``refill_below``), not at every take.
    """

    def __init__(self, refill_below: int = 1) -> None:
        self._refill_below = refill_below
        lock = threading.Lock()
        self._offered = threading.Condition(lock)  # the connections wait here for a recipient
        self._short = threading.Condition(lock)  # the feeder waits here for room
        self._waiting: deque[str] = deque()  # recipients no connection has, with mails to send
        self._mails: dict[str, list[ClaimedMail]] = {}  # by recipient: the mails not taken yet
        self._taken: set[str] = set()  # recipients a connection is sending to
        self._closed = False
        self._stopped = False

    @staticmethod
    def recipient_of(item: ClaimedMail) -> str:
        return item.recipient.lower()

    def add(self, items: list[ClaimedMail]) -> bool:
        """Queue ``items`` (oldest first) behind what each recipient already has waiting; False (nothing queued)
        once the queue is stopped."""
        with self._offered:
            if self._stopped:
                return False
            for item in items:
                recipient = self.recipient_of(item)
                if recipient not in self._mails and recipient not in self._taken:
                    self._waiting.append(recipient)
                    self._offered.notify()
                self._mails.setdefault(recipient, []).append(item)
            return True

    def take(self) -> list[ClaimedMail] | None:
        """The next waiting recipient's mails, now this caller's until ``done``; None when there is nothing more
        to take (closed and nobody waiting, or stopped)."""
        with self._offered:
            while not self._waiting and not self._closed and not self._stopped:
                self._offered.wait()
            if self._stopped or not self._waiting:
                return None
            recipient = self._waiting.popleft()
            self._taken.add(recipient)
            if len(self._waiting) < self._refill_below:
                self._short.notify()
            return self._mails.pop(recipient)

    def done(self, mails: list[ClaimedMail]) -> None:
        """The connection that took ``mails`` has finished with them: their recipient's later mails may be taken."""
        if not mails:
            return
        with self._offered:
            recipient = self.recipient_of(mails[0])
            self._taken.discard(recipient)
            if recipient in self._mails and not self._stopped:
                self._waiting.append(recipient)
                self._offered.notify()

    def close(self) -> None:
        """No more mails will be added: ``take`` answers None once nobody waits."""
        with self._offered:
            self._closed = True
            self._offered.notify_all()

    def stop(self) -> list[ClaimedMail]:
        """Take nothing more (the relay is down); the mails not taken, handed back to be retried later."""
        with self._offered:
            self._stopped = True
            left = [item for mails in self._mails.values() for item in mails]
            self._mails.clear()
            self._waiting.clear()
            self._offered.notify_all()
            self._short.notify_all()
            return left

    @property
    def stopped(self) -> bool:
        return self._stopped

    def idle(self) -> bool:
        """Nothing waits and no connection is sending."""
        with self._offered:
            return not self._mails and not self._taken

    def wait_for_room(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until fewer than ``refill_below`` recipients wait (or the queue stopped);
        whether there is room now."""
        with self._short:
            self._short.wait_for(lambda: len(self._waiting) < self._refill_below or self._stopped, timeout)
            return len(self._waiting) < self._refill_below and not self._stopped
