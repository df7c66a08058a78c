"""End to end over real SMTP: a short Outer Space Chess game played by mail to a Nebula capture."""

from __future__ import annotations

import re
from email.message import EmailMessage

from tests.helpers.harness import Harness, Player, body_of


def start_game(harness: Harness) -> tuple[Player, Player, EmailMessage, EmailMessage, EmailMessage]:
    """alice (white) challenges bob to Outer Space Chess; returns both players and their opening mails."""
    alice, bob = Player(harness, "alice@players.example"), Player(harness, "bob@players.example")
    welcome = alice.register("alice")
    bob.register("bob")
    alice.reply(welcome, "challenge bob outer-space white")
    number = re.search(r"Challenge (\d+) sent to bob", body_of(alice.next_mail()))
    assert number
    challenge = bob.next_mail()
    bob.reply(challenge, f"accept {number.group(1)}")
    opening_a = alice.next_mail(lambda m: "You play" in body_of(m))
    opening_b = bob.next_mail(lambda m: "You play" in body_of(m))
    return alice, bob, welcome, opening_a, opening_b


def test_short_game_to_a_nebula_capture(harness: Harness) -> None:
    alice, bob, welcome, game_a, game_b = start_game(harness)
    assert "You play white" in body_of(game_a) and "Your move" in body_of(game_a)
    assert "You play black" in body_of(game_b)
    assert "Hyperspace (2)" in body_of(game_a) and "2c: White Galaxy, age 0" in body_of(game_a)

    def move(player: Player, other: Player, last: EmailMessage, text: str) -> tuple[EmailMessage, EmailMessage]:
        player.reply(last, text)
        return player.next_mail(), other.next_mail()

    conf, note = move(alice, bob, game_a, "G2c-2b")
    assert "Played 1. G2c-2b" in body_of(conf)
    assert "alice played 1. G2c-2b" in body_of(note) and "2b: White Galaxy, age 1" in body_of(note)
    # Black captures its own Spaceship with the Nebula (own captures are legal, ruling A3).
    conf, note = move(bob, alice, note, "n1c8x1c7")
    assert "bob played 1... N1c8x1c7" in body_of(note)
    # Lower case, no piece letter: the Galaxy warps from 2b to the Black Hole 1d6.
    conf, note = move(alice, bob, note, "2b-1d6")
    assert "alice played 2. G2b-1d6" in body_of(note)
    # The Nebula may not move twice in a row; the refusal says so and shows bob's board.
    bob.reply(note, "N1c7-1c8")
    rejected = body_of(bob.next_mail())
    assert "Not played" in rejected and "may not move twice in a row" in rejected
    assert "Ordinary space (1)" in rejected
    bob.reply(note, "pass")
    assert "may pass only" in body_of(bob.next_mail())
    conf, note = move(bob, alice, note, "C1a8-1a7 #2")
    assert "bob played 2... C1a8-1a7" in body_of(note)
    # The Galaxy steps onto the Nebula: game over.
    conf, note = move(alice, bob, note, "G1d6x1c7")
    final = body_of(note)
    assert "alice played 3. G1d6x1c7" in final
    assert "1-0" in final and "captured Black's Nebula" in final
    assert "1-0" in body_of(conf)

    alice.reply(conf, "history")
    record = body_of(alice.next_mail())
    assert '[Variant "Outer Space Chess"]' in record and '[Result "1-0"]' in record
    assert "1. G2c-2b N1c8x1c7 2. G2b-1d6 C1a8-1a7 3. G1d6x1c7 1-0" in record

    alice.reply(welcome, "help outer-space")
    help_text = body_of(alice.next_mail())
    assert "Outer Space Chess" in help_text and "A17:" in help_text and "S2b-1a3/1b3" in help_text
