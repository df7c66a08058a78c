"""Times rewritten for a reader's zone: both forms the server writes, any moment within a year of now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from pbem.app.game_mail import deadline_text
from pbem.app.local_time import localise
from pbem.app.news import when

NOW = datetime(2026, 12, 30, 22, 0, tzinfo=UTC)
ZONES = ["Europe/Berlin", "America/New_York", "Asia/Kolkata", "Pacific/Auckland", "America/St_Johns"]


@given(offset=st.integers(min_value=-300 * 24 * 60, max_value=300 * 24 * 60), zone=st.sampled_from(ZONES))
def test_both_forms_read_back_to_the_same_moment_in_the_readers_zone(offset: int, zone: str) -> None:
    moment = (NOW + timedelta(minutes=offset)).replace(second=0, microsecond=0)
    local = moment.astimezone(ZoneInfo(zone))
    text = f"deadline {when(moment)}; clock: {deadline_text(moment)}."
    assert localise(text, ZoneInfo(zone), NOW) == (
        f"deadline {local:%a} {local.day} {local:%b %H:%M} {zone}; clock: {local:%Y-%m-%d %H:%M} {zone}.")


def test_a_new_year_in_the_readers_zone_changes_the_day_and_year() -> None:
    moment = datetime(2026, 12, 31, 20, 30, tzinfo=UTC)
    text = f"{when(moment)} / {deadline_text(moment)}"
    assert localise(text, ZoneInfo("Pacific/Auckland"), NOW) == (
        "Fri 1 Jan 09:30 Pacific/Auckland / 2027-01-01 09:30 Pacific/Auckland")


def test_utc_readers_and_kept_passages_are_untouched() -> None:
    text = "Deadline: 2026-12-31 20:30 UTC\n> meet at 2026-12-31 20:30 UTC"
    assert localise(text, ZoneInfo("UTC"), NOW) == text
    assert localise(text, ZoneInfo("Europe/Berlin"), NOW, keep=["> meet at 2026-12-31 20:30 UTC"]) == (
        "Deadline: 2026-12-31 21:30 Europe/Berlin\n> meet at 2026-12-31 20:30 UTC")
