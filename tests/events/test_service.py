"""Running events through the worker and the organiser's commands: withdrawals, adjudication, knockouts, ratings."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.engine.base import Seat
from pbem.store.event_models import Event, EventPlayer, Rating
from pbem.store.models import Account, Game
from tests.helpers.events import config_file, organiser, standings_rows
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import register

NAMES = ("alice", "bob", "carol", "dave")


@pytest.fixture
def pipe(tmp_path: Path, database_url: str | None) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, database_url=database_url)
    yield p
    p.close()


@pytest.fixture
def config(pipe: Pipeline, tmp_path: Path) -> Path:
    return config_file(tmp_path, pipe.db.url, "pipeline-key")


def email(name: str) -> str:
    return f"{name}@players.example"


def run(config: Path, *argv: str) -> str:
    status, out, err = organiser(config, *argv)
    assert status == 0, err
    return out


def started(pipe: Pipeline, config: Path, names: tuple[str, ...], *create: str) -> dict[str, str]:
    """Register ``names``, create event 'ev' with ``create`` options, enter everybody and start it."""
    personal = {name: register(pipe, email(name), name) for name in names}
    run(config, "create", "ev", "--variant", "hyperspace", *create)
    run(config, "add", "ev", *names)
    run(config, "start", "ev")
    return personal


def games(pipe: Pipeline, *statuses: str) -> list[tuple[int, str, str, str, str, int]]:
    """(id, white, black, status, result, round) of the event's games."""
    with pipe.db.read() as session:
        handles = {a.id: a.handle for a in session.exec(select(Account))}
        found = session.exec(select(Game).where(col(Game.event_id).is_not(None)).order_by(col(Game.id))).all()
        return [(g.id or 0, handles[g.white_id], handles[g.black_id], g.status, g.result, g.event_round)
                for g in found if not statuses or g.status in statuses]


def between(pipe: Pipeline, a: str, b: str) -> tuple[int, str, str, str, str, int]:
    return next(g for g in games(pipe) if {g[1], g[2]} == {a, b} and g[3] == "active")


def resign(pipe: Pipeline, game_id: int, loser: str) -> None:
    """``loser`` resigns game ``game_id`` by mail to their seat address."""
    with pipe.db.read() as session:
        game = session.get(Game, game_id)
        account = session.exec(select(Account).where(Account.handle == loser)).one()
        assert game is not None and account.id is not None
        seat = Seat.WHITE if game.white_id == account.id else Seat.BLACK
        address = pipe.addresses.seat(game_id, seat, account.id)
    pipe.send(email(loser), address, "resign")


def subjects(pipe: Pipeline, to: str) -> list[str]:
    return [str(m["Subject"]) for r, m in pipe.drain_outbox() if r == email(to)]


def test_a_withdrawal_before_half_the_games_annuls_every_result(pipe: Pipeline, config: Path) -> None:
    started(pipe, config, NAMES, "--format", "round-robin")
    resign(pipe, between(pipe, "alice", "dave")[0], "dave")  # dave finishes 1 of his 3 games
    pipe.drain_outbox()
    out = run(config, "withdraw", "ev", "dave")
    assert "after 1 of 3 games: all their results are annulled" in out
    forfeited = [g for g in games(pipe) if "dave" in g[1:3] and g[3] == "finished"]
    assert len(forfeited) == 3
    standings = run(config, "standings", "ev")
    assert "Withdrawn, results annulled: dave" in standings
    rows = standings_rows("Standings:\n" + standings.split("\n\n", 1)[1])
    assert sorted(row[1] for row in rows) == ["alice", "bob", "carol"]
    # alice's win over dave no longer counts: all three share first place on 0 points.
    assert all(row[0] == "1=" and row[4] == "0" for row in rows)
    # The forfeits were not rated, the game dave played was.
    with pipe.db.read() as session:
        rated = {r.account_id: r.games for r in session.exec(select(Rating))}
        dave = session.exec(select(Account.id).where(Account.handle == "dave")).one()
    assert rated[dave] == 1
    mails = pipe.drain_outbox()
    assert any("forfeit: dave withdrew" in body_of(m) for r, m in mails if r == email("bob"))


