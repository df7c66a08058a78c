"""Notes between players (``say``) through the whole pipeline: relay, storage, limits, observers, secret scan."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from pbem.app.notes import MAX_NOTE_CHARS, MAX_NOTES_PER_DAY
from pbem.mail.compose import Attachment, Outgoing, SecretLeakError, scan_for_secrets
from pbem.store.models import Game
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register, started_game


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


def observed_game(pipe: Pipeline, terms: str = "") -> tuple[str, str]:
    """alice (white) vs bob in Hyperspace Chess on ``terms``, carol observing; both seat addresses."""
    seat_a, seat_b = begin_game(pipe, terms)[2:]
    pipe.send(CAROL, register(pipe, CAROL, "carol"), "observe 1")
    pipe.drain_outbox()
    return seat_a, seat_b


def everything_to(pipe: Pipeline, recipient: str) -> str:
    """All that ``recipient`` got since the last drain: every text part and text attachment, joined."""
    texts = []
    for to, message in pipe.drain_outbox():
        if to == recipient:
            texts.append(body_of(message))
            texts.extend(part.get_payload(decode=True).decode() for part in message.iter_attachments()
                         if not part.get_content_type().startswith("image/"))
    return "\n".join(texts)


def test_observers_never_see_a_note_unless_the_game_makes_notes_public(pipe: Pipeline) -> None:
    seat_a, seat_b = observed_game(pipe)
    pipe.send(ALICE, seat_a, "say Good luck, Bob\ne4")
    mails = pipe.drain_outbox()
    assert "alice says:\n> Good luck, Bob" in body_of(dict(mails)[BOB])
    assert "Last move: 1. Pe2-e4" in body_of(dict(mails)[CAROL])  # carol got the move, not the note
    assert "Good luck" not in body_of(dict(mails)[CAROL])
    seen = ""
    for sender, seat, text in ((BOB, seat_b, "say Thanks!\ne5"), (ALICE, seat_a, "Nf3"),
                               (BOB, seat_b, "say Well played\nresign")):
        pipe.send(sender, seat, text)
        seen += everything_to(pipe, CAROL)
    assert "The game is over: 1-0 (resignation)" in seen and "[Result \"1-0\"]" in seen  # the final mail, record
    assert not any(words in seen for words in ("Good luck", "Thanks", "Well played", "says:"))


def test_public_notes_reach_observers_quoted_with_the_move_that_followed_them(pipe: Pipeline) -> None:
    seat_a, seat_b = observed_game(pipe, "option public-notes=yes")
    pipe.send(ALICE, seat_a, "e4\nsay Good luck, Bob")
    mails = dict(pipe.drain_outbox())
    assert "alice says:\n> Good luck, Bob" in body_of(mails[BOB])
    assert "Good luck" not in body_of(mails[CAROL])  # said at ply 1: shown once ply 2 is
    pipe.send(BOB, seat_b, "say Thanks!\ne5")
    to_carol = body_of(dict(pipe.drain_outbox())[CAROL])
    # Quoted and attributed exactly as bob read it, after the news; bob's own note waits for ply 3.
    assert to_carol.startswith("Game 1: bob played 1... Pe7-e5.")
    assert "\n\nalice says:\n> Good luck, Bob\n\n" in to_carol
    assert "Thanks" not in to_carol
    pipe.send(ALICE, seat_a, "Nf3")
    to_carol = body_of(dict(pipe.drain_outbox())[CAROL])
    assert "bob says:\n> Thanks!" in to_carol and "Good luck" not in to_carol  # each note once
    pipe.send(BOB, seat_b, "say Well played\nresign")
    final = everything_to(pipe, CAROL)
    assert "bob says:\n> Well played" in final  # the game is over: nothing is held back
    assert "{alice: Good luck, Bob}" in final and "{bob: Thanks!}" in final  # and the record has them all


def test_observer_delay_holds_a_note_back_until_the_move_after_it_is_shown(pipe: Pipeline) -> None:
    seat_a, seat_b = observed_game(pipe, "option public-notes=yes option observer-delay=2")
    shown: list[tuple[str, str]] = []
    for sender, seat, text in ((ALICE, seat_a, "say Hello"), (ALICE, seat_a, "e4"), (BOB, seat_b, "e5"),
                               (ALICE, seat_a, "Nf3\nsay Your move"), (BOB, seat_b, "Nc6"),
                               (ALICE, seat_a, "Bc4"), (BOB, seat_b, "Nf6")):
        pipe.send(sender, seat, text)
        body = everything_to(pipe, CAROL)
        last = body.split("Last move: ", 1)[1].split("\n", 1)[0] if "Last move: " in body else ""
        shown.extend((last, line) for line in body.splitlines() if line.startswith("> "))
    # Two plies late: 'Hello' was said at ply 0, 'Your move' at ply 3 (after Nf3); each is shown in the
    # first mail that shows the ply after it, when the game is two plies further.
    assert shown == [("1. Pe2-e4", "> Hello"), ("2... Nb8-c6", "> Your move")]


def test_a_guessed_secret_in_a_note_blocks_no_mail(pipe: Pipeline) -> None:
    """A note is the player's words: alice guessing bob's return square, right, must not stop the mails
    it goes in (and so tell her she guessed right), whether quoted or in a record."""
    seat_a, seat_b = observed_game(pipe, "option public-notes=yes")
    pipe.send(ALICE, seat_a, "e4")
    pipe.send(BOB, seat_b, "Ng8@4 {f6}")  # bob's knight is away until his 5th turn: f6 stays secret
    pipe.drain_outbox()
    # In the record the comment's closing brace completes '{f6': the scan must skip the comment whole.
    pipe.send(ALICE, seat_a, "say is your knight coming to {f6}? my guess: {f6\nd4")
    mails = dict(pipe.drain_outbox())
    assert "Played 2. Pd2-d4" in body_of(mails[ALICE])
    assert "> is your knight coming to {f6}? my guess: {f6" in body_of(mails[BOB])
    pipe.send(ALICE, seat_a, "history")
    record = body_of(dict(pipe.drain_outbox())[ALICE])
    assert record.count("{f6}") == 2  # the comment in the plain record and in the PGN
    pipe.send(BOB, seat_b, "a6")
    assert "> is your knight coming to {f6}?" in everything_to(pipe, CAROL)  # observers may not know f6
    pipe.send(BOB, seat_b, "resign")
    finals = {to: m for to, m in pipe.drain_outbox()}
    assert set(finals) == {ALICE, BOB, CAROL}
    for message in finals.values():
        pgn = next(part for part in message.iter_attachments() if part.get_filename().endswith(".pgn"))
        assert "my guess: {f6}" in pgn.get_payload(decode=True).decode()


def test_the_record_exclusion_never_covers_the_servers_own_words() -> None:
    comment = "{alice: my guess: {f6}"
    wrapped = "1. e4 e5 2. d4 {alice: my\nguess: {f6} 2... a6 *\n"  # a record wraps its comments

    def mail(data: str) -> Outgoing:
        return Outgoing(to="alice@x.example", subject="s", body="b", reply_to="r",
                        attachments=(Attachment("game.pgn", data.encode(), own_words=(comment,)),))
    scan_for_secrets(mail(wrapped), ["{f6}"])
    for leak in (wrapped + "{f6}", wrapped + comment):  # the server's text, or a second copy
        with pytest.raises(SecretLeakError):
            scan_for_secrets(mail(leak), ["{f6}"])


def test_a_note_before_a_move_reaches_the_opponent_when_their_conditional_reply_is_played(
        pipe: Pipeline) -> None:
    seat_a, seat_b = observed_game(pipe, "option public-notes=yes")
    pipe.send(ALICE, seat_a, "e4")
    pipe.send(ALICE, seat_a, "if e5 then Nf3")
    pipe.drain_outbox()
    pipe.send(BOB, seat_b, "say Here it comes\ne5")
    bodies = [(to, body_of(m)) for to, m in pipe.drain_outbox()]
    assert sorted(to for to, body in bodies if "bob says:\n> Here it comes" in body) == [ALICE, CAROL]
    # Observers: in the mail about alice's conditional reply, the move after the note's.
    assert [body.split(".", 2)[:2] for to, body in bodies if to == CAROL and "Here it comes" in body] == [
        ["Game 1: alice played 2", " Ng1-f3"]]
    with pipe.db.read() as session:
        game = session.exec(select(Game)).one()
        assert game.ply == 3 and [note["ply"] for note in game.extras["notes"]] == [2]  # after bob's e5
