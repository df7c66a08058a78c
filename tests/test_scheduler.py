"""The alarm clock over APScheduler: wakes the sweep when asked, re-arms only when the moment moves."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from pbem.scheduler import Alarm


class Counter:
    def __init__(self) -> None:
        self.runs: list[datetime] = []

    async def sweep(self) -> None:
        self.runs.append(datetime.now(UTC))


def run_with_alarm(body: Callable[[Alarm, Counter], Awaitable[None]]) -> Counter:
    """Run ``body(alarm, counter)`` inside a loop with a started alarm (long safety-net poll)."""
    counter = Counter()

    async def main() -> None:
        alarm = Alarm(counter.sweep, poll_seconds=3600)
        alarm.start()
        try:
            await body(alarm, counter)
        finally:
            alarm.shutdown()

    asyncio.run(main())
    return counter


def test_wakes_the_sweep_at_the_moment() -> None:
    async def body(alarm: Alarm, counter: Counter) -> None:
        moment = datetime.now(UTC) + timedelta(seconds=0.3)
        alarm.wake_at(moment)
        await asyncio.sleep(0.1)
        assert counter.runs == []
        await asyncio.sleep(0.6)
        assert len(counter.runs) == 1 and counter.runs[0] >= moment

    run_with_alarm(body)


def test_the_same_moment_twice_is_armed_once() -> None:
    async def body(alarm: Alarm, counter: Counter) -> None:
        added: list[str] = []
        original = alarm.scheduler.add_job

        def counting_add_job(*args: Any, **kwargs: Any) -> Any:
            added.append(kwargs.get("id", ""))
            return original(*args, **kwargs)

        alarm.scheduler.add_job = counting_add_job  # type: ignore[method-assign]
        moment = datetime.now(UTC) + timedelta(seconds=0.3)
        for _ in range(5):  # as after five worker rounds that left the earliest event alone
            alarm.wake_at(moment)
        assert added == ["pbem-wake"]
        assert alarm.next_wake() == moment
        await asyncio.sleep(0.7)
        assert len(counter.runs) == 1

    run_with_alarm(body)


def test_an_earlier_moment_re_arms_and_none_cancels() -> None:
    async def body(alarm: Alarm, counter: Counter) -> None:
        now = datetime.now(UTC)
        alarm.wake_at(now + timedelta(hours=1))
        alarm.wake_at(now + timedelta(seconds=0.2))
        assert alarm.next_wake() == now + timedelta(seconds=0.2)
        await asyncio.sleep(0.6)
        assert len(counter.runs) == 1
        alarm.wake_at(datetime.now(UTC) + timedelta(seconds=0.2))
        alarm.wake_at(None)
        assert alarm.next_wake() is None
        await asyncio.sleep(0.5)
        assert len(counter.runs) == 1

    run_with_alarm(body)


def test_a_moment_in_the_past_runs_at_once() -> None:
    async def body(alarm: Alarm, counter: Counter) -> None:
        alarm.wake_at(datetime.now(UTC) - timedelta(days=3))  # a deadline missed while the server was down
        await asyncio.sleep(0.3)
        assert len(counter.runs) == 1

    run_with_alarm(body)
