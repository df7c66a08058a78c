"""End to end over real SMTP: two players register, challenge, accept and play Space Chess to a mate."""

from __future__ import annotations

from email.message import EmailMessage

from tests.helpers.harness import Harness, Player, body_of, open_game


def start_game(harness: Harness) -> tuple[Player, Player, EmailMessage, EmailMessage]:
    """alice (white) challenges bob to space-chess; returns both players and their opening game mails."""
    return open_game(harness, "space-chess", "white")


def test_space_chess_game_with_two_level_transfers_a_capture_and_mate(harness: Harness) -> None:
    alice, bob, game_a, game_b = start_game(harness)
    assert "You play white" in body_of(game_a) and "Your move" in body_of(game_a)
    assert "You play black" in body_of(game_b)
    assert "Level 3 (A, top)" in body_of(game_a) and "1 R N B Q K B N R" in body_of(game_a)

    last = {"alice": game_a, "bob": game_b}

    def move(player: Player, other: Player, text: str) -> tuple[str, str]:
        me, them = player.address.split("@")[0], other.address.split("@")[0]
        player.reply(last[me], text)
        confirmation = player.next_mail()
        notice = other.next_mail()
        last[me], last[them] = confirmation, notice
        return body_of(confirmation), body_of(notice)

    conf, note = move(alice, bob, "Pe2(1)-e3(2)")
    assert "Played 1. Pe2(1)-e3(2)" in conf and "alice played 1. Pe2(1)-e3(2)" in note
    # Input spellings: level letters, no piece letter; the record is canonical.
    conf, note = move(bob, alice, "a7a-a6b")
    assert "bob played 1... Pa7(3)-a6(2)" in note

    # A refused move explains why and shows the board: a first move must transfer.
    alice.reply(last["alice"], "Bf1(1)-c4(1)")
    refused = body_of(alice.next_mail())
    assert "Not played" in refused and "toward the middle level" in refused and "possible: c4(2)" in refused
    assert "a b c d e f g h" in refused

    conf, note = move(alice, bob, "Bf1-c4")  # levels left out: only c4(2) fits
    assert "alice played 2. Bf1(1)-c4(2)" in note
    conf, note = move(bob, alice, "Ph7(3)-h6(2)")
    # Two-level transfer from a star on the queen's first move.
    conf, note = move(alice, bob, "Qd1(1)-f3(3)")
    assert "alice played 3. Qd1(1)-f3(3)" in note
    conf, note = move(bob, alice, "Pa6(2)-a5(2)")
    conf, note = move(alice, bob, "Nb1(1)-c3(3) #4")
    assert "alice played 4. Nb1(1)-c3(3)" in note
    conf, note = move(bob, alice, "Ph6(2)-h5(2)")
    conf, note = move(alice, bob, "Nc3(3)-e4(3)")
    conf, note = move(bob, alice, "Pa5(2)-a4(2)")
    conf, note = move(alice, bob, "Ne4(3)-g5(3)")
    conf, note = move(bob, alice, "Pb7(3)-b6(2)")
    # The capture on level 3 is mate: f7(3) is covered by the knight, f7(2) by the bishop.
    conf, note = move(alice, bob, "Qf3(3)xf7(3)")
    assert "alice played 7. Qf3(3)xf7(3)#" in note
    assert "Black's pawn on f7(3) is captured." in note
    assert "1-0" in note and "checkmate" in note
    assert "1-0" in conf and "Game over: 1-0 (checkmate)." in conf

    # Every mail of the game is in one thread and marked automatic.
    for mail in [*alice.inbox(), *bob.inbox()]:
        assert mail["Auto-Submitted"] in ("auto-replied", "auto-generated")
    game_mails = [m for m in alice.inbox() if "[pbem #" in str(m["Subject"])]
    assert len({str(m["References"]).split()[0] for m in game_mails}) == 1

    alice.reply(last["alice"], "history")
    record = body_of(alice.next_mail())
    assert '[Variant "Space Chess"]' in record
    assert "1. Pe2(1)-e3(2) Pa7(3)-a6(2) 2. Bf1(1)-c4(2)" in record
    assert "7. Qf3(3)xf7(3)# 1-0" in record


def test_space_chess_help_by_mail(harness: Harness) -> None:
    carol = Player(harness, "carol@players.example")
    harness.send(carol.address, harness.public, "help space-chess")
    text = body_of(carol.next_mail())
    assert "Space Chess" in text and "O-O(2)" in text and "S16:" in text
