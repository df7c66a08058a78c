"""The pictures of the mails delivery sends, drawn on a thread of their own in the order they go: ``Drawings``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor

from pbem.mail.claimed import ClaimedMail

__all__ = ["Drawings"]

#: A mail's bytes and its pictures' JSON -> the mail with its pictures drawn in (pbem.mail.later_pictures).
Finish = Callable[[bytes, str], bytes]


class Drawings:
    """Finished mails (their pictures drawn in) by outbox id, as futures.

    One thread draws, waiting on the picture process without the interpreter lock, in the order the mails were
    asked for: the order of the claims, which is the order the relay connections take them. The deliverer
    claims more mails while its connections still have some to send (see Deliverer._keep_claiming), so a
    connection seldom waits for a picture. Drawing is deterministic: a mail drawn early is the mail drawn when it
    is sent.
    """

    def __init__(self, finish: Finish) -> None:
        self._finish = finish
        self._drawer: ThreadPoolExecutor | None = None

    def for_mails(self, items: Iterable[ClaimedMail]) -> dict[int, Future[bytes]]:
        """The finished picture mails among ``items``, by outbox id, asked for in their order."""
        return {item.id: self._draw(item.raw, item.pictures) for item in items if item.pictures}

    @staticmethod
    def done_with(drawn: dict[int, Future[bytes]]) -> None:
        """Their mails are sent, or will be drawn again when they are (a relay down): nothing more to draw."""
        for future in drawn.values():
            future.cancel()

    def close(self) -> None:
        if self._drawer is not None:
            self._drawer.shutdown(wait=False, cancel_futures=True)
            self._drawer = None

    def _draw(self, raw: bytes, pictures: str) -> Future[bytes]:
        if self._drawer is None:
            self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pbem-draw")
        return self._drawer.submit(self._finish, raw, pictures)
