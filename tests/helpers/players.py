"""Players as the tests play them: registered by mail, challenging and accepting, through a pipeline or over SMTP."""

from __future__ import annotations

import re
from email.message import EmailMessage

from tests.helpers.harness import Harness, Player, body_of, open_game
from tests.helpers.pipeline import Pipeline

__all__ = ["ALICE", "BOB", "CAROL", "FIRST_MOVES", "begin_game", "names_square", "only_mail", "register", "start_game",
           "started_game"]

#: A first move for White in each variant (the end-to-end mail tests play it).
FIRST_MOVES = {
    "outer-space": "C1a1-1a2",
    "tri-d": "Pd2(2)-d4(2)",
    "space-chess": "Pd2(1)-d4(2)",
    "hyperspace": "Pe2-e4",
    "voidrider": "Pd3-d4",
}

ALICE, BOB, CAROL = "alice@players.example", "bob@players.example", "carol@players.example"


def names_square(text: str, square: str) -> bool:
    """True if the text names the square as a word (hex digests may contain any pair by chance)."""
    return re.search(rf"(?<![0-9a-f]){square}(?![0-9a-f])", text) is not None


def only_mail(pipe: Pipeline, to: str) -> EmailMessage:
    mails = [m for r, m in pipe.drain_outbox() if r == to]
    assert len(mails) == 1, [body_of(m) for m in mails]
    return mails[0]


def register(pipe: Pipeline, address: str, handle: str) -> str:
    """Registers and returns the personal reply address."""
    pipe.send(address, pipe.addresses.public, f"register {handle}")
    return str(only_mail(pipe, address)["Reply-To"])


def begin_game(pipe: Pipeline, terms: str = "", variant: str = "hyperspace") -> tuple[str, str, str, str]:
    """alice (white) challenges bob to ``variant`` (Hyperspace Chess) on ``terms``, bob accepts.

    Returns alice's and bob's personal addresses, then their seat addresses.
    """
    alice = register(pipe, ALICE, "alice")
    bob = register(pipe, BOB, "bob")
    pipe.send(ALICE, alice, f"challenge bob {variant} white {terms}".strip())
    number = re.search(r"accept (\d+)", next(body_of(m) for r, m in pipe.drain_outbox() if r == BOB))
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}")
    mails = pipe.drain_outbox()
    seats = {r: str(m["Reply-To"]) for r, m in mails if "has started" in body_of(m) and "Game" in body_of(m)}
    return alice, bob, seats[ALICE], seats[BOB]


def started_game(pipe: Pipeline) -> tuple[str, str]:
    """alice (white) vs bob in Hyperspace Chess; returns both seat addresses."""
    return begin_game(pipe)[2:]


def start_game(harness: Harness) -> tuple[Player, Player, EmailMessage, EmailMessage]:
    """Over SMTP: alice (white) challenges bob to hyperspace; returns both players and their opening game mails."""
    return open_game(harness, "hyperspace", "white")
