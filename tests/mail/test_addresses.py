"""Reply-address tokens: round trips, forgeries, foreign domains."""

from __future__ import annotations

import pytest

import pbem.mail.addresses
from pbem.engine.base import Seat
from pbem.mail.addresses import AddressBook


@pytest.fixture
def book() -> AddressBook:
    return AddressBook("pbem", "pbem.localhost", b"k" * 32)


def test_public_address(book: AddressBook) -> None:
    assert book.public == "pbem@pbem.localhost"
    assert book.verify("PBEM@PBEM.localhost") is not None
    assert book.verify("pbem@pbem.localhost").kind == "public"  # type: ignore[union-attr]


def test_personal_round_trip(book: AddressBook) -> None:
    address = book.verify(book.personal(42))
    assert address is not None and address.kind == "personal" and address.account_id == 42


def test_seat_round_trip_survives_case_folding(book: AddressBook) -> None:
    text = book.seat(17, Seat.BLACK, 4).upper()
    address = book.verify(f"<{text}>")
    assert address is not None
    assert (address.kind, address.game_id, address.seat, address.account_id) == ("seat", 17, Seat.BLACK, 4)


def test_invitation_round_trip(book: AddressBook) -> None:
    address = book.verify(book.invitation(9))
    assert address is not None and address.kind == "invitation" and address.challenge_id == 9


@pytest.mark.parametrize("mangle", [
    lambda a: a.replace("u42.", "u43."),           # another account, same MAC
    lambda a: a[:a.index("@") - 1] + "0" + a[a.index("@"):] if a[a.index("@") - 1] != "0"
    else a[:a.index("@") - 1] + "1" + a[a.index("@"):],  # one MAC digit changed
    lambda a: a.split(".")[0] + "@pbem.localhost",  # MAC dropped
    lambda a: a.replace("pbem.localhost", "evil.example"),
    lambda a: "someone@pbem.localhost",
    lambda a: "pbem+u42@pbem.localhost",
])
def test_forged_addresses_are_refused(book: AddressBook, mangle) -> None:  # type: ignore[no-untyped-def]
    assert book.verify(mangle(book.personal(42))) is None


def test_tokens_depend_on_the_key(book: AddressBook) -> None:
    other = AddressBook("pbem", "pbem.localhost", b"x" * 32)
    assert other.verify(book.personal(1)) is None
    assert book.personal(1) != other.personal(1)


def test_a_remembered_token_does_not_let_a_forged_one_through_and_the_memory_is_bounded(book: AddressBook) -> None:
    good = book.seat(12, Seat.WHITE, 5)
    assert book.verify(good) is not None and book.verify(good) is not None  # the second from memory
    payload, token = good.split("+")[1].split("@")[0].split(".")
    assert book.verify(good.replace(token, token[::-1])) is None
    assert book.verify(good.replace(payload, "g12b5")) is None  # another seat with this seat's token
    for number in range(int(pbem.mail.addresses._TOKENS_KEPT * 1.5)):  # a flood of forged addresses
        assert book.verify(f"pbem+u{number}.{'0' * 20}@pbem.localhost") is None
    assert book._tokens.cache_info().currsize <= pbem.mail.addresses._TOKENS_KEPT  # type: ignore[attr-defined]
    assert book.verify(good) is not None
