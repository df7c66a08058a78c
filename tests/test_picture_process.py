"""The board pictures drawn in a process of their own: what pbem serve's deliverer sends is drawn there, the
same PNG as drawn here; a child that dies or hangs costs no mail its picture, and another one takes over."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

import pbem.picture_process as picture_process
from pbem.mail.compose import InlineImage, Outgoing, compose
from pbem.mail.later_pictures import finished
from pbem.metrics import REGISTRY
from pbem.picture_process import PictureProcess
from pbem.variants import get_variant
from tests.helpers.harness import Harness, open_game
from tests.test_worker_process import alive
from tests.web.test_health import delta, samples


def _queued(variant: str = "tri-d") -> tuple[bytes, str]:
    """A game mail as the worker queues it: its bytes with a marker line, and the board to draw there."""
    engine = get_variant(variant)
    board = engine.view(engine.setup(), engine.to_act(engine.setup()) or "public").board
    assert board is not None
    mail = Outgoing(to="bob@players.example", subject="Game 1", body="Your move.\n", reply_to="g1@pbem.example",
                    html='<img src="cid:b@pbem.example">', images=(InlineImage("b@pbem.example", b"", board=board),))
    composed = compose(mail, "pbem@pbem.example", "pbem", "pbem.example")
    assert composed.pictures
    return composed.raw, composed.pictures


def _png_of(mail: EmailMessage) -> bytes:
    images = [part for part in mail.walk() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    payload = images[0].get_payload(decode=True)
    assert isinstance(payload, bytes)
    return payload


def test_the_child_draws_what_this_process_would() -> None:
    pictures = PictureProcess()
    try:
        for variant in ("tri-d", "space-chess", "outer-space", "voidrider", "hyperspace"):
            raw, boards = _queued(variant)
            assert pictures.finish(raw, boards) == finished(raw, boards), variant
        assert pictures.finish(b"no pictures", "") == b"no pictures"
        assert pictures.pid is not None and pictures.pid != os.getpid() and alive(pictures.pid)
        assert Path(f"/proc/{pictures.pid}/comm").read_text() == "pbem-pictures\n"  # what ps and top show
        assert pictures.drawn_here == 0
    finally:
        pictures.close()
    assert pictures.pid is None


def test_a_killed_child_costs_no_picture_and_another_takes_over(monkeypatch: pytest.MonkeyPatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(picture_process, "RESTART_SECONDS", 0.5)
    pictures = PictureProcess()
    raw, boards = _queued()
    try:
        pictures.start()
        first = pictures.pid
        assert first is not None
        os.kill(first, signal.SIGKILL)
        here_before = REGISTRY.get_sample_value("pbem_mails_drawn_total", {"where": "server"}) or 0.0
        with caplog.at_level(logging.ERROR, logger="pbem.picture_process"):
            assert pictures.finish(raw, boards) == finished(raw, boards)  # drawn here meanwhile
            assert pictures.finish(raw, boards) == finished(raw, boards)
        assert "is gone" in caplog.text
        assert pictures.drawn_here == 2 and pictures.pid is None
        assert REGISTRY.get_sample_value("pbem_mails_drawn_total", {"where": "server"}) == here_before + 2
        time.sleep(0.6)
        assert pictures.finish(raw, boards) == finished(raw, boards)  # a new child
        assert pictures.pid not in (None, first) and pictures.drawn_here == 2
    finally:
        pictures.close()


def test_a_child_that_does_not_answer_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(picture_process, "ANSWER_SECONDS", 0.5)
    pictures = PictureProcess()
    raw, boards = _queued()
    try:
        pictures.start()
        stuck = pictures.pid
        assert stuck is not None
        os.kill(stuck, signal.SIGSTOP)
        started = time.monotonic()
        assert pictures.finish(raw, boards) == finished(raw, boards)
        assert time.monotonic() - started < 5
        assert pictures.drawn_here == 1 and not alive(stuck)
    finally:
        pictures.close()


def test_pbem_serve_draws_its_mails_pictures_in_the_child(tmp_path: Path) -> None:
    harness = Harness(tmp_path)
    try:
        assert harness.server is not None and harness.server.pictures is not None
        assert harness.server.web is not None
        alice, bob, opening_a, _ = open_game(harness, "hyperspace")
        before = samples(harness.server.web.port)
        alice.reply(opening_a, "Pe2-e4")
        notice = bob.next_mail(lambda m: "Pe2-e4" in str(m.get_body(preferencelist=("plain",))))
        assert _png_of(notice).startswith(b"\x89PNG")
        pid = harness.server.pictures.pid
        assert pid is not None and pid != os.getpid() and alive(pid)
        assert harness.server.pictures.drawn_here == 0
        after = samples(harness.server.web.port)  # counted at /metrics by where they were drawn
        assert delta(before, after, "pbem_mails_drawn_total", where="picture-process") >= 1
        assert delta(before, after, "pbem_mails_drawn_total", where="server") == 0
    finally:
        harness.close()
    assert not alive(pid)  # gone with the server


def test_pictures_can_be_drawn_in_the_servers_own_process(tmp_path: Path) -> None:
    harness = Harness(tmp_path, PBEM_SERVER_PICTURE_PROCESS="false")
    try:
        assert harness.server is not None and harness.server.pictures is None
        alice, bob, opening_a, _ = open_game(harness, "hyperspace")
        alice.reply(opening_a, "Pe2-e4")
        notice = bob.next_mail(lambda m: "Pe2-e4" in str(m.get_body(preferencelist=("plain",))))
        assert _png_of(notice).startswith(b"\x89PNG")
    finally:
        harness.close()


_FORKED_AND_CLOSED = """
import time
from pbem.picture_process import PictureProcess
pictures = PictureProcess()
pictures.start()  # this process has one thread: the child is forked, and holds a copy of our end of the pipe
child = pictures._process
started = time.monotonic()
pictures.close()
print(child._popen.method, child.exitcode, round(time.monotonic() - started, 2))
"""


def test_a_forked_child_ends_by_itself_when_the_server_closes_its_pipe() -> None:
    """It closes its copy of the server's end first: else it never reads the end of the pipe, and the server
    waits a second at every stop and then kills it."""
    done = subprocess.run([sys.executable, "-c", _FORKED_AND_CLOSED], capture_output=True, text=True, check=True,
                          timeout=60, cwd=Path(__file__).resolve().parents[1])
    method, exitcode, seconds = done.stdout.split()
    assert (method, exitcode) == ("fork", "0"), done.stdout  # not -9: it was not killed
    assert float(seconds) < 0.9
