"""parse_mail on whole mails as clients send them (tests/mail/samples), and on anything at all."""

from __future__ import annotations

import email
from email import policy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.mail.inbound.html_text import html_to_text
from pbem.mail.inbound.parse import InboundMail, parse_mail
from pbem.mail.inbound.quotes import extract_commands
from tests.mail.helpers import LINE_BREAKS, SAMPLES, read_sample

# Whole mails as clients send them (tests/mail/samples/*.eml, and CRLF versions of them)


def _html_part(raw: bytes) -> str:
    message = email.message_from_bytes(raw, policy=policy.default)
    for part in message.walk():
        if part.get_content_type() == "text/html":
            return str(part.get_content())
    raise AssertionError("no HTML part")


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_gmail_reply(crlf: bool) -> None:
    mail = parse_mail(read_sample("gmail_reply.eml", crlf), "alice.player@gmail.com")
    assert mail == InboundMail(
        message_id="<CAJ7x2Lz9q_Fv3=Kp0wX+7b@mail.gmail.com>",
        sender="alice.player@gmail.com",
        sender_name="Alice Player",
        subject="Re: [pbem #17] Bob played 1c2-1c3",
        in_reply_to="<game-17-move-13@pbem.localhost>",
        references=("<game-17-move-12@pbem.localhost>", "<game-17-move-13@pbem.localhost>"),
        automatic=None,
        body=(
            "Pe2-e4 #14\ndraw\n\nOn Mon, May 6, 2024 at 9:00\u202fAM pbem "
            "<pbem+g17w4.0123456789abcdef0123@pbem.localhost> wrote:\n\n"
            "> Bob played 1c2-1c3.\n>\n> resign\n>\n"
        ),
        commands=("Pe2-e4 #14", "draw"),
        problems=(),
    )


def test_gmail_reply_html_part_reads_the_same() -> None:
    assert extract_commands(html_to_text(_html_part(read_sample("gmail_reply.eml")))) == ["Pe2-e4 #14", "draw"]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_outlook_reply_windows_1252(crlf: bool) -> None:
    mail = parse_mail(read_sample("outlook_reply.eml", crlf), "bjorn.muller@contoso.com")
    assert mail.message_id == "<AM0PR07MB1234ABCD5678EF90@AM0PR07MB1234.eurprd07.prod.outlook.com>"
    assert mail.sender == "bjorn.muller@contoso.com"
    assert mail.sender_name == "Björn Müller"
    assert mail.subject == "RE: [pbem #5] Your move"
    assert mail.in_reply_to == "<game-5-move-3@pbem.localhost>"
    assert mail.references == ("<game-5-move-3@pbem.localhost>",)
    assert mail.automatic is None
    assert mail.body.startswith("Nf3xe5\n\nGrüße – Björn\n\n-----Original Message-----\n")
    assert mail.commands == ("Nf3xe5", "Grüße – Björn")
    assert mail.problems == ()


def test_outlook_reply_html_part_reads_the_same() -> None:
    text = html_to_text(_html_part(read_sample("outlook_reply.eml")))
    assert extract_commands(text) == ["Nf3xe5", "Grüße – Björn"]


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_apple_mail_from_an_iphone(crlf: bool) -> None:
    mail = parse_mail(read_sample("apple_mail_iphone.eml", crlf), "carol@icloud.com")
    assert mail == InboundMail(
        message_id="<6F1E2D3C-4B5A-6978-8190-A1B2C3D4E5F6@icloud.com>",
        sender="carol@icloud.com",
        sender_name="Carol",
        subject="Re: [pbem #9] Black to move",
        in_reply_to="<game-9-move-20@pbem.localhost>",
        references=("<game-9-move-20@pbem.localhost>",),
        automatic=None,
        body=(
            "Qd8-h4\u00a0\n\nSent from my iPhone\n\n> On 6 May 2024, at 21:00, pbem "
            "<pbem+g9b7.00112233445566778899@pbem.localhost> wrote:\n> \n"
            "> \ufeffBlack to move. Your opponent played Bf1-c4.\n> resign\n"
        ),
        commands=("Qd8-h4",),
        problems=(),
    )


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_thunderbird_format_flowed(crlf: bool) -> None:
    mail = parse_mail(read_sample("thunderbird_flowed.eml", crlf), "dave@posteo.de")
    # Unflowing joins the soft-wrapped comment into one '//' line; read raw, its second half
    # would have been taken for a command.
    assert mail.body == (
        "1c2-1c3 #8\n// next time I will bring the attack board over, this remark is long enough for the "
        "client to wrap it\n\nOn 07/05/2024 18:00, pbem wrote:\n> White to move.\n> \n> resign\n"
    )
    assert mail.commands == ("1c2-1c3 #8",)
    assert (mail.sender, mail.sender_name) == ("dave@posteo.de", "Dave Example")
    assert mail.message_id == "<3b0d1c2e-5f6a-4b7c-8d9e-0f1a2b3c4d5e@posteo.de>"
    assert mail.problems == ()


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_bounce(crlf: bool) -> None:
    mail = parse_mail(read_sample("bounce_dsn.eml", crlf), "")
    assert mail.automatic == "null envelope sender (a bounce or an auto-reply)"
    assert mail.sender == "mailer-daemon@mail.example.net"
    assert mail.subject == "Undelivered Mail Returned to Sender"
    # The returned original (message/rfc822) is never read: its "resign" is not the sender's.
    assert "resign" not in mail.commands
    assert mail.commands[0] == "This is the mail system at host mail.example.net."


