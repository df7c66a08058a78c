"""Header values: encoded words, raw 8-bit bytes, injection attempts, From and threading ids."""

from __future__ import annotations

import base64

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pbem.mail.inbound import headers
from pbem.mail.inbound.headers import _parse_from_strictly, parse_from
from pbem.mail.inbound.parse import parse_mail
from tests.mail.helpers import build_mail


def test_iso_8859_1_encoded_word_display_name() -> None:
    # The RFC 2047 example: adjacent encoded words in two charsets join without the space.
    subject = ("Subject: =?ISO-8859-1?B?SWYgeW91IGNhbiByZWFkIHRoaXMgeW8=?=\n"
               " =?ISO-8859-2?B?dSB1bmRlcnN0YW5kIHRoZSBleGFtcGxlLg==?=")
    raw = build_mail(subject,
                b"draw\r\n", sender="From: =?ISO-8859-1?Q?Andr=E9?= Pirard <PIRARD@vm1.ulg.ac.be>")
    mail = parse_mail(raw)
    assert mail.sender_name == "André Pirard"
    assert mail.sender == "pirard@vm1.ulg.ac.be"
    assert mail.subject == "If you can read this you understand the example."


def test_raw_utf8_and_latin1_header_bytes() -> None:
    utf8 = parse_mail("From: José Müller <jose@example.org>\r\nSubject: café\r\n\r\ndraw\r\n".encode())
    assert (utf8.sender_name, utf8.subject) == ("José Müller", "café")
    latin1 = parse_mail("From: José <jose@example.org>\r\nSubject: café\r\n\r\ndraw\r\n".encode("latin-1"))
    assert (latin1.sender, latin1.sender_name, latin1.subject) == ("jose@example.org", "José", "café")


def test_header_injection_in_name_and_subject() -> None:
    raw = build_mail("Subject: =?utf-8?q?Bob=0D=0ABcc:_evil@x?=\nMessage-ID: <id@x>\r\n", b"draw\r\n",
                sender="From: =?utf-8?q?Bob=0D=0ABcc:_evil@x?= <bob@example.org>")
    mail = parse_mail(raw)
    assert mail.sender == "bob@example.org"
    assert mail.sender_name == "Bob Bcc: evil@x"
    assert mail.subject == "Bob Bcc: evil@x"
    assert mail.commands == ("draw",)


def test_header_injection_with_unicode_separators() -> None:
    raw = build_mail("Subject: =?utf-8?b?" + base64.b64encode("a\u2028Bcc: x@y\x85z\x00".encode()).decode() + "?=",
                b"draw\r\n")
    assert parse_mail(raw).subject == "a Bcc: x@y z"


def test_mail_without_from_uses_the_envelope_sender() -> None:
    raw = build_mail("Subject: hi", b"resign\r\n", sender=None)
    assert parse_mail(raw, "<Player@Example.ORG>").sender == "player@example.org"
    assert parse_mail(raw, "player@example.org").sender_name == ""
    assert parse_mail(raw).sender == ""


@pytest.mark.parametrize(
    "from_line",
    ["From: Bob", "From: <<<@@>>", "From:", "From: Bob <bob at example.org>", "From: =?",
     'From: "Bob Smith"@example.org'],
)
def test_unparseable_from_falls_back_to_the_envelope(from_line: str) -> None:
    raw = build_mail("", b"draw\r\n", sender=from_line)
    assert parse_mail(raw, "bob@example.org").sender == "bob@example.org"
    assert parse_mail(raw).sender == ""


@pytest.mark.parametrize(
    "from_line",
    # RFC 5322 3.6.2: From holds mailboxes, never a group; a group's members are nobody to answer.
    # The first was found by the hostile-mail property test: an encoded word cut by a line break
    # left "Name: victim@e" for the strict parser to read as a group.
    ["From: =?utf-8?q?Sam=0D=0ABcc:_victim@e", "From: Team: victim@example.com, v2@example.com;",
     "From: undisclosed-recipients:;", "From: " + "x" * 1000 + ": victim@example.com"],
)
def test_a_group_in_from_is_no_sender(from_line: str) -> None:
    raw = build_mail("", b"games\r\n", sender=from_line)
    assert parse_mail(raw, "bob@example.org").sender == "bob@example.org"
    assert parse_mail(raw).sender == ""


