"""`pbem admin`: every operator command against a real database (SQLite, and PostgreSQL where it runs), with
players and games made through the mail pipeline."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlmodel import col, select

from pbem.app.context import Context, Result
from pbem.mail.smtpd import store_inbound
from pbem.store.db import Database
from pbem.store.event_models import Rating
from pbem.store.models import Account, Game, InboxItem, MoveRecord, OutboxItem, utcnow
from pbem.store.queues import requeue_failed
from pbem.store.retention import purge_old_mail
from tests.helpers.admin import admin
from tests.helpers.events import config_file, organiser
from tests.helpers.harness import body_of
from tests.helpers.pipeline import Pipeline
from tests.helpers.players import ALICE, BOB, CAROL, begin_game, only_mail, register


@pytest.fixture
def pipe(tmp_path: Path, database_url: str | None) -> Iterator[Pipeline]:
    p = Pipeline(tmp_path, database_url=database_url)
    yield p
    p.close()


@pytest.fixture
def config(pipe: Pipeline, tmp_path: Path) -> Path:
    return config_file(tmp_path, pipe.db.url, "pipeline-key")


def ok(config: Path, *argv: str) -> str:
    status, out, err = admin(config, *argv)
    assert status == 0, err
    return out


def refused(config: Path, *argv: str) -> str:
    """The message of a refused command (exit status 1, nothing on stdout)."""
    status, out, err = admin(config, *argv)
    assert status == 1, (out, err)
    assert out == ""
    return err


def game_row(pipe: Pipeline, game_id: int = 1) -> Game:
    with pipe.db.read() as session:
        game = session.get(Game, game_id)
        assert game is not None
        session.expunge(game)  # kept loaded after the read's rollback
        return game


def account(pipe: Pipeline, handle: str) -> Account:
    with pipe.db.read() as session:
        found = session.exec(select(Account).where(Account.handle == handle)).one()
        session.expunge(found)
        return found


def mails_to(pipe: Pipeline, address: str) -> list[str]:
    return [body_of(m) for r, m in pipe.drain_outbox() if r == address]


def a_game_with_a_move(pipe: Pipeline) -> tuple[str, str, str, str]:
    addresses = begin_game(pipe, "days 3")
    pipe.send(ALICE, addresses[2], "Pe2-e4")
    pipe.drain_outbox()
    return addresses


# -- games, game, players -----------------------------------------------------------------------


def test_games_lists_every_game_and_filters_by_status_and_player(pipe: Pipeline, config: Path) -> None:
    _alice, bob, _seat_a, seat_b = a_game_with_a_move(pipe)
    carol = register(pipe, CAROL, "carol")
    pipe.send(BOB, bob, "challenge carol outer-space black")
    number = re.search(r"accept (\d+)", mails_to(pipe, CAROL)[0])
    assert number
    pipe.send(CAROL, carol, f"accept {number.group(1)}")
    pipe.send(BOB, seat_b, "resign")  # game 1 is over: 1-0
    pipe.drain_outbox()

    lines = ok(config, "games").splitlines()
    assert lines[0].split() == ["game", "variant", "white", "vs", "black", "status", "ply", "deadline", "updated"]
    first, second = lines[1].split(), lines[2].split()
    assert first[:8] == ["1", "hyperspace", "alice", "vs", "bob", "1-0", "resignation", "1"]
    assert first[8] == "-"  # a finished game has no deadline
    assert second[:7] == ["2", "outer-space", "carol", "vs", "bob", "active", "0"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", second[7])
    assert len(lines) == 3

    assert [line.split()[0] for line in ok(config, "games", "--active").splitlines()[1:]] == ["2"]
    assert [line.split()[0] for line in ok(config, "games", "--finished").splitlines()[1:]] == ["1"]
    assert [line.split()[0] for line in ok(config, "games", "--player", "alice").splitlines()[1:]] == ["1"]
    assert [line.split()[0] for line in ok(config, "games", "--player", BOB).splitlines()[1:]] == ["1", "2"]
    assert ok(config, "games", "--player", "alice", "--active").strip() == "(no games)"
    assert "no player 'zoe'" in refused(config, "games", "--player", "zoe")
    assert "not allowed with" in refused(config, "games", "--active", "--finished")


def test_game_shows_state_clocks_addresses_and_moves_but_no_token(pipe: Pipeline, config: Path) -> None:
    alice, bob, seat_a, seat_b = a_game_with_a_move(pipe)
    pipe.send(BOB, seat_b, "Pe7-e5")
    pipe.drain_outbox()

    out = ok(config, "game", "1")
    assert out.startswith("Game 1: Hyperspace Chess (hyperspace), alice vs bob\n")
    assert "Status:   active, white to move, ply 2" in out
    assert f"White  alice            {ALICE}" in out and f"Black  bob              {BOB}" in out
    assert "Time control: 3 days per move" in out and "(running)" in out and "Deadline:" in out
    assert "Moves:\n  1. Pe2-e4 Pe7-e5" in out
    assert "Position (as the public sees it):" in out
    # The operator sees the players' addresses, never the reply addresses that speak for them.
    for token_address in (alice, bob, seat_a, seat_b):
        assert token_address.split("@")[0] not in out
    assert ok(config, "game", "#1") == out

    assert "no game 7" in refused(config, "game", "7")
    assert "a game is named by its number, not 'x'" in refused(config, "game", "x")


def test_players_lists_accounts_with_their_games_flags_and_vacation(pipe: Pipeline, config: Path) -> None:
    _alice, bob, _seat_a, seat_b = a_game_with_a_move(pipe)
    register(pipe, CAROL, "carol")
    pipe.send(BOB, bob, "vacation 5")
    pipe.drain_outbox()
    ok(config, "player", "carol", "disable")

    lines = ok(config, "players").splitlines()
    assert lines[0].split() == ["handle", "email", "created", "active", "finished", "disabled", "vacation"]
    rows = {line.split()[0]: line.split() for line in lines[1:]}
    assert set(rows) == {"alice", "bob", "carol"}
    assert rows["alice"][1] == ALICE and rows["alice"][4:] == ["1", "0", "-", "-"]
    assert rows["bob"][4:7] == ["1", "0", "-"] and rows["bob"][7] == "until"
    assert rows["carol"][4:] == ["0", "0", "disabled", "-"]

    pipe.send(BOB, seat_b, "resign")
    rows = {line.split()[0]: line.split() for line in ok(config, "players").splitlines()[1:]}
    assert rows["alice"][4:6] == ["0", "1"] and rows["bob"][4:6] == ["0", "1"]


# -- player H disable | enable | rename | email ---------------------------------------------------


def test_a_disabled_players_mail_gets_one_refusal_and_changes_nothing(pipe: Pipeline, config: Path) -> None:
    alice, bob, _seat_a, seat_b = a_game_with_a_move(pipe)
    out = ok(config, "player", "bob", "disable")
    assert "bob is disabled" in out and "clocks" in out
    assert account(pipe, "bob").disabled
    assert "already disabled" in ok(config, "player", "bob", "disable")
    before = game_row(pipe)

    for address, body in ((seat_b, "Pe7-e5"), (bob, "games"), (pipe.addresses.public, "help"),
                          (seat_b, "draw\nsay hello")):
        pipe.send(BOB, address, body)
        answers = [" ".join(text.split()) for text in mails_to(pipe, BOB)]
        assert len(answers) == 1, answers
        assert "your account is disabled by the operator of this server: nothing in this mail was done" \
            in answers[0]
    # Someone else using bob's game address gets nothing and is not asked to confirm: bob hears of it once.
    pipe.send(CAROL, seat_b, "Pe7-e5")
    mails = pipe.drain_outbox()
    assert [r for r, _ in mails] == [BOB]
    assert "your account is disabled" in body_of(mails[0][1])
    after = game_row(pipe)
    assert (after.ply, after.state, after.draw_offer, after.extras, after.version) == \
           (before.ply, before.state, before.draw_offer, before.extras, before.version)
    with pipe.db.read() as session:
        assert session.exec(select(InboxItem).where(InboxItem.status == "held")).first() is None

    # Alice still plays; mails to bob about the game still go (his clock runs by the game's rules).
    pipe.send(ALICE, alice, "games")
    assert len(mails_to(pipe, ALICE)) == 1

    assert "bob is enabled" in ok(config, "player", "bob", "enable")
    pipe.send(BOB, seat_b, "Pe7-e5")
    assert "You played 1... Pe7-e5" in mails_to(pipe, BOB)[0]
    assert game_row(pipe).ply == 2


def test_rename_checks_the_handle_rules_and_that_it_is_free(pipe: Pipeline, config: Path) -> None:
    a_game_with_a_move(pipe)
    assert ok(config, "player", "alice", "rename", "Alicia").strip() == "alice is now alicia."
    assert account(pipe, "alicia").email == ALICE
    assert "1  hyperspace  alicia vs bob" in ok(config, "games")
    assert "is not a valid handle" in refused(config, "player", "alicia", "rename", "9lives")
    assert "is not a valid handle" in refused(config, "player", "alicia", "rename", "a b")
    assert "the handle 'bob' is taken" in refused(config, "player", "alicia", "rename", "BOB")
    assert "already has that handle" in refused(config, "player", "alicia", "rename", "alicia")
    assert "needs the new handle" in refused(config, "player", "alicia", "rename")
    assert "no player 'alice'" in refused(config, "player", "alice", "rename", "al")
    assert "takes nothing after it" in refused(config, "player", "bob", "disable", "now")
    assert "invalid choice: 'delete'" in refused(config, "player", "bob", "delete")


def test_email_checks_the_address_and_that_it_is_free(pipe: Pipeline, config: Path) -> None:
    alice, _bob, seat_a, _seat_b = a_game_with_a_move(pipe)
    register(pipe, CAROL, "carol")
    new = "alice@elsewhere.example"
    assert ok(config, "player", "alice", "email", "Alice@Elsewhere.example").strip() == \
        f"alice's address is now {new} (was {ALICE})."
    assert account(pipe, "alice").email == new
    assert "not an email address" in refused(config, "player", "alice", "email", "alice-at-example")
    assert "not an email address" in refused(config, "player", "alice", "email", "a@b@c")
    assert f"{CAROL} belongs to another account" in refused(config, "player", "alice", "email", CAROL)
    assert "already has the address" in refused(config, "player", "alice", "email", new)
    assert "needs the new address" in refused(config, "player", "alice", "email")

    # The personal and game addresses work from the new address, and the answers go there.
    pipe.send(new, seat_a, "board")
    assert len(mails_to(pipe, new)) == 1
    pipe.send(new, alice, "games")
    assert len(mails_to(pipe, new)) == 1
    pipe.send(ALICE, alice, "games")  # the old address is a stranger now: the new one is asked to confirm
    assert "please confirm" in str(only_mail(pipe, new)["Subject"])
    assert f"alice            {new}" in ok(config, "game", "1")


# -- settle and abort -----------------------------------------------------------------------------


def ratings(pipe: Pipeline) -> dict[str, tuple[float, int]]:
    with pipe.db.read() as session:
        names = {a.id: a.handle for a in session.exec(select(Account))}
        return {names[r.account_id]: (r.rating, r.games) for r in session.exec(select(Rating))}


def test_settle_finishes_the_game_tells_both_players_and_rates_it(pipe: Pipeline, config: Path) -> None:
    _alice, _bob, _seat_a, seat_b = a_game_with_a_move(pipe)
    out = ok(config, "settle", "1", "black", "--reason", "alice  stopped answering")
    assert "Game 1 settled 0-1 (settled by the operator: alice stopped answering)" in out
    game = game_row(pipe)
    assert (game.status, game.result, game.reason) == ("finished", "0-1",
                                                       "settled by the operator: alice stopped answering")
    assert game.deadline is None and game.next_event_at is None
    mails = pipe.drain_outbox()
    finals = {r: body_of(m) for r, m in mails}
    assert set(finals) == {ALICE, BOB} and len(mails) == 2
    assert finals[BOB].startswith("Settled by the operator: alice stopped answering. You won 0-1.")
    assert finals[ALICE].startswith("Settled by the operator: alice stopped answering. You lost 0-1.")
    assert all(m.get_content_type() == "multipart/mixed" for _, m in mails)  # the record and the GIF attached
    new = ratings(pipe)
    assert new["bob"][0] > 1500 > new["alice"][0] and new["bob"][1] == new["alice"][1] == 1

    assert "game 1 is already over (0-1, settled by the operator" in \
        refused(config, "settle", "1", "white", "--reason", "again")
    assert "is already over" in refused(config, "abort", "1")
    pipe.send(BOB, seat_b, "Pe7-e5")
    assert "already over" in mails_to(pipe, BOB)[0]
    assert ratings(pipe) == new


def test_settle_as_a_draw_and_its_refusals(pipe: Pipeline, config: Path) -> None:
    a_game_with_a_move(pipe)
    assert "--reason" in refused(config, "settle", "1", "draw")
    assert "say why" in refused(config, "settle", "1", "draw", "--reason", "  ")
    assert "invalid choice: 'purple'" in refused(config, "settle", "1", "purple", "--reason", "x")
    assert "at most 39 characters" in refused(config, "settle", "1", "draw", "--reason", "x" * 40)
    assert "no game 9" in refused(config, "settle", "9", "draw", "--reason", "x")
    assert game_row(pipe).status == "active" and pipe.drain_outbox() == []
    ok(config, "settle", "1", "draw", "--reason", "x" * 39)
    game = game_row(pipe)
    assert game.result == "1/2-1/2" and len(game.reason) == 64
    assert all("Drawn 1/2-1/2." in body_of(m) for _, m in pipe.drain_outbox())
    assert {handle: games for handle, (_, games) in ratings(pipe).items()} == {"alice": 1, "bob": 1}


def test_abort_ends_the_game_without_result_or_rating(pipe: Pipeline, config: Path) -> None:
    a_game_with_a_move(pipe)
    out = ok(config, "abort", "1", "--reason", "a bug in the server")
    assert "Game 1 aborted (aborted by the operator: a bug in the server)" in out
    game = game_row(pipe)
    assert (game.status, game.result, game.reason) == ("finished", "*", "aborted by the operator: a bug in the server")
    mails = pipe.drain_outbox()
    assert sorted(r for r, _ in mails) == [ALICE, BOB]
    for _, mail in mails:
        assert body_of(mail).startswith("Aborted by the operator: a bug in the server.\nThe game does not count: "
                                        "no result, no rating change.")
    assert ratings(pipe) == {}


def test_abort_without_a_reason_and_not_for_an_event_game(pipe: Pipeline, config: Path) -> None:
    a_game_with_a_move(pipe)
    assert "Game 1 aborted (aborted by the operator)" in ok(config, "abort", "1")
    assert game_row(pipe).reason == "aborted by the operator"
    pipe.drain_outbox()

    register(pipe, CAROL, "carol")
    for argv in (("create", "ev", "--variant", "hyperspace", "--format", "round-robin"), ("add", "ev", "bob", "carol"),
                 ("start", "ev")):
        assert organiser(config, *argv)[0] == 0
    with pipe.db.read() as session:
        event_game = session.exec(select(Game.id).where(col(Game.event_id).is_not(None))).one()
    assert "belongs to an event" in refused(config, "abort", str(event_game))
    assert game_row(pipe, event_game or 0).status == "active"
    assert "settled 1-0" in ok(config, "settle", str(event_game), "white", "--reason", "by agreement")
    standings = organiser(config, "standings", "ev")[1]
    assert "round robin, finished, 1 games" in standings
    points = {row[1]: row[4] for row in (line.split() for line in standings.splitlines()[4:])}
    white = "bob" if game_row(pipe, event_game or 0).white_id == account(pipe, "bob").id else "carol"
    assert points == {white: "1", ({"bob", "carol"} - {white}).pop(): "0"}


# -- queue, failed, requeue ----------------------------------------------------------------------


def test_queue_counts_mails_by_status_with_the_oldest_waiting(pipe: Pipeline, config: Path) -> None:
    register(pipe, ALICE, "alice")
    pipe.queue(BOB, pipe.addresses.public, "register bob")  # stored, not processed yet
    out = ok(config, "queue")
    rows = {(line.split()[0], line.split()[1]): line.split()[2:] for line in out.splitlines()[1:]}
    assert out.splitlines()[0].split() == ["queue", "status", "count", "oldest", "waiting"]
    assert rows[("inbox", "new")][0] == "1" and re.fullmatch(r"\d+s", rows[("inbox", "new")][1])
    assert rows[("inbox", "done")] == ["1", "-"]
    assert rows[("inbox", "held")] == ["0", "-"] and rows[("inbox", "failed")] == ["0", "-"]
    assert rows[("outbox", "sent")] == ["1", "-"]  # alice's welcome, drained by register()
    assert rows[("outbox", "pending")] == ["0", "-"] and rows[("outbox", "failed")] == ["0", "-"]
    pipe.worker.drain()
    rows = {(line.split()[0], line.split()[1]): line.split()[2:] for line in ok(config, "queue").splitlines()[1:]}
    assert rows[("inbox", "new")] == ["0", "-"] and rows[("inbox", "done")] == ["2", "-"]
    assert rows[("outbox", "pending")][0] == "1" and rows[("outbox", "pending")][1] != "-"
    assert rows[("computer", "games")] == ["0", "-"] and rows[("computer", "analyses")] == ["0", "-"]
    assert rows[("notices", "new")] == ["0", "-"] and rows[("notices", "failed")] == ["0", "-"]
    pipe.send(ALICE, pipe.addresses.personal(1), "challenge computer tri-d black")  # the computer is white
    rows = {(line.split()[0], line.split()[1]): line.split()[2:] for line in ok(config, "queue").splitlines()[1:]}
    assert rows[("computer", "games")][0] == "1" and re.fullmatch(r"\d+s", rows[("computer", "games")][1])


def test_requeue_of_a_failed_mail_processes_it_exactly_once(pipe: Pipeline, config: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    _alice, _bob, seat_a, _seat_b = begin_game(pipe, "days 3")
    import pbem.worker

    real = pbem.worker.play_move
    calls: list[str] = []

    def flaky(ctx: Context, line: str) -> Result:
        calls.append(line)
        if len(calls) == 1:
            raise RuntimeError("injected fault in play_move")
        return real(ctx, line)

    monkeypatch.setattr(pbem.worker, "play_move", flaky)
    message_id = pipe.send(ALICE, seat_a, "Pe2-e4")
    assert "could not be processed" in only_mail(pipe, ALICE)["Subject"]
    assert game_row(pipe).ply == 0

    out = ok(config, "failed")
    lines = out.splitlines()
    assert lines[0].startswith("Inbox: 1 failed")
    item_id = int(lines[1].split()[0])
    assert f"from {ALICE}" in lines[1] and message_id in lines[1]
    assert lines[2].strip() == "RuntimeError: injected fault in play_move"
    assert "Outbox: 0 given up" in out
    assert "Traceback (most recent call last):" in ok(config, "failed", "--full")

    assert ok(config, "requeue", str(item_id)).startswith(f"Requeued 1 mail ({item_id})")
    assert "is new, not failed" in refused(config, "requeue", str(item_id))  # a second requeue changes nothing
    assert ok(config, "failed").startswith("Inbox: 0 failed")
    assert pipe.worker.drain() == 1 and pipe.worker.drain() == 0

    mails = pipe.drain_outbox()
    to_alice = [body_of(m) for r, m in mails if r == ALICE]
    to_bob = [body_of(m) for r, m in mails if r == BOB]
    assert len(to_alice) == 1 and to_alice[0].startswith("You played 1. Pe2-e4. bob to move")
    assert len(to_bob) == 1 and to_bob[0].startswith("alice played 1. Pe2-e4. Your move")
    assert calls == ["Pe2-e4", "Pe2-e4"]
    with pipe.db.read() as session:
        item = session.get(InboxItem, item_id)
        assert item is not None and (item.status, item.error) == ("done", "")
        assert len(session.exec(select(MoveRecord)).all()) == 1
        assert item.processed_at is not None
    assert game_row(pipe).ply == 1
    assert "is done, not failed" in refused(config, "requeue", str(item_id))
    assert "no inbox mail 999" in refused(config, "requeue", "999")
    assert ok(config, "requeue", "--all").strip() == "No failed mails to requeue."
    assert "name one failed mail" in refused(config, "requeue")
    assert "name one failed mail" in refused(config, "requeue", str(item_id), "--all")


def test_requeue_all_and_concurrent_requeues_of_one_row(pipe: Pipeline, config: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.commands.help

    def broken(self: object, ctx: Context, args: list[str]) -> Result:
        raise RuntimeError("help is broken")

    monkeypatch.setattr(pbem.commands.help.Help, "run", broken)
    for sender in (ALICE, BOB, CAROL):
        pipe.send(sender, pipe.addresses.public, "help")
    pipe.drain_outbox()
    with pipe.db.read() as session:
        failed = sorted(i.id or 0 for i in session.exec(select(InboxItem).where(InboxItem.status == "failed")))
    assert len(failed) == 3

    # Eight operators requeue the same row at once, each with a database connection of their own: one wins.
    results: list[list[int]] = []
    barrier = threading.Barrier(8)
    databases = [Database(pipe.db.url) for _ in range(8)]

    def requeue(db: Database) -> None:
        barrier.wait()
        results.append(requeue_failed(db, failed[0]))

    threads = [threading.Thread(target=requeue, args=(db,)) for db in databases]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for db in databases:
        db.dispose()
    assert sorted(results) == [[]] * 7 + [[failed[0]]]

    monkeypatch.undo()
    assert ok(config, "requeue", "--all").startswith(f"Requeued 2 mails ({failed[1]}, {failed[2]})")
    with pipe.db.read() as session:  # the listener's readings gone: the worker reads each mail afresh
        assert [i.parsed for i in session.exec(select(InboxItem).where(InboxItem.status == "new"))] == ["", "", ""]
    assert pipe.worker.drain() == 3
    answers = pipe.drain_outbox()
    assert sorted(r for r, _ in answers) == sorted([ALICE, BOB, CAROL])  # one answer each, the help itself
    assert all("could not be processed" not in str(m["Subject"]) for _, m in answers)


# -- purge ---------------------------------------------------------------------------------------


def test_purge_empties_old_bodies_and_keeps_ids_games_and_undelivered_mails(pipe: Pipeline, config: Path) -> None:
    _alice, _bob, seat_a, _seat_b = a_game_with_a_move(pipe)
    with pipe.db.read() as session:
        done = session.exec(select(InboxItem)).all()
        raw_of_move = next(i.raw for i in done if b"Pe2-e4" in i.raw)
        assert all(i.parsed for i in done)  # each stored with the listener's reading
        sent = len(session.exec(select(OutboxItem).where(OutboxItem.status == "sent")).all())
    pipe.send(ALICE, seat_a, "board")  # answered, not yet delivered: its reply keeps its body
    record = ok(config, "game", "1")

    # Nothing is old enough yet with the default 90 days.
    assert "Emptied the bodies of 0 processed inbound mails older than 90 days and 0 sent" in ok(config, "purge")
    # With an injected clock 91 days on, the same function the sweep calls empties every old body.
    later = utcnow() + timedelta(days=91)
    purged = purge_old_mail(pipe.db, later, 90, 90)
    assert purged.inbound == len(done) + 1 and purged.outbound == sent
    assert purge_old_mail(pipe.db, later, 90, 90).inbound == 0  # idempotent
    with pipe.db.read() as session:
        inbox = session.exec(select(InboxItem)).all()
        assert all(i.raw == b"" and i.parsed == "" and i.message_id for i in inbox)  # the listener's reading too
        outbox = session.exec(select(OutboxItem)).all()
        assert all(o.raw == b"" for o in outbox if o.status == "sent")
        assert all(o.raw for o in outbox if o.status == "pending")
    # A duplicate of a purged mail is still absorbed, and the game is intact.
    assert store_inbound(pipe.db, raw_of_move, ALICE, [seat_a], pipe.addresses.domain) is False
    assert pipe.worker.drain() == 0
    assert ok(config, "game", "1") == record
    assert game_row(pipe).ply == 1


def test_purge_from_the_command_line_keeps_failed_and_held_bodies(pipe: Pipeline, config: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import pbem.commands.help

    alice = register(pipe, ALICE, "alice")
    pipe.send(BOB, alice, "games")  # a stranger using alice's address: held for her confirmation
    monkeypatch.setattr(pbem.commands.help.Help, "run", lambda *_: (_ for _ in ()).throw(RuntimeError("x")))
    pipe.send(CAROL, pipe.addresses.public, "help")  # fails
    pipe.drain_outbox()
    out = ok(config, "purge", "--inbound-days", "0", "--outbound-days", "0")
    assert "Emptied the bodies of 1 processed inbound mails older than 0 days and 3 sent outbound" in out
    with pipe.db.read() as session:
        bodies = {i.status: i.raw for i in session.exec(select(InboxItem))}
    assert set(bodies) == {"done", "held", "failed"}
    assert bodies["done"] == b"" and b"games" in bodies["held"] and b"help" in bodies["failed"]
    assert "days are 0 or more" in refused(config, "purge", "--inbound-days", "-1")


# -- backup --------------------------------------------------------------------------------------


def test_backup_copies_the_database_and_never_overwrites(pipe: Pipeline, config: Path, tmp_path: Path) -> None:
    if not pipe.db.is_sqlite:
        out = refused(config, "backup", str(tmp_path / "copy.sqlite3"))
        assert "pg_dump" in out and "pg_restore" in out
        assert not (tmp_path / "copy.sqlite3").exists()
        return
    a_game_with_a_move(pipe)
    target = tmp_path / "copy.sqlite3"
    out = ok(config, "backup", str(target))
    assert f"to {target}" in out and "To restore it: stop 'pbem serve'" in out and "copy" in out
    assert target.stat().st_mode & 0o077 == 0  # the copy holds the secret key: its owner's only
    copy = Database(f"sqlite:///{target}")
    with copy.read() as session:
        game = session.get(Game, 1)
        assert game is not None and game.ply == 1
        assert len(session.exec(select(Account)).all()) == 2
    copy.dispose()
    before = target.read_bytes()
    assert "exists: a backup never overwrites a file" in refused(config, "backup", str(target))
    assert target.read_bytes() == before
    assert "cannot create" in refused(config, "backup", str(tmp_path / "no" / "such" / "dir.sqlite3"))


def test_backup_of_postgresql_points_to_pg_dump(tmp_path: Path) -> None:
    config = config_file(tmp_path, "postgresql+psycopg://pbem@db.invalid/pbem", "key")
    out = refused(config, "backup", str(tmp_path / "copy"))
    assert "pg_dump" in out and "pg_restore" in out
    assert not (tmp_path / "copy").exists()


# -- the command line itself ---------------------------------------------------------------------


def test_every_admin_command_has_help(capsys: pytest.CaptureFixture[str]) -> None:
    from pbem.cli.main import main

    with pytest.raises(SystemExit) as done:
        main(["admin", "--help"])
    assert done.value.code == 0
    listing = capsys.readouterr().out
    commands = ("games", "game", "players", "player", "settle", "abort", "queue", "failed", "requeue", "purge",
                "backup")
    for name in commands:
        assert re.search(rf"^    {name} +\w", listing, re.MULTILINE), name
        with pytest.raises(SystemExit) as done:
            main(["admin", name, "--help"])
        assert done.value.code == 0
        assert "--config" in capsys.readouterr().out
    assert main(["admin"]) == 1
    assert "name an admin command" in capsys.readouterr().err


def test_an_unknown_database_file_is_an_error_not_a_new_database(tmp_path: Path) -> None:
    config = config_file(tmp_path, f"sqlite:///{tmp_path / 'nothing.sqlite3'}", "key")
    assert "no database at" in refused(config, "games")
    assert not (tmp_path / "nothing.sqlite3").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text("[database\n")
    assert refused(bad, "players")
    nowhere = config_file(tmp_path, "postgresql+psycopg://pbem@db.invalid/pbem", "key")
    assert "the database said:" in refused(nowhere, "queue")


def test_the_reason_limit_in_the_help_is_the_real_one() -> None:
    from pbem.app.operator import REASON_LENGTH

    assert REASON_LENGTH == 39


def test_email_follows_the_account_into_its_event_entries_and_open_challenges(pipe: Pipeline, config: Path) -> None:
    from pbem.store.event_models import EventPlayer
    from pbem.store.models import Challenge

    register(pipe, ALICE, "alice")
    carol = register(pipe, CAROL, "carol")
    pipe.send(CAROL, carol, "challenge alice hyperspace")
    pipe.drain_outbox()
    new = "alice@elsewhere.example"
    for argv in (("create", "ev", "--variant", "hyperspace", "--format", "round-robin"), ("add", "ev", "alice", new)):
        assert organiser(config, *argv)[0] == 0  # alice entered, and her new address invited besides
    ok(config, "player", "alice", "email", new)
    with pipe.db.read() as session:
        alice_id = session.exec(select(Account.id).where(Account.handle == "alice")).one()
        entries = [(e.account_id, e.email) for e in session.exec(select(EventPlayer))]
        challenge = session.exec(select(Challenge)).one()
        assert (challenge.opponent_id, challenge.opponent_email) == (alice_id, new)
    assert entries == [(alice_id, new)]  # the invitation of her new address went: she is entered already
