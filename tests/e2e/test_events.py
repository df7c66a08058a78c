"""Tournaments end to end: the organiser's `pbem event` commands, players' mails, the standings mails."""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlmodel import select

from pbem.store.event_models import Event
from pbem.store.models import Game
from tests.helpers.events import config_file, organiser, standings_rows
from tests.helpers.harness import Harness, Player, body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import register


def game_number(message: EmailMessage) -> int:
    found = re.match(r"\[pbem #(\d+)\]", str(message["Subject"]))
    assert found, message["Subject"]
    return int(found.group(1))




# -- Swiss, 6 players, 3 rounds, through the mail pipeline ------------------------------------



def strength(handle: str) -> int:
    return int(handle[1:])


def test_swiss_of_six_players_over_three_rounds_fed_by_resignations(pipe: Pipeline, tmp_path: Path) -> None:
    config = config_file(tmp_path, pipe.db.url, "pipeline-key")
    handles = [f"p{n}" for n in range(1, 7)]
    emails = {h: f"{h}@players.example" for h in handles}
    personal = {h: register(pipe, emails[h], h) for h in handles}
    status, out, err = organiser(config, "create", "cup", "--variant", "hyperspace", "--format", "swiss",
                                 "--rounds", "3", "--time", "days 3")
    assert status == 0, err
    for handle in handles:
        pipe.send(emails[handle], personal[handle], "join cup")
    replies = {recipient: body_of(m) for recipient, m in pipe.drain_outbox()}
    assert all("You are entered in cup" in replies[emails[h]] for h in handles), replies
    status, out, err = organiser(config, "start", "cup")
    assert status == 0 and "started with 6 players" in out, err

    met: set[frozenset[str]] = set()
    by_email = {e: h for h, e in emails.items()}
    for round_ in (1, 2, 3):
        mails = pipe.drain_outbox()
        announcements = [(r, body_of(m)) for r, m in mails if f"Round {round_} of 3" in body_of(m)]
        assert sorted(r for r, _ in announcements) == sorted(emails.values()), round_
        seats: dict[int, dict[str, str]] = {}
        for recipient, message in mails:
            if "has started" in body_of(message):
                seats.setdefault(game_number(message), {})[by_email[recipient]] = str(message["Reply-To"])
        assert len(seats) == 3
        for number, players in seats.items():
            pair = frozenset(players)
            assert pair not in met, f"rematch in round {round_}: {sorted(pair)}"
            met.add(pair)
            loser = min(players, key=strength)  # the higher number always wins, by the loser's resignation
            pipe.send(emails[loser], players[loser], "resign")
            if number != max(seats):
                news = [body_of(m) for r, m in pipe.drain_outbox() if "standings" in str(m["Subject"])]
                assert len(news) == 6 and f"Game {number} is over" in news[0]

    finals = {r: body_of(m) for r, m in pipe.drain_outbox() if "final result" in str(m["Subject"])}
    assert sorted(finals) == sorted(emails.values())
    final = finals[emails["p1"]]
    assert "cup is over. Winner: p6" in final
    with pipe.db.read() as session:
        games = session.exec(select(Game).where(Game.event_id.is_not(None))).all()  # type: ignore[union-attr]
        assert len(games) == 9 and all(g.status == "finished" and g.reason == "resignation" for g in games)
        event = session.exec(select(Event)).one()
        assert event.status == "finished" and event.current_round == 3
    # The table agrees with the games: points are wins; Buchholz is the opponents' points.
    points = dict.fromkeys(handles, 0.0)
    opponents: dict[str, list[str]] = {h: [] for h in handles}
    for pair in met:
        low, high = sorted(pair, key=strength)
        points[high] += 1
        opponents[low].append(high)
        opponents[high].append(low)
    rows = standings_rows(final)
    assert rows[0][1] == "p6" and len(rows) == 6
    assert "Buch" in final and "Med" in final and "SB" in final
    for row in rows:
        handle = row[1]
        assert float(row[4]) == points[handle], row
        assert float(row[5]) == sum(points[o] for o in opponents[handle]), row
    assert [float(row[4]) for row in rows] == sorted((float(row[4]) for row in rows), reverse=True)
    assert "Crosstable:" in final and "R3" in final