def test_a_colon_inside_a_quoted_name_is_no_group() -> None:
    mail = parse_mail(build_mail("", b"draw\r\n", sender='From: "Dr: Who" <who@example.org>'))
    assert (mail.sender, mail.sender_name) == ("who@example.org", "Dr: Who")


def test_display_name_with_comma_and_quotes() -> None:
    mail = parse_mail(build_mail("", b"draw\r\n", sender='From: "Smith, Bob" <Bob.Smith@Example.org>'))
    assert (mail.sender, mail.sender_name) == ("bob.smith@example.org", "Smith, Bob")


def test_threading_headers() -> None:
    ids = [f"<m{i}@x>" for i in range(40)]
    raw = build_mail(
        "Message-ID:   <Orig.ID@Host>  \nIn-Reply-To: <m39@x> (Bob's message of Monday)\n"
        "References: " + "\n ".join(ids),
        b"draw\r\n",
    )
    mail = parse_mail(raw)
    assert mail.message_id == "<Orig.ID@Host>"
    assert mail.in_reply_to == "<m39@x>"
    assert mail.references == (ids[0], *ids[-29:])


def test_message_id_is_kept_as_written() -> None:
    # policy.default's parser would have truncated this to "<a"; the header is kept whole.
    assert parse_mail(build_mail("Message-ID: <a b@x>", b"")).message_id == "<a b@x>"
    assert parse_mail(build_mail("", b"")).message_id == ""


def test_long_from_is_read_by_the_lenient_parser() -> None:
    mail = parse_mail(build_mail("", b"draw\r\n", sender='From: "' + "x" * 300 + '" <Bob@Example.org>'))
    assert (mail.sender, mail.sender_name) == ("bob@example.org", "x" * 300)


# The From most clients write is read without the email package's parser: the two must agree on every
# value, the plain ones and the near misses (quotes, comments, dots, commas, folding, encoded words).
_FROM_PIECES = ["Bob", "Smith", "Ann-Marie", "o'Neil", "#1", " ", "  ", "\t", ".", ",", "<", ">", "@", "a",
                "bob", "example.org", "ex-ample.co.uk", '"', "(c)", ":", ";", "\\", "=?utf-8?q?B=C3=B6b?=",
                "\r\n ", "[1.2.3.4]", "é"]


@given(st.lists(st.sampled_from(_FROM_PIECES), max_size=12))
@example(["Bob", " ", "<", "bob", "@", "example.org", ">"])
@example(["bob", "@", "example.org"])
@example(["Bob", " ", "Smith", " ", "<", "bob", ".", "a", "@", "example.org", ">"])
def test_a_plain_from_reads_as_the_strict_parser_reads_it(pieces: list[str]) -> None:
    raw = "".join(pieces)
    assert parse_from(raw) == _parse_from_strictly(raw)


def test_a_plain_from_is_read_without_the_email_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object) -> tuple[str, str]:
        raise AssertionError("the strict parser was asked")

    monkeypatch.setattr(headers, "_parse_from_strictly", refuse)
    assert parse_from("Bob Smith <bob.smith@example.org>") == ("Bob Smith", "bob.smith@example.org")
    assert parse_from("bob@example.org") == ("", "bob@example.org")
    with pytest.raises(AssertionError):
        parse_from('"Smith, Bob" <bob@example.org>')


@pytest.mark.parametrize("from_value", ['victim@example.com" <tom@example.org>', "Bob <bob@example.org> junk",
                                        "bob@example.org <bob@example.org>", "Bob <bob@example.org>;"])
def test_an_address_the_parser_kept_from_an_unreadable_from_is_no_sender(from_value: str) -> None:
    """What the strict parser keeps of a From it had to skip parts of may be the hostile part: the mail is
    answered at its envelope sender instead (found by test_mutated_samples_through_the_worker)."""
    assert parse_from(from_value) == ("", "")
    mail = parse_mail(f"From: {from_value}\r\nSubject: x\r\n\r\ngames\r\n".encode(), "envelope@players.example")
    assert mail.sender == "envelope@players.example"


def test_a_mail_system_from_without_a_domain_is_still_read() -> None:
    assert parse_from("MAILER-DAEMON (Mail Delivery System)") == ("", "MAILER-DAEMON")
