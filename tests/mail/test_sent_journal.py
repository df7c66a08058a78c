"""The deliverer's sent marks on SQLite: a synced line per mail, folded into the outbox once a round, and a
crash between the two neither loses a mark nor re-sends the mail."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import select

import pbem.mail.delivery
import pbem.mail.sent_journal
from pbem.mail.delivery import Deliverer
from pbem.mail.sent_journal import SentJournal
from pbem.store.models import OutboxItem, utcnow
from tests.helpers.harness import SinkHandler
from tests.helpers.pipeline import Pipeline
from tests.helpers.serving import free_port

T0 = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)


def test_marks_are_read_back_in_order_and_emptied_by_a_fold(tmp_path: Path) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    journal.write(7, T0)
    journal.write(3, T0 + timedelta(seconds=1))
    with journal.folding() as marks:
        assert marks == [(7, T0), (3, T0 + timedelta(seconds=1))]
    assert (tmp_path / "db.sent").read_bytes() == b""
    with journal.folding() as marks:
        assert marks == []


def test_a_fold_that_fails_keeps_the_marks(tmp_path: Path) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    journal.write(1, T0)
    with pytest.raises(RuntimeError), journal.folding():
        raise RuntimeError("the database is away")
    journal.write(2, T0)
    with journal.folding() as marks:
        assert [number for number, _ in marks] == [1, 2]


def test_marks_written_during_a_fold_are_kept_for_the_next_one(tmp_path: Path) -> None:
    """A fold locks the file only to read it and to empty it: the deliverer goes on marking while the fold writes
    into the outbox, and what it marked meanwhile is neither lost nor folded twice."""
    path = tmp_path / "db.sent"
    journal = SentJournal(path)
    journal.write(1, T0)
    with journal.folding() as marks:
        assert [number for number, _ in marks] == [1]
        writer = threading.Thread(target=journal.write, args=(2, T0))
        writer.start()
        writer.join(10)
        assert not writer.is_alive()  # not held up by the fold
    assert path.read_bytes().splitlines() == [f"1 {T0.isoformat()}".encode(), f"2 {T0.isoformat()}".encode()]
    journal.write(3, T0)
    with journal.folding() as marks:
        assert [number for number, _ in marks] == [2, 3]  # from where the last fold stopped
    assert path.read_bytes() == b""  # nothing came during this one: emptied
    with journal.folding() as marks:
        assert marks == []
    # Another process (a restart after a crash before the emptying) reads the file from its start.
    journal.write(4, T0)
    with journal.folding() as marks:
        journal.write(5, T0)
    with SentJournal(path).folding() as marks:
        assert [number for number, _ in marks] == [4, 5]


def test_threads_writing_while_folds_empty_the_file_lose_no_mark(tmp_path: Path) -> None:
    """The connections' threads mark while the folding thread reads and empties the file. They share one
    descriptor, and flock does not exclude threads of one process (it locks the open file, not the thread): a
    mark written between a fold's look at the size and its truncation was lost (a mail left pending, sent again
    after a restart). Every mark written is folded exactly once."""
    journal = SentJournal(tmp_path / "db.sent")
    writers, each = 4, 1500
    folded: list[int] = []
    done = threading.Event()

    def write(first: int) -> None:
        for number in range(first, first + each):
            journal.write(number, T0)

    def fold_until_done() -> None:
        while True:
            finished = done.is_set()
            with journal.folding() as marks:
                folded.extend(number for number, _ in marks)
            if finished:
                return

    folder = threading.Thread(target=fold_until_done)
    folder.start()
    threads = [threading.Thread(target=write, args=(1 + index * each,)) for index in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    done.set()
    folder.join(60)
    journal.close()
    assert sorted(folded) == list(range(1, writers * each + 1))


#: A child that writes marks past a file size limit of 60 bytes (two lines of 28 fit, not a third), then with room.
_SHORT_WRITE_CHILD = r"""
import resource, signal, sys
from datetime import UTC, datetime
from pathlib import Path
from pbem.mail.sent_journal import SentJournal

T0 = datetime(2026, 11, 24, 20, 0, tzinfo=UTC)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write is cut short (or fails with EFBIG)
journal = SentJournal(Path(sys.argv[1]))
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (60, hard))
journal.write(1, T0)
journal.write(2, T0)
try:
    journal.write(3, T0)
    print("3 reported written")
