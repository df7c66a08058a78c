"""Email commands through the worker on a real SQLite database; the tests read the outbox."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from pbem.store.models import Game, InboxItem, MoveRecord
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, names_square, only_mail, register, started_game


@pytest.fixture
def pipe(tmp_path: Path, database_url: str | None) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, database_url=database_url)
    yield p
    p.close()


def test_register_creates_account_and_again_resends_welcome(pipe: Pipeline) -> None:
    first = register(pipe, ALICE, "alice")
    pipe.send(ALICE, pipe.addresses.public, "register")
    again = only_mail(pipe, ALICE)
    assert "You are registered as alice" in body_of(again)
    assert str(again["Reply-To"]) == first


def test_register_refuses_taken_and_malformed_handles(pipe: Pipeline) -> None:
    register(pipe, ALICE, "alice")
    pipe.send(BOB, pipe.addresses.public, "register ALICE\nregister 9lives")
    body = body_of(only_mail(pipe, BOB))
    assert "the handle 'alice' is taken" in body
    assert "'9lives' is not a valid handle" in body


def test_help_variants_and_unknown_lines(pipe: Pipeline) -> None:
    pipe.send(CAROL, pipe.addresses.public, "help\nvariants\nhelp hyperspace\nfly me to the moon\n// a comment")
    body = body_of(only_mail(pipe, CAROL))
    assert "challenge OPPONENT VARIANT" in body
    assert "hyperspace" in body and "Hyperspace Chess" in body
    assert "H1" in body and "H10" in body  # the rulings in force
    assert "Unprocessed" in body and "fly me to the moon" in body
    assert "a comment" not in body


def test_challenge_errors_are_explained(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "challenge nobody hyperspace\nchallenge alice hyperspace\n"
                            "challenge bob@x.example chess960\nchallenge bob@x.example hyperspace days -1")
    body = body_of(only_mail(pipe, ALICE))
    assert "no player with the handle 'nobody'" in body
    assert "you cannot challenge yourself" in body
    assert "unknown variant: 'chess960'" in body
    assert "days per move must be above 0" in body


def test_accept_only_by_the_addressee(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    register(pipe, BOB, "bob")
    carol = register(pipe, CAROL, "carol")
    pipe.send(ALICE, alice, "challenge bob hyperspace")
    pipe.drain_outbox()
    pipe.send(CAROL, carol, "accept 1")
    assert "is not addressed to you" in body_of(only_mail(pipe, CAROL))


def test_decline_tells_the_challenger(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    bob = register(pipe, BOB, "bob")
    pipe.send(ALICE, alice, "challenge bob hyperspace")
    pipe.drain_outbox()
    pipe.send(BOB, bob, "decline 1")
    mails = dict(pipe.drain_outbox())
    assert "bob declined challenge 1" in body_of(mails[ALICE])
    assert "Challenge 1 declined" in body_of(mails[BOB])


def test_games_lists_whose_move_and_deadline(pipe: Pipeline) -> None:
    seat_a, _ = started_game(pipe)
    pipe.send(ALICE, seat_a, "games")
    body = body_of(only_mail(pipe, ALICE))
    assert re.search(r"#\d+ .*Hyperspace Chess.*bob", body)
    assert "your move" in body and "deadline" in body.lower()


def test_one_move_per_mail_and_guard_and_turn(pipe: Pipeline) -> None:
    seat_a, seat_b = started_game(pipe)
    pipe.send(BOB, seat_b, "Pe7-e5")
    assert "it is not your move" in body_of(only_mail(pipe, BOB))
    pipe.send(ALICE, seat_a, "Pe2-e4 #2")
    assert "guarded by #2, but this is move 1" in body_of(only_mail(pipe, ALICE))
    pipe.send(ALICE, seat_a, "Pe2-e4 #1\nPd2-d4")
    mails = pipe.drain_outbox()
    reply = next(body_of(m) for r, m in mails if r == ALICE)
    assert "Played 1. Pe2-e4" in reply
    assert "Ignored" in reply and "Pd2-d4" in reply and "only one move" in reply
    with pipe.db.transaction() as session:
        assert [r.record for r in session.exec(select(MoveRecord)).all()] == ["Pe2-e4"]


def test_illegal_move_shows_the_board_only_to_the_sender(pipe: Pipeline) -> None:
    seat_a, _ = started_game(pipe)
    pipe.send(ALICE, seat_a, "Pe2-e5")
    mails = pipe.drain_outbox()
    assert [r for r, _ in mails] == [ALICE]
    body = body_of(mails[0][1])
    assert "Not played" in body and "a b c d e f g h" in body


def test_resign_and_draw(pipe: Pipeline) -> None:
    seat_a, seat_b = started_game(pipe)
    pipe.send(ALICE, seat_a, "draw")
    mails = dict(pipe.drain_outbox())
    assert "offers a draw" in body_of(mails[BOB])
    pipe.send(BOB, seat_b, "draw")
    mails = dict(pipe.drain_outbox())
    assert "1/2-1/2" in body_of(mails[ALICE]) and "agreement" in body_of(mails[ALICE])
    pipe.send(ALICE, seat_a, "resign")
    assert "already over" in body_of(only_mail(pipe, ALICE))


def test_resign_ends_the_game(pipe: Pipeline) -> None:
    seat_a, _ = started_game(pipe)
    pipe.send(ALICE, seat_a, "resign")
    mails = dict(pipe.drain_outbox())
    assert "0-1" in body_of(mails[BOB]) and "resignation" in body_of(mails[BOB])
    with pipe.db.transaction() as session:
        game = session.exec(select(Game)).one()
        assert (game.status, game.result) == ("finished", "0-1")


def test_crash_half_way_through_a_move_applies_nothing(pipe: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    seat_a, _ = started_game(pipe)
    import pbem.app.games

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    # Fails after the move was applied to the game row but before the mails were queued.
    monkeypatch.setattr(pbem.app.games, "referee_mail", explode)
    pipe.send(ALICE, seat_a, "Pe2-e4")
    mails = pipe.drain_outbox()
    assert [r for r, _ in mails] == [ALICE]
    assert "could not be processed" in body_of(mails[0][1])
    with pipe.db.transaction() as session:
        game = session.exec(select(Game)).one()
        assert game.ply == 0 and session.exec(select(MoveRecord)).first() is None
        assert session.exec(select(InboxItem).where(InboxItem.status == "failed")).one()
    monkeypatch.undo()
    pipe.send(ALICE, seat_a, "Pe2-e4")
    assert any("Played 1. Pe2-e4" in body_of(m) for _, m in pipe.drain_outbox())


def test_a_crash_in_a_batch_spoils_only_its_own_mail(pipe: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    seat_a, _ = started_game(pipe)
    import pbem.app.games

    def explode(*args: object, **kwargs: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(pbem.app.games, "referee_mail", explode)
    pipe.queue(ALICE, seat_a, "board")
    pipe.queue(ALICE, seat_a, "Pe2-e4")
    pipe.queue(ALICE, seat_a, "history")
    assert pipe.worker.process_next(batch=16)  # all three in one call: the failure, then the others again
    assert not pipe.worker.process_next(batch=16)
    bodies = [body_of(m) for _, m in pipe.drain_outbox()]
    # The failure's answer is committed first, in a transaction of its own; the batch it spoilt is then
    # applied again without it.
    assert len(bodies) == 3 and "could not be processed" in bodies[0]
    assert "Pe2-e4" not in bodies[2] and "could not be processed" not in bodies[1] + bodies[2]
    with pipe.db.read() as session:
        assert session.exec(select(Game)).one().ply == 0
        statuses = [i.status for i in session.exec(select(InboxItem).order_by(col(InboxItem.id)))]
        assert statuses[-3:] == ["done", "failed", "done"]


def test_a_failed_flush_in_a_batch_fails_its_mail_alone(pipe: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pending row that breaks a unique index fails at the flush: its mail alone is undone, and the move
    before it in the batch, rolled back with it, is applied again."""
    seat_a, seat_b = started_game(pipe)
    import pbem.app.games
    from pbem.store.models import Account

    real_referee_mail = pbem.app.games.referee_mail
    calls: list[int] = []

    def duplicate_handle(ctx: Any, game: Any, lines: list[str]) -> None:
        calls.append(game.ply)
        if game.ply == 2:  # the second move: a pending row that breaks a unique index at the flush
            ctx.session.add(Account(handle="alice", email="someone@else.example"))
        real_referee_mail(ctx, game, lines)

    monkeypatch.setattr(pbem.app.games, "referee_mail", duplicate_handle)
    pipe.queue(ALICE, seat_a, "Pe2-e4")
    pipe.queue(BOB, seat_b, "Pe7-e5")
    pipe.queue(ALICE, seat_a, "board")
    assert pipe.worker.process_next(batch=16)  # all three in one transaction
    assert not pipe.worker.process_next(batch=16)
    bodies = [(to, body_of(m)) for to, m in pipe.drain_outbox()]
    assert sum("Played 1. Pe2-e4" in body for _, body in bodies) == 1
    assert any(to == BOB and "could not be processed" in body for to, body in bodies)
    assert calls == [1, 2, 1]  # the first move, the failed second, the first again
    with pipe.db.read() as session:
        assert session.exec(select(Game)).one().ply == 1
        statuses = [i.status for i in session.exec(select(InboxItem).order_by(col(InboxItem.id)))]
        assert statuses[-3:] == ["done", "failed", "done"]
        assert [a.handle for a in session.exec(select(Account).where(Account.handle == "alice"))] == ["alice"]


