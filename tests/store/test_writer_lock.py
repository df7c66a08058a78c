"""SQLite's writers queue on an flock beside the database: held for exactly the transaction, seen by
other processes, let go on rollback, and never for a database in memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import select

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
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time\n"
         "fd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
         "print('held', flush=True)\ntime.sleep(0.5)\n", str(tmp_path / "pbem.sqlite3.writer-lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with db.transaction() as session:  # blocks until the holder exits (its lock goes with it)
            assert holder.poll() is not None
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
