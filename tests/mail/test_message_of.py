"""A plain single-part mail read without the email package's feed parser: the same Message, the same InboundMail."""

from __future__ import annotations

import email

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pbem.mail.inbound import mime, parse
from pbem.mail.inbound.limits import POLICY
from pbem.mail.inbound.parse import message_of, parse_mail

# Header lines: plain ones, the MIME headers that choose the path (one part, multipart, message/*, broken), and
# near misses the parser must read (8-bit bytes, controls, a space before the colon, a nameless header, an mbox
# line, folding with nothing to fold into).
_LINES = [b"From: Bob <bob@example.org>", b"To: g.12.w.abc@pbem.example", b"Subject: Re: Game 12: your move",
          b"Message-ID: <1.2@players.example>", b"In-Reply-To: <pbem.1@pbem.example>", b"References: <r@x> <s@y>",
          b"Content-Type: text/plain; charset=\"utf-8\"",
          b"Content-Type: text/plain; charset=iso-8859-1; format=flowed",
          b"Content-Type: text/plain; format=flowed; delsp=yes", b"content-type:TEXT/PLAIN;CHARSET=US-ASCII",
          b"Content-Type: text/html; charset=utf-8", b"Content-Type: multipart/alternative; boundary=\"b1\"",
          b"Content-Type: message/rfc822", b"Content-Type: message/delivery-status", b"Content-Type: text/plain;",
          b"Content-Type: ;;;", b"Content-Type:", b"Content-Type: text/plain; charset*=utf-8''%C3%A9",
          b"Content-Transfer-Encoding: quoted-printable", b"Content-Transfer-Encoding: base64",
          b"Content-Transfer-Encoding: 8bit", b"MIME-Version: 1.0", b"X-Tab:\tvalue", b"X-Empty:",
          b"Subject: =?utf-8?q?caf=C3=A9?=", b"Auto-Submitted: auto-replied", b"X-Latin: caf\xe9",
          b"X-Control: a\x01b", b"Subject : spaced", b":nameless", b"From bob Mon Nov 23", b" folded on",
          b"\tcontinued", b"Content-Type: text/plain\x0b"]
_ENDINGS = [b"\r\n", b"\n", b"\r"]
_BODIES = [b"", b"Nf3\r\n", b"e2e4\n\n> quoted\n", b"caf=C3=A9 Nf3=\r\n ok\r\n", b"TmYz\r\n", b"caf\xc3\xa9 Nf3\r\n",
           b"--b1\r\nContent-Type: text/plain\r\n\r\nNf3\r\n--b1--\r\n", b"lone\rcr\r\n", b"From the start\r\n",
           b"line\r\n.\r\n", b"\r\n\r\nafter blank lines"]


def parsed_by_the_email_package(raw: bytes) -> email.message.Message:
    return email.message_from_bytes(raw, policy=POLICY)


def assert_same_message(raw: bytes) -> None:
    ours, theirs = message_of(raw), parsed_by_the_email_package(raw)
    assert list(ours.raw_items()) == list(theirs.raw_items())
    assert ours.is_multipart() == theirs.is_multipart()
    assert ours.get_content_type() == theirs.get_content_type()
    assert [type(defect) for defect in ours.defects] == [type(defect) for defect in theirs.defects]
    if not theirs.is_multipart():
        assert ours.get_payload() == theirs.get_payload()
        assert ours.get_payload(decode=True) == theirs.get_payload(decode=True)
    assert flattened(ours) == flattened(theirs)


def flattened(message: email.message.Message) -> bytes | str:
    """The message written out again, or the kind of error writing it raises (the email package's own, for some
    mails it parsed)."""
    try:
        return message.as_bytes()
    except Exception as error:
        return type(error).__name__


def mail(lines: list[tuple[bytes, bytes]], blank: bytes, body: bytes) -> bytes:
    return b"".join(line + ending for line, ending in lines) + blank + body


@settings(max_examples=300)
@given(st.lists(st.tuples(st.sampled_from(_LINES), st.sampled_from(_ENDINGS)), max_size=8),
       st.sampled_from([b"\r\n", b"\n", b"", b"\r"]), st.sampled_from(_BODIES))