def test_bounce_without_envelope_is_still_automatic() -> None:
    assert parse_mail(read_sample("bounce_dsn.eml")).automatic == "Return-Path: <> (null sender)"


# Whole mails built here, and anything at all


def test_empty_body() -> None:
    mail = parse_mail(b"From: bob@example.org\r\nSubject: nothing\r\n\r\n")
    assert (mail.body, mail.commands, mail.problems) == ("", (), ())


def test_non_bytes_input_does_not_raise() -> None:
    assert parse_mail("From: a@b.org\n\ndraw\n").commands == ("draw",)  # type: ignore[arg-type]
    assert parse_mail(bytearray(b"From: a@b.org\n\ndraw\n")).commands == ("draw",)  # type: ignore[arg-type]
    assert parse_mail(None).commands == ()  # type: ignore[arg-type]


def _assert_well_formed(mail: InboundMail) -> None:
    header_fields = (mail.message_id, mail.sender, mail.sender_name, mail.subject, mail.in_reply_to,
                     *mail.references, mail.automatic or "")
    for value in (*header_fields, *mail.commands, *mail.problems):
        assert not any(ch in value for ch in LINE_BREAKS), repr(value)
        value.encode("utf-8")  # no lone surrogates: a reply built from it can be sent
    mail.body.encode("utf-8")
    assert "\x00" not in mail.body
    for command in mail.commands:
        assert command and command == command.strip() and not command.startswith((">", "//"))


SAMPLE_MAILS = [path.read_bytes() for path in sorted(SAMPLES.glob("*.eml"))]


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=3000))
def test_parse_mail_never_raises_on_arbitrary_bytes(raw: bytes) -> None:
    _assert_well_formed(parse_mail(raw))


@st.composite
def mutated_mails(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SAMPLE_MAILS)))
    for _ in range(draw(st.integers(1, 12))):
        position = draw(st.integers(0, len(data)))
        operation = draw(st.sampled_from(["insert", "delete", "replace", "splice"]))
        chunk = draw(st.sampled_from([b"\r\n", b"\n\n", b"--", b"=?", b"?=", b"=", b":", b";", b"\"", b"<",
                                      b">", b"\x00", b"\xff", b"\xc3", b"=?utf-8?q?=0D=0A?=", b"boundary=",
                                      b"Content-Type: multipart/mixed\r\n", b"charset=x-bogus"])
                     | st.binary(max_size=8))
        if operation == "insert":
            data[position:position] = chunk
        elif operation == "delete":
            del data[position:position + draw(st.integers(1, 64))]
        elif operation == "replace":
            data[position:position + len(chunk)] = chunk
        else:
            start = draw(st.integers(0, len(data)))
            data[position:position] = data[start:start + draw(st.integers(1, 200))]
    return bytes(data)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_mails(), st.one_of(st.none(), st.text(max_size=20)))
def test_parse_mail_never_raises_on_mutated_mails(raw: bytes, envelope: str | None) -> None:
    _assert_well_formed(parse_mail(raw, envelope))


HEADER_NAMES = ["From", "To", "Subject", "Message-ID", "In-Reply-To", "References", "Content-Type",
                "Content-Transfer-Encoding", "Content-Disposition", "Auto-Submitted", "Precedence",
                "Return-Path", "List-Id", "X-Auto-Response-Suppress", "MIME-Version"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(HEADER_NAMES), st.text(max_size=60)), max_size=10),
    st.text(max_size=300),
    st.sampled_from(["utf-8", "latin-1"]),
)
def test_parse_mail_never_raises_on_odd_headers(
    headers: list[tuple[str, str]], body: str, encoding: str
) -> None:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers)
    raw = (head + "\r\n" + body).encode(encoding, "replace")
    _assert_well_formed(parse_mail(raw))
