"""The MIME walk: which part is read, attachments and forwarded mail skipped, broken structure recovered."""

from __future__ import annotations

import base64

from pbem.mail.inbound.parse import parse_mail
from tests.mail.helpers import build_mail


def test_html_only_mail() -> None:
    raw = build_mail(
        "Subject: move\nContent-Type: text/html; charset=utf-8",
        b"<html><head><title>Re: move</title></head><body><p>Ke1-e2</p><p>draw&nbsp;</p>"
        b"<blockquote>resign</blockquote></body></html>",
    )
    mail = parse_mail(raw)
    assert mail.body == "Ke1-e2\ndraw\n> resign"
    assert mail.commands == ("Ke1-e2", "draw")
    assert mail.problems == ("the mail had no text part; read the HTML part",)


def test_empty_text_part_falls_back_to_html() -> None:
    raw = build_mail(
        'Content-Type: multipart/alternative; boundary="b"',
        b"--b\r\nContent-Type: text/plain\r\n\r\n\r\n"
        b"--b\r\nContent-Type: text/html\r\n\r\n<p>draw</p>\r\n--b--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ("draw",)
    assert mail.problems == ("the text part was empty; read the HTML part",)


def test_base64_body() -> None:
    body = base64.encodebytes("resign\r\n\r\n-- \r\nBöb\r\n".encode())
    raw = build_mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: base64", body)
    mail = parse_mail(raw)
    assert mail.body == "resign\n\n-- \nBöb\n"
    assert mail.commands == ("resign",)
    assert mail.problems == ()


def test_no_text_at_all() -> None:
    raw = build_mail("Content-Type: application/pdf\nContent-Disposition: attachment; filename=a.pdf",
                b"%PDF-1.4\r\n")
    mail = parse_mail(raw)
    assert (mail.body, mail.commands) == ("", ())
    assert mail.problems == ("the mail had no readable text part",)


def test_text_attachments_are_not_read() -> None:
    raw = build_mail(
        'Content-Type: multipart/mixed; boundary="b"',
        b"--b\r\nContent-Type: text/plain\r\nContent-Disposition: attachment; filename=game.pgn\r\n\r\n"
        b"resign\r\n"
        b"--b\r\nContent-Type: text/plain\r\n\r\ndraw\r\n--b--\r\n",
    )
    assert parse_mail(raw).commands == ("draw",)


def test_forwarded_mail_inside_is_not_read() -> None:
    raw = build_mail(
        'Content-Type: multipart/mixed; boundary="b"',
        b"--b\r\nContent-Type: message/rfc822\r\n\r\nFrom: x@y\r\n\r\nresign\r\n--b--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ()
    assert mail.problems == ("the mail had no readable text part",)


def test_broken_mime_missing_boundary_is_recovered() -> None:
    raw = build_mail(
        "Content-Type: multipart/alternative",
        b"--XYZ\r\nContent-Type: text/plain\r\n\r\nPe2-e4\r\n--XYZ\r\nContent-Type: text/html\r\n\r\n"
        b"<p>draw</p>\r\n--XYZ--\r\n",
    )
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4",)
    assert mail.problems == (
        "the mail's MIME structure was broken (multipart boundary missing or wrong); "
        "its parts were read anyway",
    )


def test_broken_mime_wrong_boundary_is_recovered() -> None:
    raw = build_mail('Content-Type: multipart/mixed; boundary="abc"',
                b"--XYZ\r\nContent-Type: text/plain\r\n\r\nresign\r\n--XYZ--\r\n")
    assert parse_mail(raw).commands == ("resign",)


def test_broken_mime_without_any_boundary_is_read_as_text() -> None:
    raw = build_mail("Content-Type: multipart/mixed", b"resign\r\n-----Original Message-----\r\ndraw\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("resign",)
    assert mail.problems == ("the mail's MIME structure was broken; its text was read as it came",)
