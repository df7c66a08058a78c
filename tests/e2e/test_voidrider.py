"""End to end over real SMTP: two players play a short Voidrider Chess game with space moves and a ride across void."""

from __future__ import annotations

from email.message import EmailMessage

from pbem.engine.base import Seat
from pbem.variants.voidrider.engine import VoidriderChess
from tests.helpers.harness import Harness, Player, body_of, open_game

# The game: space moves (~), the Voidrider taking g8 across the void g3-g7, and mate by the Voidrider on e8.
GAME = [
    ("Nf2-e4", "Nf2-e4"), ("bc8~c9", "Bc8~c9"),
    ("Rg2-f2", "Rg2-f2"), ("Pe7-e6", "Pe7-e6"),
    ("vb1-d1", "Vb1~d1"), ("Nb8~c8", "Nb8~c8"),  # a plain '-' to void is read as a space move
    ("Vf1-g2", "Vf1-g2"), ("Ra8~b8", "Ra8~b8"),
    ("Vg2xg8", "Vg2xg8"), ("Nc8-b6", "Nc8-b6"),
    ("Vg8xf9", "Vg8xf9"), ("Pf7-f6", "Pf7-f6"),
    ("Ne4xf6", "Ne4xf6"), ("Nb6-c8", "Nb6-c8"),
    ("Vf9xe8", "Vf9xe8#"),
]


def start_game(harness: Harness) -> tuple[Player, Player, EmailMessage, EmailMessage]:
    """alice (white) challenges bob to voidrider; returns both players and their opening game mails."""
    return open_game(harness, "voidrider", "white")


def test_short_game_with_space_moves_a_ride_across_void_and_mate(harness: Harness) -> None:
    alice, bob, game_a, game_b = start_game(harness)
    engine = VoidriderChess()
    start = engine.view(engine.setup(), Seat.WHITE).diagram
    assert start in body_of(game_a)  # the same diagram as `pbem show voidrider`
    assert "You play white" in body_of(game_a) and "Your move" in body_of(game_a)
    assert "You play black" in body_of(game_b) and "| V |" in body_of(game_b)

    # A refused move says why (ruling W2) and shows the sender's board; nobody else hears of it.
    alice.reply(game_a, "Kd2~d1")
    refused = body_of(alice.next_mail())
    assert "Not played" in refused and "ruling W2" in refused and "a   b   c   d   e   f   g" in refused

    players = {0: (alice, bob), 1: (bob, alice)}
    last = {alice.address: game_a, bob.address: game_b}
    notices: list[str] = []
    for ply, (sent, canonical) in enumerate(GAME):
        mover, other = players[ply % 2]
        mover.reply(last[mover.address], sent)
        confirmation = mover.next_mail()
        notice = other.next_mail()
        number = ply // 2 + 1
        label = f"{number}." if ply % 2 == 0 else f"{number}..."
        assert f"Played {label} {canonical}" in body_of(confirmation), body_of(confirmation)
        assert f"played {label} {canonical}" in body_of(notice), body_of(notice)
        last[mover.address], last[other.address] = confirmation, notice
        notices.append(body_of(notice))

    # 3. Vb1~d1: the space move is announced and b1 is void in the diagram.
    assert "carried its space from b1 to d1" in notices[4]
    # 5. Vg2xg8: the capture across the void.
    assert "rook on g8 was captured across the void" in notices[8]
    final = notices[-1]
    assert "Vf9xe8#" in final and "1-0" in final and "checkmate" in final
    state = engine.setup()
    for _, canonical in GAME:
        state = engine.apply(state, engine.parse_action(state, canonical)).state
    assert engine.view(state, Seat.BLACK).diagram in final  # bob sees the board from Black's side

    alice.reply(last[alice.address], "history")
    record = " ".join(body_of(alice.next_mail()).split())  # the movetext is wrapped at 79 columns
    assert '[Variant "Voidrider Chess"]' in record
    assert "3. Vb1~d1 Nb8~c8" in record and "5. Vg2xg8 Nc8-b6" in record and "8. Vf9xe8# 1-0" in record

    # help names the variant's notation and rulings.
    alice.reply(last[alice.address], "help voidrider")
    help_text = body_of(alice.next_mail())
    assert "Vb1~e1" in help_text and "W11:" in help_text
