"""Per-player settings through the real worker and sweep, on an injected clock: set, settings, timezone, digest,
pictures, board orientation, notify-observed."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import select

from pbem.store.models import Account, DigestItem, Game
from tests.helpers.clock import T0, FakeTime
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, register

NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def pipe(tmp_path: Path, time: FakeTime) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, now=time)
    yield p
    p.close()


def by_recipient(pipe: Pipeline) -> dict[str, list[EmailMessage]]:
    found: dict[str, list[EmailMessage]] = {}
    for recipient, message in pipe.drain_outbox():
        found.setdefault(recipient, []).append(message)
    return found


def text(messages: list[EmailMessage]) -> str:
    return "\n".join(body_of(message) for message in messages)


def html_of(message: EmailMessage) -> str:
    part = message.get_body(preferencelist=("html",))
    return str(part.get_content()) if part is not None and part.get_content_type() == "text/html" else ""


def deadline_of(pipe: Pipeline, game_id: int = 1) -> object:
    with pipe.db.read() as session:
        game = session.get(Game, game_id)
        assert game is not None and game.deadline is not None
        return game.deadline


def sweep(pipe: Pipeline) -> int:
    return pipe.sweep()


# -- set and settings -----------------------------------------------------------------------------------


def test_set_and_settings_list_the_values_and_refuse_unknown_keys_and_values(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "set timezone europe/berlin\nset board white-bottom\nsettings")
    reply = text(by_recipient(pipe)[ALICE])
    assert "Your setting timezone is now Europe/Berlin." in reply
    assert "Your setting board is now white-bottom." in reply
    listed = re.search(r"^timezone\s+(\S+)", reply, re.MULTILINE)
    assert listed is not None and listed.group(1) == "Europe/Berlin"
    assert re.search(r"^mail\s+each \(default\)$", reply, re.MULTILINE)
    with pipe.db.read() as session:
        account = session.exec(select(Account).where(Account.email == ALICE)).one()
        assert account.settings == {"timezone": "Europe/Berlin", "board": "white-bottom"}
    pipe.send(ALICE, alice, "set timezon Europe/Paris\nset timezone Europe/Berln\nset pictures maybe")
    reply = " ".join(text(by_recipient(pipe)[ALICE]).split())
    assert "there is no setting 'timezon' (did you mean 'timezone'?)" in reply
    assert "'Europe/Berln' is not a value of timezone (did you mean Europe/Berlin?)" in reply
    assert "'maybe' is not a value of pictures: on | off" in reply
    with pipe.db.read() as session:
        account = session.exec(select(Account).where(Account.email == ALICE)).one()
        assert account.settings == {"timezone": "Europe/Berlin", "board": "white-bottom"}  # nothing changed


def test_games_shows_the_settings_and_help_set_explains_them_with_examples(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "set pictures off")
    by_recipient(pipe)
    pipe.send(ALICE, alice, "games")
    listing = text(by_recipient(pipe)[ALICE])
    assert re.search(r"^\s+pictures\s+off$", listing, re.MULTILINE)
    assert re.search(r"^\s+notify-observed\s+each \(default\)$", listing, re.MULTILINE)
    pipe.send(ALICE, pipe.addresses.public, "help set")
    helped = text(by_recipient(pipe)[ALICE])
    for example in ("set timezone Europe/Berlin", "set mail digest", "set digest-hour 7", "set pictures off",
                    "set board white-bottom", "set notify-observed end"):
        assert example in helped


# -- timezone -------------------------------------------------------------------------------------------


def test_a_time_zone_changes_every_time_shown_to_that_player_and_only_to_them(pipe: Pipeline) -> None:
    _, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")
    by_recipient(pipe)
    pipe.send(BOB, bob, "set timezone America/New_York")
    assert "Times in your mails are shown in America/New_York" in " ".join(text(by_recipient(pipe)[BOB]).split())
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    deadline = deadline_of(pipe)
    assert isinstance(deadline, type(T0))
    local = deadline.astimezone(NEW_YORK)
    mails = by_recipient(pipe)
    bob_mail, alice_mail = text(mails[BOB]), text(mails[ALICE])
    assert f"{local:%a} {local.day} {local:%b %H:%M} America/New_York" in " ".join(bob_mail.split())
    assert f"{local:%Y-%m-%d %H:%M} America/New_York" in bob_mail  # the clock block
    assert "UTC" not in bob_mail
    assert "UTC" not in html_of(mails[BOB][0])
    assert f"{deadline:%Y-%m-%d %H:%M} UTC" in alice_mail and "America/New_York" not in alice_mail
    pipe.send(BOB, bob, "games\nvacation 2")
    answers = text(by_recipient(pipe)[BOB])
    assert f"{local:%Y-%m-%d %H:%M} America/New_York" in answers
    assert "UTC" not in answers
    assert bob_seat


def test_a_players_note_keeps_its_own_words_even_when_they_look_like_a_time(pipe: Pipeline) -> None:
    _, bob, alice_seat, _ = begin_game(pipe, "days 3")
    pipe.send(BOB, bob, "set timezone Asia/Tokyo")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4\nsay see you at 2026-03-02 10:00 UTC")
    bob_mail = text(by_recipient(pipe)[BOB])
    assert "> see you at 2026-03-02 10:00 UTC" in bob_mail  # her words, as written
    assert "Asia/Tokyo" in bob_mail  # and the server's times in his zone


# -- digest ---------------------------------------------------------------------------------------------


def test_a_digest_player_gets_one_mail_at_the_digest_hour_listing_the_games_where_it_is_their_move(
        pipe: Pipeline, time: FakeTime) -> None:
    alice, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")  # game 1: alice white
    pipe.send(BOB, bob, "challenge alice hyperspace white days 3")  # game 2: bob white
    number = re.search(r"accept (\d+)", text(by_recipient(pipe)[ALICE]))
    assert number is not None
    pipe.send(ALICE, alice, f"accept {number.group(1)}")
    started = by_recipient(pipe)
    bob_seat_2 = next(str(m["Reply-To"]) for m in started[BOB] if "has started" in body_of(m))
    pipe.send(BOB, bob, "set mail digest\nset digest-hour 8")
    assert "Your next digest: 2026-03-02 08:00 UTC." in " ".join(text(by_recipient(pipe)[BOB]).split())

    pipe.send(BOB, bob_seat_2, "Pe2-e4")  # his own move: the answer comes at once
    mails = by_recipient(pipe)
    assert "You played 1. Pe2-e4" in text(mails[BOB])
    pipe.send(ALICE, alice_seat, "Pe2-e4\nsay your move, bob")  # game 1: now bob's move; held
    mails = by_recipient(pipe)
    assert BOB not in mails and ALICE in mails
    with pipe.db.read() as session:
        assert len(session.exec(select(DigestItem)).all()) == 1

    time.now = T0 + timedelta(hours=12)  # midnight: nothing due
    sweep(pipe)
    assert BOB not in by_recipient(pipe)
    time.now = T0 + timedelta(hours=20)  # 08:00 UTC on 2 March
    sweep(pipe)
    sweep(pipe)  # a second sweep at the same moment sends nothing more
    mails = by_recipient(pipe)
    assert len(mails[BOB]) == 1
    digest = mails[BOB][0]
    body = body_of(digest)
    assert digest["Subject"] == "[pbem] your daily digest: 1 game where it is your move"
    assert "== #1 alice vs bob (Hyperspace Chess)" in body
    assert "#2 bob vs alice" not in body  # alice's move there
    assert f"Send your move to: {bob_seat}" in body
    assert "Moves since your last digest: 1. Pe2-e4" in body
    assert "alice played 1. Pe2-e4" in body and "> your move, bob" in body
    assert digest["Auto-Submitted"] == "auto-generated"
    images = [part for part in digest.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1 and f"cid:{images[0]['Content-ID'].strip('<>')}" in html_of(digest)
    with pipe.db.read() as session:
        assert session.exec(select(DigestItem)).all() == []

    pipe.send(BOB, bob, "games")  # an answer to his own mail still comes at once
    assert "Games of bob" in text(by_recipient(pipe)[BOB])
    time.now = T0 + timedelta(hours=44)  # the next day: his move still waits, so it is listed again
    sweep(pipe)
    digests = [m for m in by_recipient(pipe)[BOB] if m["Subject"].startswith("[pbem] your daily digest")]
    assert len(digests) == 1 and "Moves since your last digest" not in body_of(digests[0])


def test_a_digest_player_still_gets_reminders_and_the_end_of_a_game_at_once(pipe: Pipeline, time: FakeTime) -> None:
    _, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")
    pipe.send(BOB, bob, "set mail digest")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    assert BOB not in by_recipient(pipe)
    time.now = T0 + timedelta(hours=18)  # the first reminder is at half his three days
    sweep(pipe)
    assert BOB not in by_recipient(pipe)
    time.now = T0 + timedelta(days=1.6)
    sweep(pipe)
    mails = by_recipient(pipe)
    reminders = [m for m in mails.get(BOB, []) if "Reminder: your move in game 1" in body_of(m)]
    assert len(reminders) == 1
    pipe.send(ALICE, alice_seat, "resign")
    mails = by_recipient(pipe)
    assert any("alice resigned" in body_of(m) for m in mails[BOB])
    assert bob_seat


def test_back_to_each_sends_what_was_held_at_once(pipe: Pipeline, time: FakeTime) -> None:
    _, bob, alice_seat, _ = begin_game(pipe, "days 3")
    pipe.send(BOB, bob, "set mail digest")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    pipe.send(BOB, bob, "set mail each")
    assert len(by_recipient(pipe)[BOB]) == 1  # the answer
    sweep(pipe)
    mails = by_recipient(pipe)
    assert len(mails[BOB]) == 1 and "alice played 1. Pe2-e4" in body_of(mails[BOB][0])
    pipe.send(ALICE, alice_seat, "say hello")  # a mail of its own again
    assert "hello" in text(by_recipient(pipe)[BOB])


# -- pictures and board ---------------------------------------------------------------------------------


def test_pictures_off_makes_game_mails_plain_text(pipe: Pipeline) -> None:
    _, bob, alice_seat, _ = begin_game(pipe, "days 3")
    pipe.send(BOB, bob, "set pictures off")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    mails = by_recipient(pipe)
    assert mails[BOB][0].get_content_type() == "text/plain"
    assert mails[ALICE][0].get_content_type() == "text/plain"  # her reply is a plain result anyway
    pipe.send(ALICE, alice_seat, "resign")
    mails = by_recipient(pipe)
    final = mails[BOB][-1]
    assert not [part for part in final.walk() if part.get_content_maintype() == "image"]
    assert [part for part in final.walk() if part.get_filename() == "pbem-game-1.pgn"]


def test_a_player_with_pictures_off_costs_no_picture(pipe: Pipeline, monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture's board is not worked out for a reader who turned pictures off (it would be dropped): their
    game mails, their final reply and an observer's mails are the text alone, and the other side's still
    carry the picture."""
    import pbem.app.game_mail as game_mail
    import pbem.app.observers as observers
    import pbem.worker as worker

    _, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")
    carol = register(pipe, CAROL, "carol")
    for sender, address in ((BOB, bob), (CAROL, carol)):
        pipe.send(sender, address, "set pictures off")
    pipe.send(CAROL, carol, "observe 1")
    by_recipient(pipe)
    built: list[object] = []
    for module in (game_mail, observers, worker):
        real = module.html_source
        monkeypatch.setattr(module, "html_source", lambda *args, real=real, **kw: built.append(args[2]) or real(
            *args, **kw))
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    mails = by_recipient(pipe)
    assert built == [] and mails[BOB][0].get_content_type() == "text/plain"
    assert mails[CAROL][0].get_content_type() == "text/plain"
    pipe.send(BOB, bob_seat, "resign")  # bob's reply ends the game: his last mail, still plain
    mails = by_recipient(pipe)
    assert [str(audience) for audience in built] == ["white"]  # alice's final mail alone has the picture
    assert mails[BOB][-1].get_content_type() == "multipart/mixed"  # the record and the GIF, no picture
    assert not [part for part in mails[BOB][-1].walk() if part.get_content_type() == "image/png"]
    assert [part for part in mails[ALICE][-1].walk() if part.get_content_type() == "image/png"]


