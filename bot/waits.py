"""Waiting for an ``asyncio.Event`` for at most some seconds, in a way that a cancellation always ends.

    await set_or_timeout(chat.wakeup, 0.5)     # returns when the event is set, or after 0.5 s

Not ``asyncio.wait_for(event.wait(), seconds)``: on Python 3.11 it can swallow a cancellation that arrives just as
the event is set (gh-86296), and a loop around it then never stops (a worker's inbox consumer, cancelled at a
SIGKILL in tests/cluster/test_fencing.py, once in about eighty runs). ``asyncio.timeout`` tells its own
timeout from a cancellation from outside.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Final, Protocol


async def set_or_timeout(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()


class Clock(Protocol):
    """Where the outbox and its pacing (``Throttle``, ``ChatRateLimiter``) read the time and wait: ``CLOCK``, the
    real one, unless a test passes its own (tests/clock.py), on which the intervals pass without being waited."""

    def monotonic(self) -> float: ...

    async def sleep(self, seconds: float) -> None: ...

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        """Until ``event`` is set, or ``seconds`` have passed (``set_or_timeout``)."""


class _RealClock:
    def monotonic(self) -> float:
        return time.monotonic()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        await set_or_timeout(event, seconds)


CLOCK: Final[Clock] = _RealClock()
