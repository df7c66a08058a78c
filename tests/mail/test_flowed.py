"""format=flowed bodies (RFC 3676) read back as their sender wrote them."""

from __future__ import annotations

from pbem.mail.inbound.parse import parse_mail


def test_format_flowed_delsp_and_space_stuffing() -> None:
    raw = (b"From: a@example.org\r\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\n\r\n"
           b" From the start \r\nof a line\r\nPe2- \r\ne4\r\n")
    mail = parse_mail(raw)
    assert mail.body == "From the startof a line\nPe2-e4\n"  # delsp=yes: the soft-break space goes
