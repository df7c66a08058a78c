"""A game's last mails: the result first, the final position as picture and text, the record, and the
record file and the game's GIF attached, each mail under 100 KB."""

from __future__ import annotations

import io
from email.message import EmailMessage
from pathlib import Path

import pytest
from PIL import Image

import pbem.app.game_pictures
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, register, started_game

MOVES = ["Pe2-e4", "Pe7-e5", "Ng1-f3", "Nb8-c6", "Bf1-c4", "Ng8-f6"]



def attachments(message: EmailMessage) -> dict[str, bytes]:
    found = {}
    for part in message.iter_attachments():
        data = part.get_payload(decode=True)
        assert isinstance(data, bytes) and part.get_filename()
        found[str(part.get_filename())] = data
    return found


def test_final_mails_carry_the_result_the_record_and_the_game_as_a_gif(pipe: Pipeline) -> None:
    seat_a, seat_b = started_game(pipe)
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "observe 1")
    pipe.drain_outbox()
    for ply, move in enumerate(MOVES):
        pipe.send(ALICE if ply % 2 == 0 else BOB, seat_a if ply % 2 == 0 else seat_b, move)
    pipe.drain_outbox()
    pipe.send(ALICE, seat_a, "resign")
    finals = {recipient: m for recipient, m in pipe.drain_outbox() if "0-1" in body_of(m).splitlines()[0]}
    assert set(finals) >= {ALICE, BOB, CAROL}
    for recipient, mail in finals.items():
        text = body_of(mail)
        assert "resign" in text.splitlines()[0].lower(), text.splitlines()[0]
        assert "3. Bc4 Nf6" in text  # the whole record (PGN, as Hyperspace records are)
        assert "to move" not in text.split("Final position", 1)[-1].splitlines()[0]
        files = attachments(mail)
        record = files["pbem-game-1.pgn"].decode()
        assert '[Result "0-1"]' in record and "Bc4 Nf6" in record
        gif = Image.open(io.BytesIO(files["pbem-game-1.gif"]))
        assert gif.format == "GIF" and gif.n_frames == len(MOVES) + 1  # the start and every move
        assert len(mail.as_bytes()) < 100_000, (recipient, len(mail.as_bytes()))
        html = mail.get_body(preferencelist=("html",))
        assert html is not None and "<caption" in html.get_content() and "Bf1-c4" in html.get_content()
    assert attachments(finals[ALICE]) == attachments(finals[BOB]) == attachments(finals[CAROL])


def test_a_game_too_long_for_its_gif_says_so_and_where_to_step_through_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A budget no GIF fits stands in for a game of a hundred moves (whose GIF would not fit 35 KB).
    monkeypatch.setattr(pbem.app.game_pictures, "GIF_BUDGET", 100)
    for name, url, expected in (("web", "https://pbem.example.org/", "https://pbem.example.org/games/1/1"),
                                ("plain", "", None)):
        (tmp_path / name).mkdir()
        pipe = Pipeline(tmp_path / name, PBEM_WEB_PUBLIC_URL=url)
        try:
            seat_a, seat_b = started_game(pipe)
            pipe.send(ALICE, seat_a, "Pe2-e4")
            pipe.drain_outbox()
            pipe.send(BOB, seat_b, "resign")
            finals = {r: m for r, m in pipe.drain_outbox() if "1-0" in body_of(m)}
            assert set(finals) == {ALICE, BOB}
            for mail in finals.values():
                text = body_of(mail)
                assert "pbem-game-1.gif" not in attachments(mail) and "pbem-game-1.pgn" in attachments(mail)
                assert "This game is too long for its animated GIF to fit in a mail." in text
                assert (expected in text) if expected else ("Step through it" not in text)
                assert max(len(line) for line in text.splitlines() if "://" not in line) <= 78
        finally:
            pipe.close()


def test_a_game_whose_gif_fits_says_nothing_about_it(pipe: Pipeline) -> None:
    seat_a, seat_b = started_game(pipe)
    pipe.send(ALICE, seat_a, "Pe2-e4")
    pipe.drain_outbox()
    pipe.send(BOB, seat_b, "resign")
    for _, mail in pipe.drain_outbox():
        assert "pbem-game-1.gif" in attachments(mail) and "too long" not in body_of(mail)
