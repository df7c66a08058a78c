"""The computer as a player, through the mail pipeline: challenges, its turns, answers, ratings, analyses."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.app.computer import DRAW_ACCEPT_AT, LEVEL_RATINGS, carry_out, plan_turn
from pbem.app.context import Context
from pbem.app.game_state import COMPUTER_EMAIL
from pbem.app.thinking import Answer
from pbem.computer_player import ComputerPlayer, computer_work_waiting
from pbem.engine.base import Seat
from pbem.store.event_models import Rating
from pbem.store.models import Account, AnalysisRequest, ComputerRating, Game, MoveRecord, OutboxItem
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, only_mail, register
from tests.helpers.web import serving


@pytest.fixture
def pipe(tmp_path: Path) -> Pipeline:
    return Pipeline(tmp_path)


def _game(pipe: Pipeline, number: int = 1) -> Game:
    with pipe.db.read() as session:
        game = session.get(Game, number)
        assert game is not None
        session.expunge(game)
        return game


def _challenge(pipe: Pipeline, terms: str, variant: str = "outer-space") -> tuple[str, str]:
    """alice challenges the computer; her personal address and the reply's text."""
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, f"challenge computer {variant} {terms}")
    mails = pipe.drain_outbox()
    replies = [body_of(m) for r, m in mails if "Results:" in body_of(m)]
    assert all(r == ALICE for r, _ in mails), "a mail went to somebody else than alice"
    return alice, replies[0]


def _seat(pipe: Pipeline, game: Game, seat: Seat) -> str:
    account = game.white_id if seat is Seat.WHITE else game.black_id
    return pipe.addresses.seat(game.id or 0, seat, account)


def test_challenge_computer_starts_a_game_at_once_and_never_mails_the_computer(pipe: Pipeline) -> None:
    _alice, reply = _challenge(pipe, "white level 2")
    assert "Game 1 against pbem computer (level 2) has started: you play white" in reply
    game = _game(pipe)
    assert game.extras["computer"] == {"seat": "black", "level": 2}
    assert game.computer_due_at is None  # white, alice, moves first
    with pipe.db.read() as session:
        assert session.exec(select(OutboxItem).where(OutboxItem.recipient == COMPUTER_EMAIL)).first() is None


def test_the_computer_answers_a_move_in_the_thread_and_its_clock_has_no_deadline_events(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 1")
    game = _game(pipe)
    assert not computer_work_waiting(pipe.db)  # the server's computer loop is not woken after this round
    pipe.send(ALICE, _seat(pipe, game, Seat.WHITE), "C1a1-1a2")
    pipe.drain_outbox()
    game = _game(pipe)
    assert game.computer_due_at is not None and game.next_event_at is None  # its turn: no reminders, no timeout
    assert computer_work_waiting(pipe.db)  # after this one it is
    assert ComputerPlayer(pipe.db, pipe.services).play_due_inline() == 1
    assert not computer_work_waiting(pipe.db)
    news = only_mail(pipe, ALICE)
    assert "pbem computer (level 1) played 1..." in body_of(news)
    assert f"<pbem.game-1@{pipe.addresses.domain}>" in str(news["References"])
    game = _game(pipe)
    assert game.ply == 2 and game.computer_due_at is None and game.next_event_at is not None
    assert ComputerPlayer(pipe.db, pipe.services).play_due_inline() == 0  # nothing is played twice


def test_the_computer_moves_first_as_white_and_a_sweep_long_after_does_not_time_it_out(tmp_path: Path) -> None:
    moment = [datetime.now(UTC)]
    pipe = Pipeline(tmp_path, now=lambda: moment[0])
    _challenge(pipe, "black level 1 days 1")
    assert _game(pipe).computer_due_at is not None
    moment[0] += timedelta(days=30)  # the server was down for a month
    assert pipe.sweep() == 0
    assert _game(pipe).status == "active"
    ComputerPlayer(pipe.db, pipe.services).play_due_inline()
    assert "pbem computer (level 1) played 1." in body_of(only_mail(pipe, ALICE))


def test_the_level_and_the_reserved_handle_are_checked(pipe: Pipeline) -> None:
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "challenge computer tri-d level 9")
    assert "level is a number from 1 to 5, not '9'" in body_of(only_mail(pipe, ALICE))
    pipe.send(BOB, pipe.addresses.public, "register computer")
    assert "reserved for the server's engine" in body_of(only_mail(pipe, BOB))


def test_a_switched_off_computer_refuses_challenges(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path, PBEM_COMPUTER_ENABLED="false")
    alice = register(pipe, ALICE, "alice")
    pipe.send(ALICE, alice, "challenge computer voidrider")
    assert "the computer does not play on this server" in body_of(only_mail(pipe, ALICE))