except OSError:
    print("3 refused")
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
journal.write(4, T0)
with journal.folding() as marks:
    print("folded", [number for number, _ in marks])
journal.close()
"""


def test_a_mark_cut_short_by_a_full_disk_is_refused_and_the_next_one_is_kept(tmp_path: Path) -> None:
    """Out of room (a full disk, a file size limit), a write to a file writes part of the line and returns how much,
    without an error. The mark was taken as written (its mail as sent) and the next one appended to the torn piece:
    a fold read neither, and both mails stayed pending until a restart sent them again. Now the piece is taken
    back and the mark refused (the deliverer then retries the mail); the next mark is whole."""
    done = subprocess.run([sys.executable, "-c", _SHORT_WRITE_CHILD, str(tmp_path / "db.sent")], capture_output=True,
                          text=True, timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() in (["3 refused", "folded [1, 2, 4]"],  # the third line did not fit
                                        ["3 reported written", "folded [1, 2, 3, 4]"])  # it did, whole


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "db.sent"
    SentJournal(path).write(5, T0)
    with path.open("ab") as torn:
        torn.write(f"6 {T0.isoformat()}"[:-6].encode())  # the offset never reached the disk
    with SentJournal(path).folding() as marks:
        assert marks == [(5, T0)]


def test_a_round_marks_its_mails_sent_in_the_outbox_and_empties_the_journal(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        for number in range(3):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "maildir"))
        assert deliverer.journal is not None and deliverer.journal.path == Path(f"{pipe.db.sqlite_file}.sent")
        assert deliverer.deliver_due() == 3
        rows = outbox(pipe)
        assert {row.status for row in rows} == {"sent"} and {row.attempts for row in rows} == {1}
        assert all(row.sent_at is not None and row.leased_by == "" for row in rows)
        assert deliverer.journal.path.read_bytes() == b""
        deliverer.close()
    finally:
        pipe.close()


@pytest.fixture
def relay() -> Iterator[tuple[SinkHandler, int]]:
    """A relay on loopback that keeps every mail it takes; its handler and port."""
    sink = SinkHandler()
    port = free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield sink, port
    finally:
        controller.stop()


def test_marks_left_by_a_crash_are_folded_at_the_next_start_and_not_sent_again(
        tmp_path: Path, relay: tuple[SinkHandler, int]) -> None:
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        for number in range(3):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        crashed = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        # A call of a process that dies before its fold: every mail sent and marked in the journal.
        assert crashed._deliver(for_seconds=0) == 3  # marked, not folded
        crashed._close()
        assert len(sink.received) == 3
        assert {row.status for row in outbox(pipe)} == {"pending"}  # leased, marked only in the journal
        restarted = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        assert restarted.release_leases() == 0  # nothing left to re-send
        assert {row.status for row in outbox(pipe)} == {"sent"}
        assert restarted.deliver_due() == 0 and len(sink.received) == 3
        restarted.close()
    finally:
        pipe.close()


def registered(pipe: Pipeline, players: int, port: int, tmp_path: Path) -> Deliverer:
    """``players`` registered (a welcome mail each queued), and a deliverer to the relay at ``port`` that claims
    five mails at a time."""
    for number in range(players):
        pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
    return Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"), batch=5)


def counting_folds(deliverer: Deliverer) -> list[int]:
    """The marks each of ``deliverer``'s folds from now on wrote into the outbox, in order."""
    folded: list[int] = []
    fold = deliverer.fold

    def counted() -> int:
        folded.append(count := fold())
        return count

    deliverer.fold = counted  # type: ignore[method-assign]
    return folded