def test_reply_goes_to_the_account_not_the_from(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send("mallory@evil.example", alice, "games")
    mails = pipe.drain_outbox()
    assert [r for r, _ in mails] == [ALICE]
    assert "came from mallory@evil.example" in body_of(mails[0][1])


def test_seat_commands_need_a_seat_address(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "resign\nboard")
    body = body_of(only_mail(pipe, ALICE))
    assert body.count("belongs to a game") == 2


def test_referee_gets_every_secret_and_the_opponent_none(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path, PBEM_SERVER_REFEREE="referee@club.example")
    try:
        seat_a, _ = started_game(pipe)
        pipe.send(ALICE, seat_a, "Ng1@2 {f5}")
        mails = pipe.drain_outbox()
        by_recipient = {r: body_of(m) for r, m in mails}
        assert set(by_recipient) == {ALICE, BOB, "referee@club.example"}
        assert "returns to f5" in by_recipient["referee@club.example"]
        assert "returns to f5" in by_recipient[ALICE]
        assert not names_square(by_recipient[BOB], "f5")
    finally:
        pipe.close()


def test_secret_sent_separately_before_the_opponent_moves(pipe: Pipeline) -> None:
    seat_a, _seat_b = started_game(pipe)
    pipe.send(ALICE, seat_a, "Ng1@2")
    mails = dict(pipe.drain_outbox())
    assert "secret 1 Ng1 SQUARE" in body_of(mails[ALICE])
    pipe.send(ALICE, seat_a, "secret 1 Ng1 f5")
    mails = dict(pipe.drain_outbox())
    assert "returns to f5" in body_of(mails[ALICE])
    assert set(mails) == {ALICE}  # bob is not told whether (or when) the square was recorded
    pipe.send(ALICE, seat_a, "secret 1 Ng1 f6")
    assert "already recorded" in body_of(only_mail(pipe, ALICE))


def _masked(text: str) -> str:
    """A mail's text with what differs from one run to the next hidden: digests, nonces, times."""
    text = re.sub(r"\b[0-9a-f]{32,64}\b", "<hex>", text)
    text = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d|\b\w{3} \d{1,2} \w{3} \d\d:\d\d|\d+d \d+h|\d+h \d+m|\d+m\b",
                  "<time>", text)
    return text