def test_a_withdrawal_after_half_the_games_forfeits_the_rest(pipe: Pipeline, config: Path) -> None:
    started(pipe, config, NAMES, "--format", "round-robin")
    resign(pipe, between(pipe, "alice", "dave")[0], "alice")
    resign(pipe, between(pipe, "bob", "dave")[0], "bob")
    out = run(config, "withdraw", "ev", "dave")
    assert "their unfinished games are forfeited" in out
    crosstable = run(config, "crosstable", "ev")
    carol = next(line for line in crosstable.splitlines() if " carol " in line)
    assert "+" in carol  # carol's forfeit win over dave
    standings = run(config, "standings", "ev")
    assert "dave" in standings and "(withdrawn)" in standings
    rows = {row[1]: row for row in standings_rows("Standings:\n" + standings.split("\n\n", 1)[1])}
    assert rows["dave"][4] == "2" and rows["carol"][4] == "1"
    # The other three play on; when they are done the event ends and dave hears the final result too.
    for a, b in (("alice", "bob"), ("alice", "carol"), ("bob", "carol")):
        resign(pipe, between(pipe, a, b)[0], b)
    assert "[pbem event ev] final result" in subjects(pipe, "dave")
    with pipe.db.read() as session:
        assert session.exec(select(Event)).one().status == "finished"


def test_a_round_deadline_then_adjudication_completes_the_swiss_round(pipe: Pipeline, config: Path) -> None:
    started(pipe, config, NAMES, "--format", "swiss", "--rounds", "2", "--round-days", "0.00001")
    first = games(pipe)
    assert len(first) == 2 and {g[5] for g in first} == {1}
    time.sleep(1)  # the round deadline (under a second) passes
    assert "PASSED" in run(config, "list")
    resign(pipe, first[0][0], first[0][2])
    pipe.drain_outbox()
    assert "1-0" in run(config, "adjudicate", "ev", str(first[1][0]), "1-0")
    mails = pipe.drain_outbox()
    assert any("adjudicated by the organiser" in body_of(m) for _, m in mails)
    assert sum("Round 2 of 2" in body_of(m) for _, m in mails) == 4
    second = [g for g in games(pipe) if g[5] == 2]
    assert len(second) == 2
    met = {frozenset(g[1:3]) for g in first}
    assert not any(frozenset(g[1:3]) in met for g in second)
    status, _, err = organiser(config, "adjudicate", "ev", str(first[1][0]), "0-1")
    assert status == 1 and "already over" in err


def test_a_tied_knockout_match_goes_on_with_a_pair_of_extra_games(pipe: Pipeline, config: Path) -> None:
    started(pipe, config, ("alice", "bob"), "--format", "knockout", "--games", "2")
    pair = games(pipe)
    assert len(pair) == 2 and {(g[1], g[2]) for g in pair} == {("alice", "bob"), ("bob", "alice")}
    resign(pipe, pair[0][0], pair[0][1])  # each wins with Black: 1-1
    resign(pipe, pair[1][0], pair[1][1])
    assert any("the match goes on" in s for s in subjects(pipe, "alice"))
    extra = games(pipe, "active")
    assert len(extra) == 2
    resign(pipe, extra[0][0], "bob")
    resign(pipe, extra[1][0], "alice")
    assert "[pbem event ev] final result" not in subjects(pipe, "alice")  # 2-2: another pair
    extra = games(pipe, "active")
    resign(pipe, extra[0][0], "bob")
    resign(pipe, extra[1][0], "bob")
    final = [body_of(m) for r, m in pipe.drain_outbox() if r == email("bob") and "final" in str(m["Subject"])]
    assert len(final) == 1 and "Winner: alice" in final[0] and "alice goes through (4-2)" in final[0]


def test_joining_by_mail_only_while_registration_is_open(pipe: Pipeline, config: Path) -> None:
    alice = register(pipe, email("alice"), "alice")
    bob = register(pipe, email("bob"), "bob")
    pipe.send(email("alice"), alice, "join nowhere")
    assert "there is no event called 'nowhere'" in body_of(pipe.drain_outbox()[0][1])
    run(config, "create", "ev", "--variant", "hyperspace", "--format", "round-robin")
    pipe.send(email("alice"), pipe.addresses.public, "join ev")
    assert "needs to know who you are" in body_of(pipe.drain_outbox()[0][1])
    pipe.send(email("alice"), alice, "join ev")
    pipe.send(email("alice"), alice, "join ev")
    replies = [body_of(m) for _, m in pipe.drain_outbox()]
    assert "You are entered in ev" in replies[0] and "already entered" in replies[1]
    status, _, err = organiser(config, "start", "ev")
    assert status == 1 and "needs at least 2" in err
    pipe.send(email("bob"), bob, "join ev")
    run(config, "start", "ev")
    register(pipe, email("carol"), "carol")
    with pipe.db.read() as session:
        carol = session.exec(select(Account).where(Account.handle == "carol")).one()
        carol_address = pipe.addresses.personal(carol.id or 0)
    pipe.send(email("carol"), carol_address, "join ev\nstandings ev")
    reply = body_of(pipe.drain_outbox()[0][1])
    assert "registration for ev is closed" in reply and "0 of 1 games finished" in reply
    with pipe.db.read() as session:
        assert len(session.exec(select(EventPlayer)).all()) == 2


