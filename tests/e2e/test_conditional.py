"""Conditional moves over real SMTP: registered, played for the player when expected, cleared otherwise."""

from __future__ import annotations

from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.players import start_game


def test_conditional_lines_are_played_and_cleared(harness: Harness) -> None:
    alice, bob, game_a, _game_b = start_game(harness)
    alice.reply(game_a, "if e5 then Nf3")
    assert "conditional moves are for your opponent's turn" in body_of(alice.next_mail())
    alice.reply(game_a, "e4")
    alice.next_mail()
    to_bob = bob.next_mail()

    alice.reply(game_a, "if e5 then Nf3 then Nc6 then Bb5")
    registered = body_of(alice.next_mail())
    assert "Registered: if Pe7-e5 then Ng1-f3 then Nb8-c6 then Bf1-b5" in registered
    alice.reply(game_a, "if d5 then Bf1@2 {c4}")
    assert "carries a secret" in body_of(alice.next_mail())
    alice.reply(game_a, "if e5 then Ke3")
    assert "move 2 of the line" in body_of(alice.next_mail())

    bob.reply(to_bob, "e5")
    assert "Played 1... Pe7-e5" in body_of(bob.next_mail())
    auto = bob.next_mail(lambda m: "alice played 2. Ng1-f3" in body_of(m))
    assert "Your move" in body_of(auto)
    played_for_alice = alice.next_mail(lambda m: "conditional move was played" in body_of(m))
    assert "Played 2. Ng1-f3" in body_of(played_for_alice)

    bob.reply(auto, "Nc6")
    bob.next_mail()
    auto = bob.next_mail(lambda m: "alice played 3. Bf1-b5" in body_of(m))
    alice.next_mail(lambda m: "Played 3. Bf1-b5" in body_of(m))

    alice.reply(game_a, "if d6 then d4")
    assert "Registered" in body_of(alice.next_mail())
    bob.reply(auto, "a6")
    bob.next_mail()
    cleared = alice.next_mail(lambda m: "bob played 3... Pa7-a6" in body_of(m))
    assert "conditional line(s) were cleared: none expected Pa7-a6" in body_of(cleared)
    assert "Your move" in body_of(cleared)
    alice.reply(game_a, "if list")
    assert "You have no conditional moves" in body_of(alice.next_mail())
    harness.settle()
    assert not any("Pd2-d4" in body_of(m) for m in Player(harness, bob.address).inbox())
