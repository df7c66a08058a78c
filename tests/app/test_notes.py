"""Notes between players (``say``) through the whole pipeline: relay, storage, limits, and the secret scan."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from pbem.app.notes import MAX_NOTE_CHARS, MAX_NOTES_PER_DAY
from pbem.mail.compose import Outgoing, SecretLeakError, scan_for_secrets
from pbem.store.models import Game
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, started_game


def test_a_note_with_a_move_travels_in_the_move_mail_quoted_and_stored(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        seat_a, _ = started_game(pipe)
        pipe.drain_outbox()
        pipe.send(ALICE, seat_a, "say Good luck!\ne4\nsay Second line.")
        mails = pipe.drain_outbox()
        to_bob = [body_of(m) for r, m in mails if r == BOB]
        assert len(to_bob) == 1  # the note is inside the move mail, not a mail of its own
        assert "alice played 1. Pe2-e4" in to_bob[0]
        assert "alice says:\n> Good luck!\n> Second line." in to_bob[0]
        with pipe.db.transaction() as session:
            game = session.exec(select(Game)).one()
            assert [(n["seat"], n["text"]) for n in game.extras["notes"]] == [("white", "Good luck!\nSecond line.")]
    finally:
        pipe.close()


def test_a_note_without_a_move_is_a_mail_of_its_own(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        seat_a, _ = started_game(pipe)
        pipe.drain_outbox()
        pipe.send(ALICE, seat_a, "say Take your time.")
        mails = dict(pipe.drain_outbox())
        assert "alice says:\n> Take your time." in body_of(mails[BOB])
        assert "Your note was sent" in body_of(mails[ALICE])
    finally:
        pipe.close()


def test_limits_are_refused_clearly(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        seat_a, _ = started_game(pipe)
        pipe.drain_outbox()
        pipe.send(ALICE, seat_a, "say " + "x" * (MAX_NOTE_CHARS + 1))
        mails = dict(pipe.drain_outbox())
        assert f"at most {MAX_NOTE_CHARS} characters" in body_of(mails[ALICE]) and BOB not in mails
        for _ in range(MAX_NOTES_PER_DAY):
            pipe.send(ALICE, seat_a, "say hello")
            pipe.drain_outbox()
        pipe.send(ALICE, seat_a, "say once more")
        mails = dict(pipe.drain_outbox())
        assert f"at most {MAX_NOTES_PER_DAY} notes" in body_of(mails[ALICE]) and BOB not in mails
    finally:
        pipe.close()


def test_a_player_may_reveal_their_own_secret_in_a_note(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        seat_a, _ = started_game(pipe)
        pipe.drain_outbox()
        pipe.send(ALICE, seat_a, "Ng1@2 {f5}\nsay my knight comes back to {f5}")
        mails = dict(pipe.drain_outbox())
        assert "> my knight comes back to {f5}" in body_of(mails[BOB])
    finally:
        pipe.close()


def test_the_note_exclusion_never_covers_the_servers_own_words() -> None:
    note = "alice says:\n> my square is {f5}"
    mail = Outgoing(to="bob@x.example", subject="s", body=f"news\n\n{note}\n", reply_to="r", own_words=(note,))
    scan_for_secrets(mail, ["{f5}"])  # the player's own words pass
    for leak in (f"news {{f5}}\n\n{note}\n", f"{note}\n\n{note}\n"):  # the server's text, or a second copy
        with pytest.raises(SecretLeakError):
            scan_for_secrets(Outgoing(to="bob@x.example", subject="s", body=leak, reply_to="r",
                                      own_words=(note,)), ["{f5}"])
