"""SQLite's writers queue on an flock beside the database: held for exactly the transaction, seen by
other processes, let go on rollback, and never for a database in memory."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert
from sqlmodel import Session, col, select

from pbem.store import db as db_module
from pbem.store.db import Database
from pbem.store.models import Setting


def other_process_can_take(lock: Path) -> bool:
    """Whether a separate process gets the writers' flock right now (without waiting)."""
    probe = ("import fcntl, os, sys\n"
             "fd = os.open(sys.argv[1], os.O_RDWR)\n"
             "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\nexcept BlockingIOError:\n    sys.exit(1)\n")
    return subprocess.run([sys.executable, "-c", probe, str(lock)], check=False).returncode == 0


def test_a_transaction_holds_the_writers_lock_against_other_processes(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    lock = tmp_path / "pbem.sqlite3.writer-lock"
    assert lock.exists()
    assert other_process_can_take(lock)
    with db.transaction() as session:
        session.add(Setting(key="k", value="v"))
        assert not other_process_can_take(lock)
        with db.read() as reader:  # readers take no lock: WAL lets them run beside the writer
            assert reader.exec(select(Setting).where(Setting.key == "k")).first() is None
    assert other_process_can_take(lock)
    with db.read() as reader:
        assert reader.exec(select(Setting.value).where(Setting.key == "k")).one() == "v"


def test_a_rolled_back_transaction_lets_the_lock_go(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    with pytest.raises(RuntimeError), db.transaction() as session:
        session.add(Setting(key="k", value="v"))
        raise RuntimeError("half-way")
    assert other_process_can_take(tmp_path / "pbem.sqlite3.writer-lock")
    with db.read() as reader:
        assert reader.exec(select(Setting).where(Setting.key == "k")).first() is None


def test_a_writer_waits_for_another_process_holding_the_lock(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    released = tmp_path / "released"  # written by the holder just before it lets the lock go
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('held', flush=True)\ntime.sleep(0.5)\n"
         "open(sys.argv[2], 'w').close()\nfcntl.flock(fd, fcntl.LOCK_UN)\n",
         str(tmp_path / "pbem.sqlite3.writer-lock"), str(released)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        # Blocks until the holder lets go. (It used to check that the holder had exited, which raced with
        # the exit itself: the kernel drops a dying process's locks a moment before its parent can reap it.)
        with db.transaction() as session:
            assert released.exists()
            session.add(Setting(key="after", value="1"))
    finally:
        holder.wait(10)


def test_a_database_in_memory_has_no_lock_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    for url in ("sqlite://", "sqlite:///:memory:"):
        db = Database(url)
        db.create_all()
        with db.transaction() as session:
            session.add(Setting(key=url, value="1"))
    assert not list(tmp_path.iterdir())


def test_the_holder_sees_a_writer_of_its_own_process_waiting(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    entered = threading.Event()
    with db.transaction():
        assert not db.writers_waiting()
        waiter = threading.Thread(target=lambda: (db.write(update_setting()), entered.set()))
        waiter.start()
        assert wait_until(db.writers_waiting)
        assert not entered.is_set()
    waiter.join(10)
    assert entered.is_set() and not db.writers_waiting()


def test_the_holder_sees_a_writer_of_another_process_waiting(tmp_path: Path) -> None:
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    waiter_code = ("import sys\nfrom pbem.store.db import Database\nfrom pbem.store.models import Setting\n"
                   "db = Database(sys.argv[1])\nprint('waiting', flush=True)\n"
                   "with db.transaction() as session:\n    session.add(Setting(key='other', value='1'))\n")
    with db.transaction():
        waiter = subprocess.Popen([sys.executable, "-c", waiter_code, db.url], stdout=subprocess.PIPE, text=True)
        try:
            assert waiter.stdout is not None and waiter.stdout.readline().strip() == "waiting"
            assert wait_until(db.writers_waiting)
            assert waiter.poll() is None  # it waits for us
        except BaseException:
            waiter.kill()
            raise
    assert waiter.wait(20) == 0
    assert not db.writers_waiting()
    with db.read() as reader:
        assert reader.exec(select(Setting.value).where(Setting.key == "other")).one() == "1"


def test_postgresql_never_reports_waiting_writers(database_url: str | None) -> None:
    """PostgreSQL's writers lock rows, not the database: a batch never commits early for them."""
    if database_url is None:
        pytest.skip("the SQLite case is the tests above")
    db = Database(database_url)
    db.create_all()
    try:
        with db.transaction():
            other = threading.Thread(target=lambda: db.write(update_setting()))
            other.start()
            other.join(10)  # not waiting for us: it has written already
            assert not other.is_alive()
            assert not db.writers_waiting()
    finally:
        db.dispose()


def update_setting() -> Any:
    return insert(Setting).values(key="waiter", value="1")


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def queued_settings(tmp_path: Path, count: int) -> tuple[Database, Any]:
    """A SQLite database with ``count`` queued rows (settings "queued-N" = "new"), and the select of those
    still new."""
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    with db.transaction() as session:
        for number in range(count):
            session.add(Setting(key=f"queued-{number}", value="new"))
    return db, select(Setting).where(col(Setting.key).startswith("queued-"), Setting.value == "new")


def never_fails(_session: Session, row: Setting, error: Exception) -> None:
    raise AssertionError(f"{row.key} failed: {error!r}")


def letting_a_writer_come(db: Database, handled: list[str], after: int = 1,
                          pause: float = 0.0) -> tuple[Callable[[Session, Setting], None], threading.Thread]:
    """A batch's ``handle`` that marks each row done and keeps its key in ``handled``, and after the ``after``-th row
    starts a writer and waits until the batch sees it waiting (then ``pause`` seconds a row); and that writer."""
    waiter = threading.Thread(target=lambda: db.write(update_setting()))

    def handle(_session: Session, row: Setting) -> None:
        row.value = "done"
        handled.append(row.key)
        if len(handled) == after:  # a writer comes while the batch is under way
            waiter.start()
            assert wait_until(db.writers_waiting)
        time.sleep(pause)

    return handle, waiter


def test_a_batch_commits_early_for_a_waiting_writer_and_leaves_the_rest(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_module, "YIELD_AFTER_SECONDS", 0.0)  # lets a writer in as soon as it waits
    db, queued = queued_settings(tmp_path, 5)
    handled: list[str] = []
    handle, waiter = letting_a_writer_come(db, handled, after=2)

    assert db.work_through(queued.limit(1), queued.order_by(col(Setting.key)).limit(10), handle, never_fails)
    waiter.join(10)
    assert handled == ["queued-0", "queued-1"]  # committed after the second row, not after all five
    with db.read() as reader:
        assert reader.exec(select(Setting.value).where(Setting.key == "waiter")).one() == "1"
        assert len(reader.exec(queued).all()) == 3
    while db.work_through(queued.limit(1), queued.order_by(col(Setting.key)).limit(10), handle, never_fails):
        pass
    assert handled == [f"queued-{number}" for number in range(5)]


def test_a_batch_keeps_the_lock_from_a_waiting_writer_until_it_has_held_it_long_enough(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A writer that comes while a batch is young waits: the batch lets it in only once it has held the lock for
    YIELD_AFTER_SECONDS, so the listener's commits do not come between every two of the worker's mails."""
    monkeypatch.setattr(db_module, "YIELD_AFTER_SECONDS", 0.3)
    db, queued = queued_settings(tmp_path, 6)
    handled: list[str] = []
    handle, waiter = letting_a_writer_come(db, handled, pause=0.1)
    began = time.monotonic()
    assert db.work_through(queued.limit(1), queued.order_by(col(Setting.key)).limit(10), handle, never_fails)
    took = time.monotonic() - began
    waiter.join(10)
    # Rows went on after the writer came (0.1 s each), and the batch ended once it had held the lock 0.3 s.
    assert 2 < len(handled) < 6 and took >= 0.3
    with db.read() as reader:
        assert reader.exec(select(Setting.value).where(Setting.key == "waiter")).one() == "1"
        assert len(reader.exec(queued).all()) == 6 - len(handled)


def test_a_huge_threshold_keeps_a_writer_out_for_the_whole_batch(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_module, "YIELD_AFTER_SECONDS", 3600.0)
    db, queued = queued_settings(tmp_path, 4)
    handled: list[str] = []
    handle, waiter = letting_a_writer_come(db, handled)

    assert db.work_through(queued.limit(1), queued.order_by(col(Setting.key)).limit(10), handle, never_fails)
    waiter.join(10)
    assert handled == [f"queued-{number}" for number in range(4)]  # one transaction for the whole batch
    with db.read() as reader:
        assert reader.exec(queued).all() == []


def test_a_round_cut_short_goes_on_without_polling_and_an_empty_queue_is_polled_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(db_module, "YIELD_AFTER_SECONDS", 0.0)
    db, queued = queued_settings(tmp_path, 3)
    waiting, batch = queued.limit(1), queued.order_by(col(Setting.key)).limit(10)
    polls: list[bool] = []
    poll = db.waiting

    def counted(statement: object) -> bool:
        polls.append(found := poll(statement))
        return found

    db.waiting = counted  # type: ignore[method-assign]
    handled: list[str] = []
    handle, waiter = letting_a_writer_come(db, handled)

    assert db.work_through(waiting, batch, handle, never_fails)  # polled, then cut short after the first row
    waiter.join(10)
    assert handled == ["queued-0"] and polls == [True]
    assert db.work_through(waiting, batch, handle, never_fails)  # the rest, without a poll: the round knew they waited
    assert handled == ["queued-0", "queued-1", "queued-2"] and polls == [True]
    assert not db.work_through(waiting, batch, handle, never_fails)  # a round that finished polls again
    assert polls == [True, False]


def test_a_failed_row_is_recorded_alone_and_its_batch_handled_again(tmp_path: Path) -> None:
    """The row that raises takes its transaction with it: only ``fail``'s record of it stays, and the rows
    handled before it in that transaction are handled again, in a transaction that commits."""
    db, queued = queued_settings(tmp_path, 4)
    waiting, batch = queued.limit(1), queued.order_by(col(Setting.key)).limit(10)
    handled: list[str] = []
    failed: list[tuple[str, str]] = []

    def handle(session: Session, row: Setting) -> None:
        handled.append(row.key)
        row.value = "done"
        session.add(Setting(key=f"made-by-{row.key}", value="1"))  # pending work, gone if it fails
        if row.key == "queued-2":
            raise RuntimeError("disk on fire")

    def fail(session: Session, row: Setting, error: Exception) -> None:
        failed.append((row.key, str(error)))
        row.value = "failed"  # the row as this transaction reads it
        session.add(row)

    assert db.work_through(waiting, batch, handle, fail)
    assert failed == [("queued-2", "disk on fire")]
    assert handled == ["queued-0", "queued-1", "queued-2", "queued-0", "queued-1", "queued-3"]
    with db.read() as reader:
        values = dict(reader.exec(select(Setting.key, Setting.value).where(col(Setting.key).contains("queued-"))).all())
    assert values == {"queued-0": "done", "queued-1": "done", "queued-2": "failed", "queued-3": "done",
                      "made-by-queued-0": "1", "made-by-queued-1": "1", "made-by-queued-3": "1"}
    assert not db.work_through(waiting, batch, handle, fail)


def test_a_queue_whose_rows_keep_failing_ends_the_round_and_goes_on_in_the_next(tmp_path: Path) -> None:
    """Each failure redoes its batch: a round stops after a few, and the next takes the rest without a poll."""
    db, queued = queued_settings(tmp_path, 12)
    waiting, batch = queued.limit(1), queued.order_by(col(Setting.key)).limit(1)
    failed: list[str] = []

    def handle(_session: Session, row: Setting) -> None:
        raise ValueError(row.key)

    def fail(session: Session, row: Setting, error: Exception) -> None:
        failed.append(str(error))
        row.value = "failed"  # the row as this transaction reads it
        session.add(row)

    assert db.work_through(waiting, batch, handle, fail)
    assert 0 < len(failed) < 12
    while db.work_through(waiting, batch, handle, fail):
        pass
    assert sorted(failed) == sorted(f"queued-{number}" for number in range(12))


def test_the_holder_runs_with_a_short_switch_interval_and_gives_the_old_one_back(tmp_path: Path) -> None:
    """While the writers' lock is held the interpreter hands its own lock around every HOLDING_SWITCH_SECONDS, so
    a holder whose statement let it go has it back soon; after, as before, also when the transaction fails."""
    db = Database(f"sqlite:///{tmp_path / 'pbem.sqlite3'}")
    db.create_all()
    before = sys.getswitchinterval()
    assert before > db_module.HOLDING_SWITCH_SECONDS
    with db.transaction() as session:
        session.add(Setting(key="k", value="v"))
        assert sys.getswitchinterval() == pytest.approx(db_module.HOLDING_SWITCH_SECONDS)
    assert sys.getswitchinterval() == before
    with pytest.raises(ZeroDivisionError), db.transaction():
        assert sys.getswitchinterval() == pytest.approx(db_module.HOLDING_SWITCH_SECONDS)
        1 / 0  # noqa: B018
    assert sys.getswitchinterval() == before