# -- round robin of 4 players over real SMTP --------------------------------------------------


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path)
    yield h
    h.close()


def test_round_robin_of_four_by_mail_ends_with_the_standings_in_tiebreak_order(harness: Harness,
                                                                               tmp_path: Path) -> None:
    config = config_file(tmp_path, harness.environ["PBEM_DATABASE_URL"], harness.environ["PBEM_SERVER_SECRET_KEY"])
    names = ("alice", "bob", "carol", "dave")
    players = {name: Player(harness, f"{name}@players.example") for name in names}
    welcome = {name: players[name].register(name) for name in ("alice", "bob", "carol")}
    status, _, err = organiser(config, "create", "spring", "--variant", "hyperspace", "--format", "round-robin",
                               "--time", "days 5")
    assert status == 0, err
    # The organiser enters alice by handle and invites dave, who has no account yet.
    status, out, err = organiser(config, "add", "spring", "alice", "dave@players.example")
    assert status == 0 and "alice: entered" in out and "invited" in out, err
    assert "entered you in spring" in body_of(players["alice"].next_mail())
    invitation = players["dave"].next_mail()
    assert "join spring" in body_of(invitation) and str(invitation["Reply-To"]) == harness.public
    welcome["dave"] = players["dave"].register("dave")
    for name in ("bob", "carol", "dave"):
        players[name].reply(welcome[name], "join spring")
        assert "You are entered in spring" in body_of(players[name].next_mail())
    # Registration is open until the start: the standings by mail say so.
    players["bob"].reply(welcome["bob"], "standings spring")
    assert "registration open, 4 entered" in body_of(players["bob"].next_mail())
    status, out, err = organiser(config, "start", "spring")
    assert status == 0 and "started with 4 players" in out, err

    seats: dict[frozenset[str], dict[str, EmailMessage]] = {}
    for name in names:
        player = players[name]
        for _ in range(3):
            mail = player.next_mail(lambda m: "has started" in body_of(m))
            white, black = re.search(r"\] (\S+) vs (\S+) ", str(mail["Subject"])).groups()  # type: ignore[union-attr]
            seats.setdefault(frozenset((white, black)), {})[name] = mail
    assert len(seats) == 6
    # alice beats bob and carol, dave beats alice, bob beats carol; bob-dave and carol-dave are drawn.
    results = [("alice", "bob", "bob"), ("alice", "carol", "carol"), ("dave", "alice", "alice"),
               ("bob", "carol", "carol")]
    for _winner, _loser, resigner in results:
        pair = frozenset((_winner, _loser))
        players[resigner].reply(seats[pair][resigner], "resign")
    for a, b in (("bob", "dave"), ("carol", "dave")):
        pair = frozenset((a, b))
        players[a].reply(seats[pair][a], "draw")
        players[a].next_mail(lambda m: "Draw offered" in body_of(m))
        players[b].reply(seats[pair][b], "draw")

    final = body_of(players["carol"].next_mail(lambda m: "final result" in str(m["Subject"]), timeout=60))
    assert "spring is over. Winner: alice" in final
    rows = standings_rows(final)
    # alice and dave have 2 points: alice has two wins, dave one (dave's higher Sonneborn-Berger and his win
    # over alice come after the number of wins, ICCF's first tiebreak). Head-to-head is counted among the
    # players still tied when it is reached: nobody here, so 0 everywhere.
    assert [(row[0], row[1], row[4], row[5], row[6], row[7]) for row in rows] == [
        ("1", "alice", "2", "2", "2", "0"),
        ("2", "dave", "2", "1", "3", "0"),
        ("3", "bob", "1.5", "1", "1.5", "0"),
        ("4", "carol", "0.5", "0", "1", "0"),
    ]
    header = final.split("Standings:\n", 1)[1].splitlines()[0].split()
    assert header[-3:] == ["Wins", "SB", "H2H"]
    for name in ("alice", "bob", "dave"):  # everybody gets the final result
        assert "Winner: alice" in body_of(players[name].next_mail(lambda m: "final result" in str(m["Subject"])))
    crosstable = final.split("Crosstable:\n", 1)[1]
    assert re.search(r"1\s+alice\s+\*\s+0\s+1\s+1\s+2\b", crosstable), crosstable
