"""Automatic mail: auto-replies, lists, bounces and mail-system senders are never answered."""

from __future__ import annotations

from email.message import EmailMessage

import pytest

from pbem.mail.inbound.automatic import automatic_reason
from pbem.mail.inbound.parse import parse_mail
from tests.mail.helpers import build_mail


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("Auto-Submitted: auto-replied", "Auto-Submitted: auto-replied"),
        ("Auto-Submitted: Auto-Generated; owner-email=\"x@y\"", "Auto-Submitted: auto-generated"),
        ("Auto-Submitted: auto-notified", "Auto-Submitted: auto-notified"),
        ("Auto-Submitted:", "Auto-Submitted: (empty)"),
        ("Auto-Submitted: no", None),
        ("Auto-Submitted: No (a person)", None),
        ("X-Autoreply: yes", "X-Autoreply header (an auto-reply)"),
        ("X-Autorespond: Vacation", "X-Autorespond header (an auto-reply)"),
        ("X-Auto-Response-Suppress: All", "X-Auto-Response-Suppress: All"),
        ("X-Auto-Response-Suppress: DR, OOF, AutoReply", "X-Auto-Response-Suppress: DR, OOF, AutoReply"),
        ("X-Auto-Response-Suppress: oof", "X-Auto-Response-Suppress: oof"),
        ("X-Auto-Response-Suppress: DR, RN, NRN", None),
        ("Precedence: bulk", "Precedence: bulk"),
        ("Precedence: Junk", "Precedence: junk"),
        ("Precedence: list", "Precedence: list"),
        ("Precedence: auto_reply", "Precedence: auto_reply"),
        ("Precedence: first-class", None),
        ("List-Id: Space chess players <players.lists.example.org>", "List-Id header (mailing-list mail)"),
        ("List-Unsubscribe: <mailto:leave@lists.example.org>", "List-Unsubscribe header (mailing-list mail)"),
        ("Return-Path: <>", "Return-Path: <> (null sender)"),
        ("Return-Path: < >", "Return-Path: <> (null sender)"),
        ("Return-Path: <bob@example.org>", None),
        ("X-Failed-Recipients: carol@example.org", "X-Failed-Recipients header (a bounce)"),
    ],
)
def test_automatic_headers(header: str, reason: str | None) -> None:
    assert parse_mail(build_mail(header, b"draw\r\n"), "bob@example.org").automatic == reason


@pytest.mark.parametrize(
    ("from_line", "reason"),
    [
        ("From: MAILER-DAEMON@mx.example.org",
         "sent by a mail-system address (MAILER-DAEMON@mx.example.org)"),
        ("From: Mail Delivery Subsystem <mailer-daemon@googlemail.com>",
         "sent by a mail-system address (mailer-daemon@googlemail.com)"),
        ("From: MAILER-DAEMON (Mail Delivery System)", "sent by a mail-system address (MAILER-DAEMON)"),
        ("From: postmaster@outlook.com", "sent by a mail-system address (postmaster@outlook.com)"),
        ("From: <noreply@example.org>", "sent by a mail-system address (noreply@example.org)"),
        ("From: Bob <bob@example.org>", None),
        ("From: Daemon Fan <daemon@example.org>", None),
    ],
)
def test_mail_system_senders_are_automatic(from_line: str, reason: str | None) -> None:
    assert parse_mail(build_mail("", b"draw\r\n", sender=from_line)).automatic == reason


@pytest.mark.parametrize("envelope", ["", "<>", "  "])
def test_null_envelope_sender_is_automatic(envelope: str) -> None:
    mail = parse_mail(build_mail("", b"draw\r\n"), envelope)
    assert mail.automatic == "null envelope sender (a bounce or an auto-reply)"
    assert mail.sender == "bob@example.org"


def test_unknown_envelope_sender_is_not_automatic() -> None:
    assert parse_mail(build_mail("", b"draw\r\n"), None).automatic is None


def test_multipart_report_is_automatic() -> None:
    raw = build_mail('Content-Type: multipart/report; report-type=disposition-notification; boundary="r"',
                b"--r\r\nContent-Type: text/plain\r\n\r\nRead receipt\r\n--r--\r\n")
    assert parse_mail(raw).automatic == "delivery or disposition report (multipart/report)"


def test_automatic_reason_on_a_message_object() -> None:
    message = EmailMessage()
    message["From"] = "bob@example.org"
    assert automatic_reason(message) is None
    assert automatic_reason(message, "") == "null envelope sender (a bounce or an auto-reply)"
    message["Auto-Submitted"] = "auto-generated"
    assert automatic_reason(message) == "Auto-Submitted: auto-generated"
