"""The times mails show, written without ``strftime``, are ``strftime``'s text to the character."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from pbem.app.local_time import short_stamp, stamp
from pbem.mail.compose import mail_date

_MOMENTS = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59))


@settings(max_examples=1000, deadline=None)
@given(_MOMENTS)
def test_stamps_are_strftime(moment: datetime) -> None:
    assert stamp(moment) == moment.strftime("%Y-%m-%d %H:%M UTC")
    assert stamp(moment, "Europe/Berlin") == f"{moment:%Y-%m-%d %H:%M} Europe/Berlin"
    assert short_stamp(moment) == f"{moment:%a} {moment.day} {moment:%b %H:%M} UTC"


@settings(max_examples=1000, deadline=None)
@given(_MOMENTS)
def test_mail_date_is_format_datetime(moment: datetime) -> None:
    aware = moment.replace(tzinfo=UTC)
    assert mail_date(aware) == format_datetime(aware)
