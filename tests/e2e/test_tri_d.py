"""End to end over real SMTP: two players register, challenge, accept and play tri-d chess with an
attack-board move, a refused move, and a resignation."""

from __future__ import annotations

from email.message import EmailMessage

from tests.helpers.harness import Harness, Player, body_of, open_game

# White clears the queen's-side attack board down to one pawn (knight, queen, b-pawns and rook
# leave), while Black's knight shuffles; then the board with its pawn moves from b1(1) to b4(1).
WHITE = ["Nb1(2)-c3(2)", "qb0(1)-b3(4)", "2. Pb2(2)-b4(2)", "b1(1)-b1(2)", "Pb1(2)-b2(2)", "Ra0(1)-b0(1)",
         "Rb0(1)-b1(1)", "Rb1(1)-b1(2)"]
BLACK = ["Nb8(6)-c6(6)", "nc6(6)-b8(6)", "Nb8(6)-c6(6)", "Nc6(6)-b8(6)"] * 2


def start_game(harness: Harness) -> tuple[Player, Player, EmailMessage, EmailMessage]:
    """alice (white) challenges bob to tri-d; returns both players and their opening game mails."""
    return open_game(harness, "tri-d", "white")


def test_tri_d_game_with_an_attack_board_move(harness: Harness) -> None:
    alice, bob, game_a, game_b = start_game(harness)
    assert "You play white" in body_of(game_a) and "You play black" in body_of(game_b)
    for text in ("B = level 6, Black's board", "W = level 2, White's board",
                 "  0         R Q             K R         0"):
        assert text in body_of(game_a)

    # The attack board still carries four pieces: refused, with the reason and the board.
    alice.reply(game_a, "@b1(1)-b1(3)")
    refused = body_of(alice.next_mail())
    assert "Not played" in refused and "carries 4 pieces" in refused and "W = level 2" in refused

    last_a: EmailMessage = game_a
    notes: list[str] = []
    for number, (white, black) in enumerate(zip(WHITE, BLACK, strict=True), start=1):
        alice.reply(last_a, white)
        assert f"Played {number}. " in body_of(alice.next_mail())
        note = bob.next_mail()
        notes.append(body_of(note))
        bob.reply(note, black)
        bob.next_mail()
        last_a = alice.next_mail()
        assert f"bob played {number}... N" in body_of(last_a)
    # Input in any case, with a move number or without a piece letter; mails carry the canonical form.
    assert "alice played 2. Qb0(1)-b3(4)" in notes[1]
    assert "alice played 3. Pb2(2)-b4(2)" in notes[2]
    assert "alice played 4. Pb1(1)-b1(2)" in notes[3]

    alice.reply(last_a, "@b1(1)-b4(1)")
    played = body_of(alice.next_mail())
    assert "Played 9. @b1(1)-b4(1)" in played
    notice = bob.next_mail()
    seen = body_of(notice)
    assert "alice played 9. @b1(1)-b4(1)" in seen and "Your move" in seen
    # The board and its pawn are drawn beside the new pin: a1(1) went to a4(1) with its board.
    assert "  attack boards: e1(1) White, b4(1) White" in seen
    assert "\n  4         P .   P . . .               4\n" in seen, seen

    bob.reply(notice, "resign")
    final = body_of(alice.next_mail(lambda m: "1-0" in body_of(m)))
    assert "resignation" in final

    record = _record(alice, last_a)
    assert '[Variant "Victor Rules Space Chess (tri-d)"]' in record
    assert "1. Nb1(2)-c3(2) Nb8(6)-c6(6) 2. Qb0(1)-b3(4) Nc6(6)-b8(6)" in " ".join(record.split())
    assert "9. @b1(1)-b4(1) 1-0" in record


def _record(player: Player, mail: EmailMessage) -> str:
    player.reply(mail, "history")
    return body_of(player.next_mail(lambda m: "[Variant" in body_of(m)))
