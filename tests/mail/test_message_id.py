"""The listener's Message-ID: read from a plain header block by regular expressions, as the email package reads it."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from pbem.mail import smtpd
from pbem.mail.smtpd import message_id_of

DOMAIN = "pbem.example"

# Header lines and pieces of them: plain ones, and the near misses that must go to the parser (8-bit bytes,
# controls, a space before the colon, a nameless header, an mbox line, folding with nothing to fold into).
_LINES = [b"Message-ID: <1.2@players.example>", b"message-id:<a@b>", b"MESSAGE-ID:   <x@y>  (comment)",
          b"Message-Id: <first@x>", b"Message-ID:", b"Message-ID: \t", b"Message-ID : <spaced@x>",
          b"Subject: Re: Game 12: your move", b"From: Bob <bob@example.org>", b"X-Tab:\tvalue",
          b"X-Latin: caf\xe9", b"X-Utf8: caf\xc3\xa9", b"X-Control: a\x01b", b":nameless", b"From bob Mon Nov 23",
          b" <folded@x>", b"\t(continued)", b"Message-ID: <\xc3\xa9@x>", b"X-Empty:", b"References: <r@x>",
          b"Message-ID: <a@b>\x0b", b"Message-ID: <a@b> <c@d>"]
_ENDINGS = [b"\r\n", b"\n", b"\r"]


def strictly(raw: bytes) -> str:
    """What message_id_of answers when the email package's parser reads every mail."""
    value = smtpd._message_id_strictly(raw)
    text = " ".join(str(value).split()) if value else ""
    return text[:998] if text else f"<sha256.{hashlib.sha256(raw).hexdigest()}@{DOMAIN}>"


@given(st.lists(st.tuples(st.sampled_from(_LINES), st.sampled_from(_ENDINGS)), max_size=8),
       st.sampled_from([b"\r\n", b"\n", b"", b"\r"]),
       st.sampled_from([b"", b"Nf3\r\n", b"Message-ID: <in-the-body@x>\r\n", b"\r\n\r\nmore"]))
@example([(b"Message-ID: <1.2@players.example>", b"\r\n")], b"\r\n", b"Nf3\r\n")
@example([(b"Subject: hi", b"\n"), (b"message-id:<a@b>", b"\n"), (b" <folded@x>", b"\n")], b"\n", b"")
@example([(b"Message-ID: <\xc3\xa9@x>", b"\r\n")], b"\r\n", b"body")
@example([(b" <folded@x>", b"\r\n"), (b"Message-ID: <a@b>", b"\r\n")], b"\r\n", b"")
@example([(b"Subject: hi", b"\r\n")], b"", b"Message-ID: <in-the-body@x>\r\n")
def test_the_message_id_reads_as_the_email_package_reads_it(lines: list[tuple[bytes, bytes]], blank: bytes,
                                                             body: bytes) -> None:
    raw = b"".join(line + ending for line, ending in lines) + blank + body
    assert message_id_of(raw, DOMAIN) == strictly(raw)


def test_a_plain_header_block_is_read_without_the_email_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(raw: bytes) -> object:
        raise AssertionError("the email package's parser was asked")

    monkeypatch.setattr(smtpd, "_message_id_strictly", refuse)
    raw = (b"From: Bob <bob@example.org>\r\nSubject: Re: Game 3\r\nMessage-ID:\r\n <1.2@players.example>\r\n"
           b"Message-ID: <second@x>\r\n\r\nNf3\r\n")
    assert message_id_of(raw, DOMAIN) == "<1.2@players.example>"
    without = b"Subject: hi\r\n\r\nMessage-ID: <in-the-body@x>\r\n"
    assert message_id_of(without, DOMAIN) == f"<sha256.{hashlib.sha256(without).hexdigest()}@{DOMAIN}>"
    with pytest.raises(AssertionError):  # 8-bit bytes in a header: the parser reads them
        message_id_of(b"Subject: caf\xc3\xa9\r\nMessage-ID: <a@b>\r\n\r\n", DOMAIN)
