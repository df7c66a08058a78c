"""Reply addresses that authenticate their owner: HMAC tokens in the local part.

An address looks like ``pbem+g17b4.3f9c...@domain``: the public local part,
a payload naming what the address speaks for, and a MAC over the payload
under the server key. Payloads: ``u4`` (account 4, personal), ``g17b4``
(game 17, black seat, account 4), ``i9`` (invitation of challenge 9), ``c31``
(confirmation of held inbound mail 31). The
MAC is lower-case hex, so MTAs that fold the local part's case do no harm.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from pbem.engine.base import Seat

__all__ = ["Address", "AddressBook", "AddressKind", "redacted"]

_MAC_HEX_CHARS = 20  # 80 bits: unguessable, and short enough for a readable address
_TOKENS_KEPT = 16384  # some 3 MB at most: the addresses of thousands of active seats
_PAYLOAD = re.compile(
    r"^(?:u(?P<user>\d+)|g(?P<game>\d+)(?P<seat>[wb])(?P<player>\d+)|i(?P<invite>\d+)|c(?P<held>\d+))$")


class AddressKind(StrEnum):
    """What kind of thing an address speaks for.

    A StrEnum whose values are the strings used before it existed, so a kind still equals
    (and formats as) its plain string wherever one is stored or compared.
    """

    PUBLIC = "public"  # the server's public address: anybody, no account implied
    PERSONAL = "personal"  # u<account>
    SEAT = "seat"  # g<game><seat><account>
    INVITATION = "invitation"  # i<challenge>: one use, expires with the challenge
    CONFIRM = "confirm"  # c<inbox>: one use, confirms one held mail


@dataclass(frozen=True, slots=True)
class Address:
    """What a verified address speaks for, and the ids its kind carries."""

    kind: AddressKind
    account_id: int | None = None
    game_id: int | None = None
    seat: Seat | None = None
    challenge_id: int | None = None
    inbox_id: int | None = None  # confirm: the held mail this address confirms


PUBLIC = Address(kind=AddressKind.PUBLIC)


class AddressBook:
    """Makes and verifies the server's addresses for one domain and key."""

    def __init__(self, local_part: str, domain: str, key: bytes) -> None:
        self.local_part = local_part.lower()
        self.domain = domain.lower()
        self._key = key
        # The tokens of the addresses in use, remembered: a player's seat address comes back with every move and
        # is verified at RCPT and again at DATA, and its HMAC was a fifteenth of the listener's CPU. Bounded, so
        # forged addresses only push out older tokens.
        self._tokens: Callable[[str], str] = lru_cache(maxsize=_TOKENS_KEPT)(self._token)

    @property
    def public(self) -> str:
        return f"{self.local_part}@{self.domain}"

    def _token(self, payload: str) -> str:
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()[:_MAC_HEX_CHARS]

    def _mac(self, payload: str) -> str:
        return self._tokens(payload)

    def _address(self, payload: str) -> str:
        return f"{self.local_part}+{payload}.{self._mac(payload)}@{self.domain}"

    def personal(self, account_id: int) -> str:
        return self._address(f"u{account_id}")

    def seat(self, game_id: int, seat: Seat, account_id: int) -> str:
        return self._address(f"g{game_id}{seat.value[0]}{account_id}")

    def invitation(self, challenge_id: int) -> str:
        return self._address(f"i{challenge_id}")

    def confirm(self, inbox_id: int) -> str:
        return self._address(f"c{inbox_id}")

    def verify(self, address: str) -> Address | None:
        """What ``address`` speaks for, or None when it is not ours or its token is forged."""
        local, at, domain = address.strip().strip("<>").lower().rpartition("@")
        if not at or domain != self.domain:
            return None
        if local == self.local_part:
            return PUBLIC
        prefix, plus, rest = local.partition("+")
        if prefix != self.local_part or not plus:
            return None
        payload, dot, mac = rest.rpartition(".")
        if not dot or not hmac.compare_digest(mac.encode(), self._mac(payload).encode()):
            return None
        match = _PAYLOAD.match(payload)
        if match is None:
            return None
        if match["user"]:
            return Address(kind=AddressKind.PERSONAL, account_id=int(match["user"]))
        if match["game"]:
            seat = Seat.WHITE if match["seat"] == "w" else Seat.BLACK
            return Address(kind=AddressKind.SEAT, account_id=int(match["player"]), game_id=int(match["game"]),
                           seat=seat)
        if match["invite"]:
            return Address(kind=AddressKind.INVITATION, challenge_id=int(match["invite"]))
        return Address(kind=AddressKind.CONFIRM, inbox_id=int(match["held"]))


def redacted(address: str) -> str:
    """``address`` fit for a log line: a token after '+' (which would let a reader act as its owner) and
    anything past 80 characters replaced; the domain and the public local part stay."""
    local, at, domain = address.strip().strip("<>").rpartition("@")
    if not at:
        return f"{address[:40]}…" if len(address) > 40 else address
    prefix, plus, _ = local.partition("+")
    shown = f"{prefix[:40]}+…" if plus else local[:40]
    return f"{shown}@{domain[:40]}"