def test_organiser_mistakes_exit_with_status_one(pipe: Pipeline, config: Path) -> None:
    run(config, "create", "ev", "--variant", "hyperspace", "--format", "swiss")
    for argv, message in (
        (("create", "ev", "--variant", "hyperspace", "--format", "swiss"), "already an event called 'ev'"),
        (("create", "x1", "--variant", "nochess", "--format", "swiss"), "nochess"),
        (("create", "x2", "--variant", "hyperspace", "--format", "swiss", "--tiebreaks", "koya"), "unknown tiebreak"),
        (("create", "x3", "--variant", "hyperspace", "--format", "swiss", "--time", "weeks 2"), "time"),
        (("add", "ev", "nobody"), "no player with the handle 'nobody'"),
        (("start", "nope"), "no event called 'nope'"),
    ):
        status, out, err = organiser(config, *argv)
        assert status == 1 and message in err and not out, (argv, err)


def test_ratings_of_casual_games_show_in_games(pipe: Pipeline) -> None:
    alice = register(pipe, email("alice"), "alice")
    bob = register(pipe, email("bob"), "bob")
    pipe.send(email("alice"), alice, "challenge bob hyperspace white")
    pipe.drain_outbox()
    pipe.send(email("bob"), bob, "accept 1")
    pipe.drain_outbox()
    resign(pipe, 1, "bob")
    pipe.send(email("bob"), bob, "games")
    reply = body_of(pipe.drain_outbox()[-1][1])
    assert "vs alice (1520?)" in reply and "Hyperspace Chess: 1480? (provisional)" in reply


def test_a_loss_on_time_counts_as_a_loss_and_can_end_the_event(tmp_path: Path) -> None:
    ahead = [timedelta(0)]
    pipe = Pipeline(tmp_path, now=lambda: datetime.now(UTC) + ahead[0])
    try:
        config = config_file(tmp_path, pipe.db.url, "pipeline-key")
        started(pipe, config, ("alice", "bob"), "--format", "round-robin", "--time", "days 1")
        (_, white, black, *_), = games(pipe)
        pipe.drain_outbox()
        ahead[0] = timedelta(days=3)  # White never moves
        assert pipe.sweep() == 1
        finals = {r: body_of(m) for r, m in pipe.drain_outbox() if "final result" in str(m["Subject"])}
        assert sorted(finals) == [email("alice"), email("bob")]
        assert f"Winner: {black}" in finals[email(white)] and "lost on time" in finals[email(white)]
        rows = standings_rows(finals[email(white)])
        assert [(row[1], row[4], row[5]) for row in rows] == [(black, "1", "1"), (white, "0", "0")]
    finally:
        pipe.close()


def test_adjudication_shows_the_engine_beside_the_position_and_the_organiser_may_ask_by_mail(
        pipe: Pipeline, config: Path) -> None:
    from pbem.computer_player import ComputerPlayer

    olga = register(pipe, email("olga"), "olga")
    personal = {name: register(pipe, email(name), name) for name in ("alice", "bob")}
    assert "olga may send 'analyse GAME'" in run(config, "create", "ev", "--variant", "tri-d", "--format",
                                                 "round-robin", "--organiser", "olga")
    run(config, "add", "ev", "alice", "bob")
    run(config, "start", "ev")
    number = games(pipe)[0][0]
    pipe.drain_outbox()
    shown = run(config, "adjudicate", "ev", str(number), "--seconds", "0.5")
    assert "after ply 0" in shown and "Engine: " in shown and "Best move for white:" in shown
    assert "To decide it: pbem event adjudicate ev" in shown and games(pipe)[0][3] == "active"
    # A player may not ask about their own running game; the organiser may ask about any game of theirs.
    pipe.send(email("alice"), personal["alice"], f"analyse {number}")
    assert "still being played" in body_of(pipe.drain_outbox()[0][1])
    pipe.send(email("olga"), olga, f"analyse {number}")
    assert "its analysis follows" in body_of(pipe.drain_outbox()[0][1])
    assert ComputerPlayer(pipe.db, pipe.services).play_due_inline() == 1
    (to, analysis), = pipe.drain_outbox()
    assert to == email("olga") and "Best move for white:" in body_of(analysis)
    decided = run(config, "adjudicate", "ev", str(number), "1/2-1/2", "--seconds", "0.5")
    assert "Engine: " in decided and f"Game {number} adjudicated 1/2-1/2." in decided