def test_pictures_turned_on_later_in_the_same_mail_still_count(pipe: Pipeline) -> None:
    """The picture is left out at once only for readers whose setting this mail cannot change: the sender's
    own 'set pictures on' further down still gives the game mails above it their picture."""
    alice = register(pipe, ALICE, "alice")
    bob = register(pipe, BOB, "bob")
    pipe.send(BOB, bob, "set pictures off")
    pipe.send(ALICE, alice, "challenge bob hyperspace white days 3")
    number = re.search(r"accept (\d+)", text(by_recipient(pipe)[BOB]))
    assert number
    pipe.send(BOB, bob, f"accept {number.group(1)}\nset pictures on")
    pictured = [message for message in by_recipient(pipe)[BOB]
                if any(part.get_content_type() == "image/png" for part in message.walk())]
    assert len(pictured) == 1 and "has started" in body_of(pictured[0])  # the game's first mail, not the reply


def _png(message: EmailMessage) -> bytes:
    images = [part for part in message.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    data = images[0].get_payload(decode=True)
    assert isinstance(data, bytes)
    return data


def _diagram_ranks(body: str) -> list[str]:
    return re.findall(r"^\s*([1-8])\s", body, re.MULTILINE)


def test_board_white_bottom_turns_blacks_diagram_and_picture(pipe: Pipeline) -> None:
    _, bob, alice_seat, bob_seat = begin_game(pipe, "days 3")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    turned = by_recipient(pipe)[BOB][0]
    pipe.send(BOB, bob, "set board white-bottom")
    by_recipient(pipe)
    pipe.send(BOB, bob_seat, "Pe7-e5")
    pipe.send(ALICE, alice_seat, "Ng1-f3")
    mails = by_recipient(pipe)
    upright = mails[BOB][-1]  # the mail about her move (his own reply comes first)
    assert _diagram_ranks(body_of(turned))[0] == "1"  # his own side at the bottom: rank 1 on top
    assert _diagram_ranks(body_of(upright))[0] == "8"  # White at the bottom: rank 8 first
    pipe.send(ALICE, alice_seat, "board")
    alice_board = by_recipient(pipe)[ALICE][0]
    assert _diagram_ranks(body_of(alice_board))[0] == "8"
    assert _png(turned) != _png(upright)


# -- observers ------------------------------------------------------------------------------------------


def test_notify_observed_end_sends_an_observer_only_the_result(pipe: Pipeline) -> None:
    _, _, alice_seat, _ = begin_game(pipe, "days 3")
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "observe 1\nset notify-observed end")
    by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "Pe2-e4")
    assert CAROL not in by_recipient(pipe)
    pipe.send(ALICE, alice_seat, "resign")
    mails = by_recipient(pipe)
    assert len(mails[CAROL]) == 1 and "resigned" in body_of(mails[CAROL][0])