@example([(b"Content-Type: text/plain; format=flowed; delsp=yes", b"\r\n")], b"\r\n", b"Nf3 \r\nok\r\n")
@example([(b"Subject: hi", b"\n"), (b" folded on", b"\n"), (b"\tcontinued", b"\n")], b"\n", b"Nf3\n")
@example([(b"Content-Type: multipart/alternative; boundary=\"b1\"", b"\r\n")], b"\r\n",
         b"--b1\r\nContent-Type: text/plain\r\n\r\nNf3\r\n--b1--\r\n")
@example([(b"Content-Type: message/rfc822", b"\r\n")], b"\r\n", b"Subject: inner\r\n\r\nNf3\r\n")
@example([], b"\r\n", b"Nf3\r\n")
def test_a_mail_reads_as_the_email_package_reads_it(lines: list[tuple[bytes, bytes]], blank: bytes,
                                                    body: bytes) -> None:
    assert_same_message(mail(lines, blank, body))


@settings(max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(_LINES), st.sampled_from(_ENDINGS)), max_size=8),
       st.sampled_from([b"\r\n", b"\n", b""]), st.sampled_from(_BODIES))
def test_the_worker_reads_the_same_mail_either_way(lines: list[tuple[bytes, bytes]], blank: bytes,
                                                   body: bytes) -> None:
    raw = mail(lines, blank, body)
    fast = parse_mail(raw, "bob@example.org", is_command)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(parse, "message_of", parsed_by_the_email_package)
        slow = parse_mail(raw, "bob@example.org", is_command)
    assert fast == slow


def is_command(line: str) -> bool:
    return line.split()[0] in {"Nf3", "e2e4", "resign"}


def test_a_plain_reply_is_read_without_the_feed_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> object:
        raise AssertionError("the email package's parser was asked")

    raw = (b"From: Bob <bob@example.org>\r\nSubject: Re: Game 3\r\nMessage-ID:\r\n <1.2@players.example>\r\n"
           b"Content-Type: text/plain; charset=\"utf-8\"; format=flowed\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
           b"Nf3 \r\nplease\r\n\r\n> Your move\r\n")
    monkeypatch.setattr(parse.email, "message_from_bytes", refuse)
    read = parse_mail(raw, "bob@example.org", lambda line: line.startswith("Nf3"))
    assert read.message_id == "<1.2@players.example>"
    assert read.commands == ("Nf3 please",)
    with pytest.raises(AssertionError):  # a multipart body: the parser reads it
        message_of(b"Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nNf3\r\n--b--\r\n")
    with pytest.raises(AssertionError):  # 8-bit bytes in a header: the parser reads them
        message_of(b"Subject: caf\xc3\xa9\r\n\r\nNf3\r\n")


def param_as_get_param_reads_it(part: email.message.Message, name: str) -> str | None:
    """The reading before the parameters were parsed once per part: one ``get_param`` per name."""
    try:
        value = part.get_param(name)
    except Exception:
        return None
    if isinstance(value, tuple):
        value = value[2]
    if not isinstance(value, str):
        return None
    return mime.clean(value).strip("\"'").lower() or None


_PARAMS = ["charset=utf-8", 'charset="ISO-8859-1"', "CHARSET=us-ascii", "format=flowed", "Format=Flowed",
           "delsp=yes", 'delsp="no"', "charset*=utf-8''%C3%A9", "charset*0=utf; charset*1=-8", "charset",
           "charset=", "=x", '"quoted;semi"', "format=flowed; format=fixed", "name=\"a\\\"b\"", "charset='x'"]


@given(st.sampled_from(["text/plain", "TEXT/PLAIN", "text/html", "", "text"]),
       st.lists(st.sampled_from(_PARAMS), max_size=4), st.sampled_from(["; ", ";", " ;  "]))
def test_the_parameters_read_once_are_those_get_param_reads(ctype: str, params: list[str], separator: str) -> None:
    part = message_of(f"Content-Type: {separator.join([ctype, *params])}\r\n\r\nNf3\r\n".encode())
    found = mime._params(part)
    for name in ("charset", "format", "delsp"):
        assert mime._param(found, name) == param_as_get_param_reads_it(part, name)