def test_a_search_of_a_position_that_changed_is_dropped(pipe: Pipeline) -> None:
    _challenge(pipe, "black level 1")
    with pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None
        plan = plan_turn(Context(session=session, services=pipe.services), game, 1.0)
    assert plan is not None
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.BLACK), "resign")  # while the computer thinks
    pipe.drain_outbox()
    answer = Answer("C1a1-1a2", ("C1a1-1a2",), 0, 1, 10, 0.1)
    with pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None
        done = carry_out(Context(session=session, services=pipe.services), game, plan, answer)
    assert done.startswith("dropped")
    with pipe.db.read() as session:
        assert session.exec(select(MoveRecord)).first() is None


def _offer_draw_then_answer(pipe: Pipeline, score: int) -> str:
    """alice (white) moves and offers a draw; the computer's search says ``score``; what it did."""
    _challenge(pipe, "white level 1")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "C1a1-1a2\ndraw")
    pipe.drain_outbox()
    with pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None and game.draw_offer == "white"
        ctx = Context(session=session, services=pipe.services)
        plan = plan_turn(ctx, game, 1.0)
        assert plan is not None
        engine_move = "C1a8-1a7"
        done = carry_out(ctx, game, plan, Answer(engine_move, (engine_move,), score, 3, 100, 0.1))
        from pbem.app.secrecy import queue_outgoing
        queue_outgoing(ctx)
    return done


def test_the_computer_accepts_a_draw_when_it_stands_worse(pipe: Pipeline) -> None:
    done = _offer_draw_then_answer(pipe, DRAW_ACCEPT_AT - 1)
    assert done.startswith("accepted the draw offer")
    assert _game(pipe).result == "1/2-1/2"
    assert "drawn" in body_of(only_mail(pipe, ALICE)).lower()


def test_the_computer_plays_on_when_it_does_not_stand_worse(pipe: Pipeline) -> None:
    done = _offer_draw_then_answer(pipe, 0)
    assert "declining the draw offer" in done
    game = _game(pipe)
    assert game.status == "active" and game.draw_offer == "" and game.ply == 2
    assert "Your draw offer lapsed" in body_of(only_mail(pipe, ALICE))


