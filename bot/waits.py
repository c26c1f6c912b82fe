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


async def set_or_timeout(event: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(seconds):
            await event.wait()
