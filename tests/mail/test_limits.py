"""Bounds on the parser's work: huge mails, many parts, hostile MIME and From headers, deep nesting."""

from __future__ import annotations

import time

import pytest

from pbem.mail.inbound.parse import InboundMail, parse_mail
from tests.mail.helpers import build_mail


def test_huge_mail() -> None:
    body = b"Pe2-e4\r\n" + b"> " + b"x" * 2_000_000 + b"\r\n" + b"filler line\r\n" * 100_000
    start = time.perf_counter()
    mail = parse_mail(build_mail("Subject: " + "s" * 100_000, body))
    assert time.perf_counter() - start < 10
    assert mail.commands == ("Pe2-e4",)
    assert mail.subject == "s" * 100_000


def _timed_parse(raw: bytes, envelope: str | None = None) -> InboundMail:
    start = time.perf_counter()
    mail = parse_mail(raw, envelope)
    # Generous; unbounded, the stdlib's parsers took from 6 s to minutes on these mails.
    assert time.perf_counter() - start < 5
    return mail


def test_many_mime_parts_are_bounded() -> None:
    part = b"--b\r\n\r\nx\r\n"
    raw = build_mail('Content-Type: multipart/mixed; boundary="b"',
                b"--b\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n" + part * 100_000 + b"--b--\r\n")
    mail = _timed_parse(raw)
    assert mail.commands == ("Pe2-e4",)
    assert mail.problems == ("the mail had too many parts or '--' lines; only its beginning was read",)


@pytest.mark.parametrize("unit", ['"', "(a)", ";", "a,"])
def test_hostile_mime_headers_are_bounded(unit: str) -> None:
    hostile = unit * 20_000
    part = (f"--b\r\nContent-Type: text/plain{hostile}\r\nContent-Disposition: {hostile}\r\n"
            f"Content-Transfer-Encoding: {hostile}\r\n\r\nx\r\n").encode()
    raw = build_mail('Content-Type: multipart/mixed; boundary="b"',
                b"--b\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n" + part * 15 + b"--b--\r\n")
    assert _timed_parse(raw).commands == ("Pe2-e4",)


@pytest.mark.parametrize("unit", ['"', "(a)", ";", "a,"])
def test_hostile_from_is_bounded(unit: str) -> None:
    raw = build_mail("", b"draw\r\n", sender="From: " + unit * 300_000)
    mail = _timed_parse(raw, "bob@example.org")
    assert (mail.sender, mail.sender_name, mail.commands) == ("bob@example.org", "", ("draw",))


def test_nested_multiparts_are_bounded() -> None:
    depth = 500
    opening = b"".join(b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (i, i + 1)
                       for i in range(depth))
    raw = build_mail("Content-Type: multipart/mixed; boundary=b0", opening + b"--b500\r\n\r\ndraw\r\n")
    assert isinstance(parse_mail(raw), InboundMail)