@pytest.mark.parametrize("later", ["secret 2 Ng1 f3", None])
def test_the_opponent_cannot_tell_whether_a_return_square_is_recorded(tmp_path: Path, later: str | None) -> None:
    """The same phase-out with its square (the baseline), with the square sent later by ``secret``, and
    never recorded: bob's mails read the same, word for word, but for digests, nonces and times."""
    def bob_mails(with_square: bool, late: str | None) -> list[str]:
        (tmp_path / f"{with_square}-{late}").mkdir()
        pipe = Pipeline(tmp_path / f"{with_square}-{late}")
        try:
            seat_a, seat_b = started_game(pipe)
            pipe.drain_outbox()
            texts: list[str] = []
            for sender, seat, text in ((ALICE, seat_a, "e4"), (BOB, seat_b, "e5"),
                                       (ALICE, seat_a, "Ng1@2 {f3}" if with_square else "Ng1@2"),
                                       *([(ALICE, seat_a, late)] if late else []),
                                       (BOB, seat_b, "Nb8-c6"), (ALICE, seat_a, "d3"), (BOB, seat_b, "a6")):
                pipe.send(sender, seat, text)
                texts += [_masked(body_of(m)) for r, m in pipe.drain_outbox() if r == BOB]
            return texts
        finally:
            pipe.close()

    baseline = bob_mails(True, None)
    other = bob_mails(False, later)
    assert len(baseline) == len(other) == 6
    assert baseline == other
    assert not any("recorded" in text for text in baseline)


def test_secret_after_the_opponent_moved_is_refused(pipe: Pipeline) -> None:
    seat_a, seat_b = started_game(pipe)
    pipe.send(ALICE, seat_a, "Ng1@2")
    pipe.drain_outbox()
    pipe.send(BOB, seat_b, "Pe7-e5")
    pipe.drain_outbox()
    pipe.send(ALICE, seat_a, "secret 1 Ng1 f5")
    assert "too late" in body_of(only_mail(pipe, ALICE))


@pytest.mark.parametrize("name", ["seek", "seeks", "unseek", "say", "set", "settings"])
def test_help_on_each_new_command_shows_examples_that_are_real_commands(pipe: Pipeline, name: str) -> None:
    from pbem.commands.registry import looks_like_command

    pipe.send(CAROL, pipe.addresses.public, f"help {name}")
    body = body_of(only_mail(pipe, CAROL))
    assert f"> help {name}" in body
    examples = body.split("Example", 1)[1].splitlines()[1:] if "Example" in body else []
    commands = [line.split("(")[0].strip() for line in examples if line.startswith("  ") and line.strip()]
    assert commands, body
    for example in commands:
        assert looks_like_command(example), example  # a command word, or a move