def test_an_offer_on_the_players_own_turn_is_answered_at_once(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 1")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "draw")
    pipe.drain_outbox()
    ComputerPlayer(pipe.db, pipe.services).play_due_inline()
    notice = body_of(only_mail(pipe, ALICE))
    assert "pbem computer (level 1) declines your draw offer" in notice  # an even position: no reason to accept
    game = _game(pipe)
    assert game.draw_offer == "" and game.computer_due_at is None and game.status == "active"


def test_takebacks_are_refused_in_rated_games_and_agreed_in_unrated_ones(tmp_path: Path) -> None:
    for rated, expected in (("", "does not take back moves in rated games"), ("option rated=no", "Takeback agreed")):
        (tmp_path / (rated or "rated")).mkdir()
        pipe = Pipeline(tmp_path / (rated or "rated"))
        _challenge(pipe, f"white level 1 {rated}")
        seat = _seat(pipe, _game(pipe), Seat.WHITE)
        pipe.send(ALICE, seat, "C1a1-1a2")
        ComputerPlayer(pipe.db, pipe.services).play_due_inline()
        pipe.drain_outbox()
        pipe.send(ALICE, seat, "takeback")
        assert expected in body_of(only_mail(pipe, ALICE))
        assert _game(pipe).ply == (2 if not rated else 0)


def test_a_game_against_the_computer_is_rated_on_its_own_list(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 4")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "resign")
    with pipe.db.read() as session:
        alice = session.exec(select(Account).where(Account.handle == "alice")).one()
        assert session.exec(select(Rating)).all() == []  # the players' list is untouched
        rating = session.exec(select(ComputerRating).where(ComputerRating.account_id == alice.id)).one()
        assert rating.games == 1 and rating.rating < 1500  # lost to the level 4 anchor
        assert not session.exec(select(ComputerRating).where(ComputerRating.account_id != alice.id)).all()
    assert LEVEL_RATINGS[4] > 1500


def test_analyse_is_refused_during_a_game_and_mailed_after_it(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 1", variant="tri-d")
    seat = _seat(pipe, _game(pipe), Seat.WHITE)
    pipe.send(ALICE, seat, "analyse")
    assert "still being played" in body_of(only_mail(pipe, ALICE))
    pipe.send(ALICE, seat, "resign")
    pipe.drain_outbox()
    assert not computer_work_waiting(pipe.db)  # the game is over, nothing asked yet
    asked = pipe.send(ALICE, seat, "analyse")
    assert "its analysis follows in a mail of its" in body_of(only_mail(pipe, ALICE))
    assert computer_work_waiting(pipe.db)  # the analysis is work waiting for the computer
    assert ComputerPlayer(pipe.db, pipe.services).play_due_inline() == 1
    assert not computer_work_waiting(pipe.db)
    analysis = only_mail(pipe, ALICE)
    text = body_of(analysis)
    assert "The engine's view of game 1" in text and "Best move for white:" in text and "for White" in text
    assert str(analysis["In-Reply-To"]) == asked
    with pipe.db.read() as session:
        assert session.exec(select(AnalysisRequest)).one().done_at is not None
    assert ComputerPlayer(pipe.db, pipe.services).play_due_inline() == 0  # mailed once


def test_rematch_starts_the_next_game_against_the_computer_with_colours_swapped(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 2")
    seat = _seat(pipe, _game(pipe), Seat.WHITE)
    pipe.send(ALICE, seat, "resign")
    pipe.drain_outbox()
    pipe.send(ALICE, seat, "rematch")
    assert "Game 2 against pbem computer (level 2) has started: you play black" in body_of(
        next(m for r, m in pipe.drain_outbox() if "Results:" in body_of(m)))
    assert _game(pipe, 2).extras["computer"] == {"seat": "white", "level": 2}


def test_the_computer_list_is_on_the_rating_page_and_in_the_api_apart_from_the_players_list(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 1")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "resign")
    with serving(pipe) as site:
        page = site.get("/ratings/outer-space").text
        assert "Against the computer" in page and "level 1 1000" in page
        players, computer = page.split("Against the computer")
        assert "alice" not in players and 'href="/players/alice"' in computer
        game = site.get("/games/1").text
        assert "pbem computer (level 1)" in game and 'href="/players/computer"' in game
        assert "pbem computer (level 1)" in site.get("/players/computer").text
        document = json.loads(site.get("/api/ratings/outer-space").text)
        assert document["ratings"] == [] and document["computer"][0]["handle"] == "alice"
        assert document["computer"][0]["games"] == 1


def test_the_question_sent_to_a_worker_process_holds_no_secret_of_the_player(pipe: Pipeline) -> None:
    _challenge(pipe, "white level 1", variant="hyperspace")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "Nb1@2 {c3}")
    receipt = body_of(only_mail(pipe, ALICE))
    nonce = re.search(r"nonce:? ([0-9a-f]{32})", receipt)
    assert "c3" in receipt and nonce, receipt
    with pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None
        plan = plan_turn(Context(session=session, services=pipe.services), game, 1.0)
    assert plan is not None
    pool = json.dumps(plan.question.view["pool"])
    assert "b1" in pool  # the public part: which piece left, from where
    assert "c3" not in pool and nonce.group(1) not in json.dumps(plan.question.view)


def test_a_refused_computer_move_is_reported_without_its_secret(pipe: Pipeline) -> None:
    from pbem.app.games import play_computer_move

    _challenge(pipe, "white level 1", variant="hyperspace")
    pipe.send(ALICE, _seat(pipe, _game(pipe), Seat.WHITE), "Pe2-e4")
    pipe.drain_outbox()
    with pytest.raises(RuntimeError) as raised, pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None
        play_computer_move(Context(session=session, services=pipe.services), game, Seat.BLACK, "Ke8@2 {h3}")
    assert "h3" not in str(raised.value) and raised.value.__cause__ is None and raised.value.__suppress_context__


def test_a_computer_turn_that_keeps_failing_is_told_to_the_player_once(pipe: Pipeline,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    _challenge(pipe, "black level 1")  # the computer is White and owes the first move
    with pipe.db.transaction() as session:
        game = session.get(Game, 1)
        assert game is not None
        game.extras = {**game.extras, "computer": {**game.extras["computer"], "level": 9}}  # no such level
        session.add(game)
    player = ComputerPlayer(pipe.db, pipe.services)

    async def tries(count: int) -> None:
        try:
            for _ in range(count):
                await player._turn("game:1")  # each one fails in the search process
        finally:
            await player.stop()

    with caplog.at_level(logging.ERROR, logger="pbem.computer_player"):
        asyncio.run(tries(2))
        assert pipe.drain_outbox() == []  # two failures: the server keeps trying, nobody told yet
        asyncio.run(tries(2))
    [(to, mail)] = pipe.drain_outbox()  # the third failure tells alice, the fourth says nothing more
    assert to == ALICE
    text = body_of(mail)
    assert text.startswith("pbem computer (level 9) could not make its move in game 1 (3 tries).")
    assert "its operator has been told" in text and "Nothing of the game is lost" in text
    assert max(len(line) for line in text.splitlines()) <= 78
    assert "failed 3 times in a row; the player was told" in caplog.text
    assert _game(pipe).status == "active" and _game(pipe).ply == 0
