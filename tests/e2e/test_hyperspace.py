"""End to end over real SMTP: two players register, challenge, accept and play Hyperspace Chess."""

from __future__ import annotations

import hashlib
import re
import smtplib

import pytest

from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.players import start_game


def test_full_game_with_phase_out_rejection_return_and_mate(harness: Harness) -> None:
    alice, bob, game_a, game_b = start_game(harness)
    assert str(game_a["Subject"]).startswith("[pbem #")
    assert "You play white" in body_of(game_a) and "Your move" in body_of(game_a)
    assert "You play black" in body_of(game_b)
    assert game_a["Reply-To"] != game_b["Reply-To"]

    def move(player: Player, other: Player, last: object, text: str) -> tuple[object, object]:
        player.reply(last, text)
        confirmation = player.next_mail()
        notice = other.next_mail()
        return confirmation, notice

    conf, note = move(alice, bob, game_a, "Pe2-e4")
    assert "Played 1. Pe2-e4" in body_of(conf)
    assert "alice played 1. Pe2-e4" in body_of(note) and "Your move" in body_of(note)
    conf, note_b = move(bob, alice, note, "e7e5")
    assert "bob played 1... Pe7-e5" in body_of(note_b)

    # The phase-out: the owner gets the receipt, the opponent only the declaration; the digest follows
    # once it binds, with the opponent's next move.
    conf, note = move(alice, bob, note_b, "Bf1@1 {c4}")
    receipt = body_of(conf)
    assert "Played 2. Bf1@1" in receipt
    nonce = re.search(r"nonce[ =:]+([0-9a-f]{32})", receipt)
    digest = re.search(r"\b([0-9a-f]{64})\b", receipt)
    assert nonce and digest, receipt
    assert "c4" in receipt
    public = body_of(note)
    assert "alice played 2. Bf1@1" in public
    assert digest.group(1) not in public and "record" not in public
    assert nonce.group(1) not in public and "{c4}" not in public

    conf, note_b = move(bob, alice, note, "Nb8-c6")
    assert digest.group(1) in body_of(conf)
    # A rejected move: the bishop is in hyperspace; only alice hears of it, with her board.
    alice.reply(note_b, "Bf1-c4")
    rejected = alice.next_mail()
    assert "Not played" in body_of(rejected) and "a b c d e f g h" in body_of(rejected)
    conf, note = move(alice, bob, rejected, "Qd1-h5 #3")
    assert "alice played 3. Qd1-h5" in body_of(note)
    conf, note_b = move(bob, alice, note, "Ng8-f6")
    # Turn 4: the queen takes on f7 and the bishop returns to c4 at the end of the turn: mate.
    conf, note = move(alice, bob, note_b, "Qh5xf7")
    final = body_of(note)
    assert "&Bc4#" in final, final
    assert "1-0" in final and "checkmate" in final
    assert nonce.group(1) in final  # the reveal lets bob check the digest
    # The commitment string is longer than a mail line: it is cut after a '|' and joined again here.
    canonical = re.search(r"(hyperspace-chess/1\|(?:\S*\|\n\s+)*\S+)", final)
    assert canonical
    joined = "".join(canonical.group(1).split())
    assert hashlib.sha256(joined.encode()).hexdigest() == digest.group(1)
    assert "1-0" in body_of(conf)

    # Before the return, no mail to bob contained the return square as a secret.
    bob_mails = [body_of(m) for m in bob.inbox()]
    before_return = bob_mails[:-1]
    assert all(nonce.group(1) not in text and "{c4}" not in text for text in before_return)

    # Every mail of the game is in one thread and marked automatic.
    for mail in [*alice.inbox(), *bob.inbox()]:
        assert mail["Auto-Submitted"] in ("auto-replied", "auto-generated")
    game_mails = [m for m in alice.inbox() if "[pbem #" in str(m["Subject"])]
    roots = {str(m["References"]).split()[0] for m in game_mails}
    assert len(roots) == 1

    # history mails the record.
    alice.reply(conf, "history")
    record = body_of(alice.next_mail())
    assert '[Variant "Hyperspace Chess"]' in record and "2. Bf1@1" in record and "1-0" in record


def test_forged_and_unknown_tokens_are_refused_at_rcpt(harness: Harness) -> None:
    alice = Player(harness, "alice@players.example")
    welcome = alice.register("alice")
    good = str(welcome["Reply-To"])
    local, domain = good.split("@")
    forged = local[:-1] + ("0" if local[-1] != "0" else "1") + "@" + domain
    for address in (forged, f"pbem+u1.0000000000@{domain}", f"nobody@{domain}", "pbem@elsewhere.example"):
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            harness.send_raw("alice@players.example", [address], b"Subject: x\r\n\r\ngames\r\n")
        assert all(code == 550 for code, _ in refused.value.recipients.values())


def test_same_message_id_is_applied_once(harness: Harness) -> None:
    alice, bob, game_a, _ = start_game(harness)
    mid = alice.reply(game_a, "Pe2-e4")
    alice.reply(game_a, "Pe2-e4", message_id=mid)
    alice.next_mail()
    bob.next_mail()
    harness.settle()
    assert len([m for m in bob.inbox() if "alice played" in body_of(m)]) == 1
    assert len([m for m in alice.inbox() if "Played 1." in body_of(m)]) == 1


@pytest.mark.parametrize("headers", [
    {"Auto-Submitted": "auto-replied"},
    {"Precedence": "bulk"},
    {"X-Autoreply": "yes"},
])
def test_auto_responder_is_never_answered(harness: Harness, headers: dict[str, str]) -> None:
    alice = Player(harness, "alice@players.example")
    welcome = alice.register("alice")
    alice.reply(welcome, "I am on holiday until Monday.", headers=headers)
    alice.reply(welcome, "games")  # a normal mail after it is answered, so the server has caught up
    answer = alice.next_mail()
    assert "Results" in body_of(answer) and "holiday" not in body_of(answer)
    harness.settle()
    assert len(alice.inbox()) == 2  # the welcome and the games list, nothing for the auto-reply


def test_public_address_refuses_identity_commands(harness: Harness) -> None:
    carol = Player(harness, "carol@players.example")
    harness.send(carol.address, harness.public, "games\nfrobnicate")
    reply = body_of(carol.next_mail())
    assert "reply to one of the server's mails" in reply
    assert "frobnicate" in reply and "Unprocessed" in reply


def test_invited_address_registers_by_replying(harness: Harness) -> None:
    alice = Player(harness, "alice@players.example")
    welcome = alice.register("alice")
    alice.reply(welcome, "challenge dave@newcomers.example hyperspace black")
    assert "invited" in body_of(alice.next_mail())
    dave = Player(harness, "dave@newcomers.example")
    invitation = dave.next_mail()
    assert "invites you" in str(invitation["Subject"])
    dave.reply(invitation, "register davey\naccept")
    results = body_of(dave.next_mail())
    assert "davey" in results and "has started" in results
    opening = dave.next_mail(lambda m: "You play" in body_of(m))
    assert "You play white" in body_of(opening) and "Your move" in body_of(opening)
    alice_opening = alice.next_mail(lambda m: "You play" in body_of(m))
    assert "You play black" in body_of(alice_opening)
