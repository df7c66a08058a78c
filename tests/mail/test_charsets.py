"""Bodies in declared, unknown, wrong and missing charsets."""

from __future__ import annotations

import pytest

from pbem.mail.inbound.parse import parse_mail
from tests.mail.helpers import build_mail


def test_quoted_printable_latin_1() -> None:
    raw = build_mail("Content-Type: text/plain; charset=ISO-8859-1\nContent-Transfer-Encoding: quoted-printable",
                b"Pe2-e4\r\nMerci, =E0 bient=F4t\r\n")
    assert parse_mail(raw).commands == ("Pe2-e4", "Merci, à bientôt")


def test_unknown_charset_utf8_text() -> None:
    raw = build_mail('Content-Type: text/plain; charset="x-unknown"\nContent-Transfer-Encoding: 8bit',
                "Pe2-e4 ✓\r\n".encode())
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4 ✓",)
    assert mail.problems == ("unknown charset 'x-unknown'; decoded as UTF-8",)


def test_unknown_charset_8bit_text() -> None:
    raw = build_mail('Content-Type: text/plain; charset="x-unknown"\nContent-Transfer-Encoding: 8bit',
                b"Pe2-e4\r\nGr\xfc\xdfe\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("Pe2-e4", "Grüße")
    assert mail.problems == (
        "unknown charset 'x-unknown' and the text is not UTF-8; decoded as Windows-1252",
    )


@pytest.mark.parametrize("charset", ["zlib", "base64", "punycode", "idna", "unicode_escape", "bogus\x00"])
def test_codecs_that_are_no_charsets_are_refused(charset: str) -> None:
    raw = build_mail(f'Content-Type: text/plain; charset="{charset}"', b"draw\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("draw",)
    assert len(mail.problems) == 1 and mail.problems[0].startswith("unknown charset")


def test_wrong_charset_is_replaced_and_noted() -> None:
    raw = build_mail("Content-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit",
                b"draw\r\nGr\xfc\xdfe\r\n")
    mail = parse_mail(raw)
    assert mail.commands == ("draw", "Gr\ufffd\ufffde")
    assert mail.problems == ("the text is not valid utf-8; undecodable bytes were replaced",)


def test_undeclared_8bit_is_read_as_windows_1252() -> None:
    mail = parse_mail(build_mail("", b"draw \x96 Gr\xfc\xdfe\r\n"))
    assert mail.commands == ("draw – Grüße",)
    assert mail.problems == (
        "the text was without a declared charset but is not UTF-8; decoded as Windows-1252",
    )