def test_claims_of_one_call_leave_the_marked_mails_out_and_fold_them_once_at_the_end(
        tmp_path: Path, relay: tuple[SinkHandler, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """deliver_due(for_seconds) claims again and again, here with no fold in between (FOLD_SECONDS an hour): a mail
    marked sent in the journal and still pending in the outbox is not claimed again."""
    monkeypatch.setattr(pbem.mail.delivery, "FOLD_SECONDS", 3600.0)
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        deliverer = registered(pipe, 12, port, tmp_path)
        folded = counting_folds(deliverer)
        assert deliverer.deliver_due(for_seconds=60) == 12  # three claims: 5, 5 and 2
        assert sorted(to for to, _ in sink.received) == sorted(f"p{n}@players.example" for n in range(12))
        assert folded == [0, 12]  # nothing before the first claim, all twelve at the end
        assert {row.status for row in outbox(pipe)} == {"sent"}
        assert deliverer.deliver_due(for_seconds=60) == 0 and len(sink.received) == 12
        deliverer.close()
    finally:
        pipe.close()


def test_a_call_folds_while_it_sends_and_claims_the_mails_queued_meanwhile(
        tmp_path: Path, relay: tuple[SinkHandler, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """With folds as often as they can go (FOLD_SECONDS 0), on their own thread while the connections send: every
    mail is sent once and marked once, and the mails queued while the call sends go out in the same call."""
    monkeypatch.setattr(pbem.mail.delivery, "FOLD_SECONDS", 0.0)
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        deliverer = registered(pipe, 12, port, tmp_path)
        folded = counting_folds(deliverer)
        later = [f"late{number}@players.example" for number in range(6)]
        handle = sink.handle_DATA

        async def queue_more_on_the_fourth(*args: Any) -> str:
            answer = await handle(*args)
            if len(sink.received) == 4:  # while the call sends: six more mails come due
                queue_mails(pipe, later)
            return answer

        sink.handle_DATA = queue_more_on_the_fourth  # type: ignore[method-assign]
        assert deliverer.deliver_due(for_seconds=60) == 18
        assert sorted(to for to, _ in sink.received) == sorted(
            [f"p{n}@players.example" for n in range(12)] + later)
        assert sum(folded) == 18 and len(folded) > 2  # folded while sending, each mark once
        rows = outbox(pipe)
        assert {row.status for row in rows} == {"sent"} and {row.attempts for row in rows} == {1}
        assert deliverer.journal is not None and deliverer.journal.path.read_bytes() == b""
        deliverer.close()
    finally:
        pipe.close()


def test_a_call_asked_to_finish_soon_claims_nothing_more_and_loses_nothing(
        tmp_path: Path, relay: tuple[SinkHandler, int]) -> None:
    """pbem serve stopping: a call that would go on for a minute, with mail coming due all the time (each mail
    delivered queues another), returns soon after finish_soon(); what it claimed is sent and marked, the rest
    still pending."""
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        deliverer = registered(pipe, 4, port, tmp_path)
        handle = sink.handle_DATA
        queued = [0]

        async def queue_another(*args: Any) -> str:
            answer = await handle(*args)
            if queued[0] < 2000:  # a bound, should finish_soon fail
                queued[0] += 1
                queue_mails(pipe, [f"next{queued[0]}@players.example"])
                deliverer.wake()
            return answer

        sink.handle_DATA = queue_another  # type: ignore[method-assign]
        sent: list[int] = []
        call = threading.Thread(target=lambda: sent.append(deliverer.deliver_due(for_seconds=60)))
        call.start()
        time.sleep(0.5)
        asked = time.monotonic()
        deliverer.finish_soon()
        call.join(30)
        assert not call.is_alive() and time.monotonic() - asked < 5
        assert sent and sent[0] == len(sink.received) > 4  # it went on while mail came, then stopped
        rows = outbox(pipe)
        assert sum(row.status == "sent" for row in rows) == sent[0]  # marked and folded, each once
        assert {row.status for row in rows} == {"sent", "pending"}  # the last ones queued wait for the next start
        deliverer.close()
    finally:
        pipe.close()


def queue_mails(pipe: Pipeline, recipients: list[str]) -> None:
    with pipe.db.transaction() as session:
        for number, recipient in enumerate(recipients):
            session.add(OutboxItem(recipient=recipient, message_id=f"<late{number}@test>",
                                   raw=b"Subject: late\r\n\r\nlate\r\n", next_attempt_at=utcnow(),
                                   created_at=utcnow()))


def test_one_claim_by_default(tmp_path: Path, relay: tuple[SinkHandler, int]) -> None:
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        deliverer = registered(pipe, 7, port, tmp_path)
        assert deliverer.deliver_due() == 5
        assert [row.status for row in outbox(pipe)].count("sent") == 5  # folded when the call returns
        assert deliverer.deliver_due() == 2 and len(sink.received) == 7
        deliverer.close()
    finally:
        pipe.close()


def test_a_fold_repeated_after_a_crash_counts_each_attempt_once(tmp_path: Path) -> None:
    pipe = Pipeline(tmp_path)
    try:
        pipe.send("p@players.example", pipe.addresses.public, "register player")
        deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "maildir"))
        assert deliverer.deliver_due() == 1
        row = outbox(pipe)[0]
        assert deliverer.journal is not None and row.id is not None
        deliverer.journal.write(row.id, utcnow())  # the fold committed, the crash came before the emptying
        assert deliverer.fold() == 1
        again = outbox(pipe)[0]
        assert again.status == "sent" and again.attempts == 1 and again.sent_at == row.sent_at
        deliverer.close()
    finally:
        pipe.close()


def test_postgresql_and_memory_mark_in_the_outbox_directly(tmp_path: Path, database_url: str | None) -> None:
    pipe = Pipeline(tmp_path, database_url=database_url or "sqlite://")  # the SQLite case: in memory
    try:
        pipe.send("p@players.example", pipe.addresses.public, "register player")
        deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "maildir"))
        assert deliverer.journal is None
        assert deliverer.deliver_due() == 1
        assert outbox(pipe)[0].status == "sent"
        assert not [name for name in os.listdir(tmp_path) if name.endswith(".sent")]
    finally:
        pipe.close()


