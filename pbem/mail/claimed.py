"""A due outbox mail as delivery holds it, ``ClaimedMail``: the columns it is sent by, read without the ORM."""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["ClaimedMail"]


class ClaimedMail(NamedTuple):
    """One pending outbox row, claimed for a delivery call (its fields are the columns of the same names).

    A claim reads these five columns with a Core select: loading whole rows as ORM objects cost a claim of five
    mails 0.3 ms against 0.2 (docs/hot-path.md, tenth session), and delivery writes its marks by id anyway.
    """

    id: int
    recipient: str
    raw: bytes
    pictures: str
    attempts: int
