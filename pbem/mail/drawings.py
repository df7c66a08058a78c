"""The pictures of the mails delivery sends, drawn on a thread of their own and some a round ahead: ``Drawings``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import zip_longest

from pbem.store.models import OutboxItem

__all__ = ["Drawings"]

#: A mail's bytes and its pictures' JSON -> the mail with its pictures drawn in (pbem.mail.later_pictures).
Finish = Callable[[bytes, str], bytes]


class Drawings:
    """Finished mails (their pictures drawn in) by outbox id, as futures.

    One thread draws, waiting on the picture process without the interpreter lock. It draws the round
    that is sending first, in the order its lanes send (each lane's first mail, then each one's second,
    ...; the deliverer's connections share one queue, which it passes as a single lane), then the mails the
    next round will claim (``ahead``). Drawn only when a round was claimed, a
    lane's first mails waited 3.2 ms on average for their pictures (p90 9.8 ms), a third of a lane's time
    with a picture mail (docs/hot-path.md). Drawing is deterministic: a mail drawn a round early is the
    mail drawn when it is sent.
    """

    def __init__(self, finish: Finish, most_held: int) -> None:
        """``most_held``: no mail is drawn ahead once this many are held (a finished mail is some 40 KB); a
        round's own mails are always asked for, so at most ``most_held`` and a round's are held."""
        self._finish = finish
        self._most_held = most_held
        self._drawer: ThreadPoolExecutor | None = None
        self._held: dict[int, Future[bytes]] = {}  # by outbox id, in the order they were asked for

    def for_round(self, lanes: Sequence[Sequence[OutboxItem]]) -> dict[int, Future[bytes]]:
        """The finished mails of a round's picture mails, by outbox id: those drawn ahead, the rest asked for now.

        Mails drawn ahead that this round did not claim, though later mails came due before them (a mail
        retried later, a lease of another instance), are forgotten: the round that claims them draws them.
        """
        claimed = [item for depth in zip_longest(*lanes) for item in depth if item is not None]
        ids = {item.id for item in claimed}
        last = max((item.id for item in claimed if item.id is not None), default=0)
        for number in [number for number in self._held if number not in ids and number < last]:
            self._held.pop(number).cancel()
        round_: dict[int, Future[bytes]] = {}
        for item in claimed:
            if item.pictures and item.id is not None:
                round_[item.id] = self._held.get(item.id) or self._draw(item.id, item.raw, item.pictures)
        return round_

    def ahead(self, rows: Iterable[tuple[int, bytes, str]]) -> None:
        """Draw these mails (outbox id, bytes, pictures) after the round's, for the rounds to come."""
        for number, raw, pictures in rows:
            if len(self._held) >= self._most_held:
                return
            if pictures and number not in self._held:
                self._draw(number, raw, pictures)

    def done_with(self, round_: dict[int, Future[bytes]]) -> None:
        """A round has ended: its mails are sent, or will be drawn again when they are (a round cut short)."""
        for number, future in round_.items():
            future.cancel()
            self._held.pop(number, None)

    def close(self) -> None:
        if self._drawer is not None:
            self._drawer.shutdown(wait=False, cancel_futures=True)
            self._drawer = None
        self._held.clear()

    def _draw(self, number: int, raw: bytes, pictures: str) -> Future[bytes]:
        if self._drawer is None:
            self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-draw")
        future = self._held[number] = self._drawer.submit(self._finish, raw, pictures)
        return future