def outbox(pipe: Pipeline) -> list[OutboxItem]:
    with pipe.db.transaction() as session:
        return list(session.exec(select(OutboxItem).order_by(OutboxItem.id)))


def test_marks_a_failed_fold_left_are_folded_before_the_next_round_reads(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    pipe = Pipeline(tmp_path)
    try:
        pipe.send("p@players.example", pipe.addresses.public, "register player")
        maildir = tmp_path / "maildir"
        deliverer = Deliverer(pipe.db, "", 25, str(maildir))
        real_fold = Deliverer.fold
        failed: list[bool] = []

        def fold_failing_once_after_sending(self: Deliverer) -> int:
            assert self.journal is not None
            if not failed and self.journal.path.exists() and self.journal.path.read_bytes():  # the database is away
                failed.append(True)
                raise OSError("disk I/O error")
            return real_fold(self)

        monkeypatch.setattr(Deliverer, "fold", fold_failing_once_after_sending)
        with pytest.raises(OSError):
            deliverer.deliver_due()
        assert outbox(pipe)[0].status == "pending"  # sent, marked in the journal only
        assert deliverer.deliver_due() == 0  # folded first: not read as due, not sent again
        assert outbox(pipe)[0].status == "sent" and len(list((maildir / "new").iterdir())) == 1
        deliverer.close()
    finally:
        pipe.close()


def wait_at_most(journal: SentJournal, line: int, seconds: float = 10.0) -> BaseException | None:
    """``journal.wait_synced(line)`` with a time limit: what it raised (None: it returned); a hang fails."""
    outcome: list[BaseException | None] = []

    def wait() -> None:
        try:
            journal.wait_synced(line)
            outcome.append(None)
        except BaseException as error:  # handed to the test
            outcome.append(error)

    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    waiter.join(seconds)
    assert outcome, f"wait_synced({line}) still waits after {seconds} s"
    return outcome[0]


def test_a_line_is_in_the_file_at_once_and_on_the_disk_once_waited_for(tmp_path: Path) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    lines = [journal.write(number, T0) for number in range(1, 4)]
    assert lines == [1, 2, 3]
    assert (tmp_path / "db.sent").read_bytes().count(b"\n") == 3  # the kernel's before any sync
    assert wait_at_most(journal, 3) is None and journal.synced == 3
    syncer = journal._syncer
    assert syncer is not None
    journal.close()
    assert not syncer.is_alive()  # the syncer ends with the journal
    with pytest.raises(OSError, match="closed"):
        journal.write(4, T0)  # a closed journal takes no more lines


def test_a_line_written_while_a_sync_is_under_way_waits_for_the_next_sync(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    real_fdatasync = os.fdatasync
    second_may_go = threading.Event()
    syncs: list[int] = []

    def spying(descriptor: int) -> None:
        syncs.append(1)
        if len(syncs) == 1:
            journal.write(2, T0)  # line 2 arrives after this sync began: it may not be on the disk
        else:
            second_may_go.wait(10)
        real_fdatasync(descriptor)

    monkeypatch.setattr(os, "fdatasync", spying)
    assert wait_at_most(journal, journal.write(1, T0)) is None
    waiter = threading.Thread(target=journal.wait_synced, args=(2,), daemon=True)
    waiter.start()
    waiter.join(0.3)
    assert waiter.is_alive()  # the first sync does not count for line 2
    second_may_go.set()
    waiter.join(10)
    assert not waiter.is_alive() and journal.synced == 2 and len(syncs) == 2
    journal.close()


def _gathering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float) -> tuple[SentJournal, list[int]]:
    """A journal whose syncer gathers for ``seconds``, and the list its syncs are counted in."""
    monkeypatch.setattr(pbem.mail.sent_journal, "GATHER_SECONDS", seconds)
    syncs: list[int] = []
    real_fdatasync = os.fdatasync

    def counting(descriptor: int) -> None:
        syncs.append(1)
        real_fdatasync(descriptor)

    monkeypatch.setattr(os, "fdatasync", counting)
    return SentJournal(tmp_path / "db.sent"), syncs


def test_lines_nobody_waits_for_gather_for_one_sync(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal, syncs = _gathering(tmp_path, monkeypatch, 0.3)
    for number in range(1, 6):  # four relay connections' marks, written while none of them waits
        journal.write(number, T0)
        time.sleep(0.01)
    assert journal.synced == 0 and syncs == []  # still gathering
    deadline = time.monotonic() + 5
    while journal.synced < 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert journal.synced == 5 and len(syncs) == 1  # then all of them in one sync, with nobody asking
    journal.close()


def test_a_line_waited_for_is_synced_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal, syncs = _gathering(tmp_path, monkeypatch, 30.0)
    journal.write(1, T0)
    journal.write(2, T0)
    started = time.monotonic()
    assert wait_at_most(journal, 1) is None  # a connection before its next final dot: no gathering
    assert time.monotonic() - started < 5 and journal.synced == 2 and len(syncs) == 1
    journal.close()


def test_closing_syncs_what_is_gathering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal, syncs = _gathering(tmp_path, monkeypatch, 30.0)
    journal.write(1, T0)
    started = time.monotonic()
    journal.close()
    assert time.monotonic() - started < 5 and journal.synced == 1 and len(syncs) == 1


def test_many_writers_share_syncs_and_every_wait_returns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    syncs: list[int] = []
    real_fdatasync = os.fdatasync

    def slow(descriptor: int) -> None:  # a disk that takes a while: lines pile up behind a sync under way
        syncs.append(1)
        time.sleep(0.005)
        real_fdatasync(descriptor)

    monkeypatch.setattr(os, "fdatasync", slow)

    def writer(base: int) -> None:
        for number in range(base, base + 25):
            journal.wait_synced(journal.write(number, T0))

    threads = [threading.Thread(target=writer, args=(base,)) for base in (0, 100, 200, 300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    assert journal.synced == 100
    assert len(syncs) < 100  # grouped: four writers' lines went to the disk together
    with journal.folding() as marks:
        assert sorted(number for number, _ in marks) == [*range(0, 25), *range(100, 125), *range(200, 225),
                                                          *range(300, 325)]
    journal.close()


def test_a_failed_sync_is_raised_to_its_lines_waiters_even_after_a_later_sync_succeeded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    journal = SentJournal(tmp_path / "db.sent")
    real_fdatasync = os.fdatasync
    syncs: list[int] = []

    def failing_first(descriptor: int) -> None:
        syncs.append(1)
        if len(syncs) == 1:
            journal.write(2, T0)  # the next line, written while the failing sync is under way
            raise OSError(5, "Input/output error")
        real_fdatasync(descriptor)

    monkeypatch.setattr(os, "fdatasync", failing_first)
    first = journal.write(1, T0)
    assert wait_at_most(journal, 2) is None  # a sync of its own, which succeeded
    # Line 1's waiter comes late, after a later sync succeeded: it is still told (after a write-back
    # error, a later sync that succeeds says nothing of the pages already lost).
    error = wait_at_most(journal, first)
    assert isinstance(error, OSError) and "Input/output" in str(error)
    assert wait_at_most(journal, journal.write(3, T0)) is None  # later lines are synced afresh
    journal.close()


def test_a_connections_mark_is_on_the_disk_before_its_next_final_dot(
        tmp_path: Path, relay: tuple[SinkHandler, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """The power-cut bound: however many connections send, each has at most one mark not yet synced, and
    only while it sends its next mail's envelope; its final dot waits for the sync."""
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        for number in range(6):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        deliverer = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        journal = deliverer.journal
        assert journal is not None
        real_fdatasync, real_end, real_write = os.fdatasync, Deliverer._end, SentJournal.write
        last_mark: dict[int, int] = {}  # by connection: the line of its last mark
        checked: list[bool] = []

        def slow_sync(descriptor: int) -> None:  # long enough that the next mail's envelope goes out meanwhile
            time.sleep(0.01)
            real_fdatasync(descriptor)

        def end_after_sync(self: Deliverer, lane: int, item: OutboxItem, raw: bytes) -> tuple[int, bytes]:
            if lane in last_mark:
                checked.append(journal.synced >= last_mark[lane])
            self._lane_now = lane  # type: ignore[attr-defined]
            return real_end(self, lane, item, raw)

        def write_noting(self: SentJournal, outbox_id: int, sent_at: datetime) -> int:
            line = real_write(self, outbox_id, sent_at)
            last_mark[deliverer._lane_now] = line  # type: ignore[attr-defined]
            return line

        monkeypatch.setattr(os, "fdatasync", slow_sync)
        monkeypatch.setattr(Deliverer, "_end", end_after_sync)
        monkeypatch.setattr(SentJournal, "write", write_noting)
        assert deliverer.deliver_due() == 12
        assert len(sink.received) == 12
        assert checked and all(checked)  # every later final dot came after its connection's mark was synced
        assert journal.synced == 12  # and the round ended with every mark on the disk
        deliverer.close()
    finally:
        pipe.close()


def test_a_failed_sync_fails_the_round_without_losing_or_doubling_a_mail(
        tmp_path: Path, relay: tuple[SinkHandler, int], monkeypatch: pytest.MonkeyPatch) -> None:
    """The lane whose last mark did not reach the disk drops its connection before the next final dot (the relay
    discards that mail), the round waits for its other lanes and fails; the next round sends the rest, once."""
    sink, port = relay
    pipe = Pipeline(tmp_path)
    try:
        for number in range(4):
            for _ in range(3):
                pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        deliverer = Deliverer(pipe.db, "127.0.0.1", port, str(tmp_path / "unused"))
        real_fdatasync = os.fdatasync
        failures = [OSError(5, "Input/output error")]

        def failing_once(descriptor: int) -> None:
            # The journal's sync alone: the database's log is synced with fdatasync too, before a claim's mails go.
            if failures and os.readlink(f"/proc/self/fd/{descriptor}").endswith(".sent"):
                raise failures.pop()
            real_fdatasync(descriptor)

        monkeypatch.setattr(os, "fdatasync", failing_once)
        with pytest.raises(OSError, match="Input/output"):
            deliverer.deliver_due()
        assert not failures  # it was the journal's sync that failed
        first_round = len(sink.received)
        assert 1 <= first_round < 12
        assert deliverer.deliver_due() == 12 - first_round  # the next round: the rest, on a new connection
        ids = [message["Message-ID"] for _, message in sink.received]
        assert len(ids) == 12 and len(set(ids)) == 12  # each mail once
        assert {row.status for row in outbox(pipe)} == {"sent"}
        deliverer.close()
    finally:
        pipe.close()


def test_a_fold_gives_each_mail_its_own_time_in_statements_of_a_bounded_size(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks go into the outbox a few statements' worth at a time (FOLD_MARKS_PER_STATEMENT each), every mail
    with the time its own mark says, and a mail marked twice in one fold counts one attempt."""
    monkeypatch.setattr(pbem.mail.delivery, "FOLD_MARKS_PER_STATEMENT", 2)
    pipe = Pipeline(tmp_path)
    try:
        for number in range(5):
            pipe.send(f"p{number}@players.example", pipe.addresses.public, f"register player{number}")
        deliverer = Deliverer(pipe.db, "", 25, str(tmp_path / "maildir"))
        assert deliverer.journal is not None
        rows = outbox(pipe)
        times = {row.id: T0 + timedelta(seconds=number, microseconds=number) for number, row in enumerate(rows)}
        for number, when in times.items():
            assert number is not None
            deliverer.journal.write(number, when)
        assert rows[0].id is not None
        deliverer.journal.write(rows[0].id, times[rows[0].id])  # a second mark of the same mail
        assert deliverer.fold() == 6
        folded = outbox(pipe)
        assert [(row.status, row.attempts, row.sent_at, row.leased_by) for row in folded] == [
            ("sent", 1, times[row.id], "") for row in rows]
        deliverer.close()
    finally:
        pipe.close()
