"""The clock arithmetic of pbem.clock: time controls, ICCF periods and doubling, pauses, reminder points."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from pbem.clock import DAY, Clock, ClockError, TimeControl, reminder_points

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def days(n: float) -> timedelta:
    return timedelta(days=n)


@pytest.mark.parametrize(("text", "expected"), [
    ("days 3", TimeControl(3.0)),
    ("days 0.0005", TimeControl(0.0005)),
    ("time 10/30", TimeControl(30.0, 10)),
    ("TIME 10/30 double 20", TimeControl(30.0, 10, 20.0)),
    ("", TimeControl(7.0)),
])
def test_time_controls_parse_and_print_back(text: str, expected: TimeControl) -> None:
    control = TimeControl.parse(text, default_days=7.0)
    assert control == expected
    assert TimeControl.parse(str(control), default_days=1.0) == control


@pytest.mark.parametrize("text", ["days 0", "days -1", "days x", "days nan", "time 10", "time 0/30",
                                  "time 10/30 triple 2", "time 10/400", "fortnightly"])
def test_bad_time_controls_are_explained(text: str) -> None:
    with pytest.raises(ClockError):
        TimeControl.parse(text, default_days=7.0)


def test_days_per_move_gives_each_turn_the_full_time_and_keeps_nothing() -> None:
    clock = Clock.start(TimeControl(3.0), T0, "white")
    assert clock.deadline() == T0 + days(3)
    clock = clock.moved("white", T0 + days(1), "black")  # white used one day
    assert clock.deadline() == T0 + days(4)
    assert clock.left("white", T0 + days(1)) == 3 * DAY  # unused time is not carried


def test_iccf_period_carries_unused_time_and_adds_a_period_after_m_moves() -> None:
    control = TimeControl(30.0, 10)
    clock = Clock.start(control, T0, "white")
    now = T0
    for _ in range(9):  # nine quick white moves of one day each, black answering at once
        now += days(1)
        clock = clock.moved("white", now, "black")
        clock = clock.moved("black", now, "white")
    assert clock.left("white", now) == pytest.approx(21 * DAY)
    now += days(1)
    clock = clock.moved("white", now, "black")  # the tenth move: a new period of 30 days is added
    assert clock.left("white", now) == pytest.approx(50 * DAY)
    assert clock.left("black", now) == pytest.approx(30 * DAY)  # black: nine instant moves, nothing used
    clock = clock.moved("black", now, "white")
    assert clock.left("black", now) == pytest.approx(60 * DAY)  # black's tenth move: 30 + 30


def test_iccf_doubling_charges_time_beyond_the_threshold_twice() -> None:
    control = TimeControl(30.0, 10, double_after_days=20.0)
    assert control.charge(15 * DAY) == 15 * DAY
    assert control.charge(25 * DAY) == (20 + 2 * 5) * DAY
    clock = Clock.start(control, T0, "white")
    # 30 days of budget last 20 days plus 10 / 2 = 25 days on one move.
    assert clock.deadline() == T0 + days(25)
    clock = clock.moved("white", T0 + days(22), "black")
    assert clock.left("white", T0 + days(22)) == pytest.approx((30 - 24) * DAY)


def test_pause_stops_the_clock_and_resume_restarts_it_with_the_time_used_charged() -> None:
    clock = Clock.start(TimeControl(10.0), T0, "white")
    clock = clock.pause(T0 + days(2))
    assert clock.deadline() is None and clock.left("white", T0 + days(9)) == pytest.approx(8 * DAY)
    clock = clock.resume(T0 + days(12))
    assert clock.deadline() == T0 + days(20)


def test_clock_survives_its_json_form() -> None:
    clock = Clock.start(TimeControl(30.0, 10, 20.0), T0, "white").moved("white", T0 + days(3), "black")
    assert Clock.load(clock.dump()) == clock


def test_reminder_points_are_fractions_of_the_turn_and_a_day_before() -> None:
    clock = Clock.start(TimeControl(10.0), T0, "white")
    points = reminder_points(clock, [0.5, 0.8], before_days=1)
    assert points == [T0 + days(5), T0 + days(8), T0 + days(9)]
    short = Clock.start(TimeControl(0.5), T0, "white")
    assert reminder_points(short, [0.5, 0.8], before_days=1) == [T0 + days(0.25), T0 + days(0.4)]
