"""PbemSMTP reads MAIL FROM and RCPT TO paths as aiosmtpd's own SMTP does, the plain ones without the email package."""

from __future__ import annotations

import pytest
from aiosmtpd.handlers import Sink
from aiosmtpd.smtp import SMTP
from hypothesis import example, given
from hypothesis import strategies as st

from pbem.mail.smtpd import PbemSMTP

_PIECES = ["<", ">", "@", ".", "a", "bob", "example.org", "x-y", " ", "\t", "SIZE=12", "BODY=8BITMIME", "(c)",
           '"', "\\", "[1.2.3.4]", "é", ",", ":", "=", "<>", "SMTPUTF8"]


@given(st.lists(st.sampled_from(_PIECES), max_size=10), st.sampled_from([0, 4, 64]))
@example(["<", "bob", "@", "example.org", ">", " ", "SIZE=12"], 0)
@example(["<", "bob", "@", "example.org", ">"], 0)
@example(["<", "bob", ".", "a", "@", "example.org", ">", " ", "(c)", " ", "SIZE=12"], 0)
@example(["<", "bob", "bob", "@", "example.org", ">"], 4)
def test_a_path_reads_as_aiosmtpd_reads_it(pieces: list[str], local_part_limit: int) -> None:
    ours, theirs = PbemSMTP(Sink()), SMTP(Sink())
    ours.local_part_limit = theirs.local_part_limit = local_part_limit
    arg = "".join(pieces)
    assert _reading(ours, arg) == _reading(theirs, arg)


def _reading(server: SMTP, arg: str) -> object:
    """The address and the rest, or the exception (aiosmtpd's reading raises on some paths, e.g. "<")."""
    try:
        return server._getaddr(arg)
    except Exception as error:  # the session's handle_exception answers 451 to those
        return type(error)


def test_a_plain_path_is_read_without_the_email_package(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: SMTP, arg: str) -> tuple[str | None, str | None]:
        raise AssertionError("aiosmtpd's reading was asked")

    monkeypatch.setattr(SMTP, "_getaddr", refuse)
    server = PbemSMTP(Sink())
    assert server._getaddr("<bob.smith@example.org> SIZE=1200") == ("bob.smith@example.org", "SIZE=1200")
    with pytest.raises(AssertionError):
        server._getaddr("<>")
