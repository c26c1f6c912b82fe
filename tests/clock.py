"""A clock the test moves (``bot.waits.Clock``): the outbox's pacing tests let its intervals pass at once.

    clock = FakeClock()
    outbox = Outbox(bot, group_interval=0.25, clock=clock)
    clock.advance_to(clock.next_deadline())     # the earliest sleeper wakes; nothing waited for real

Time moves only when the test says; sleepers (``sleep``, ``wait``) wake in the order of their deadlines.
"""

from __future__ import annotations

import asyncio
import heapq
from typing import Any


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._seq = 0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)  # as the real one: a turn for the others
            return
        await self._timer(seconds)

    async def wait(self, event: asyncio.Event, seconds: float) -> None:
        if event.is_set():
            return
        timer = self._timer(seconds)
        waiter: asyncio.Future[bool] = asyncio.ensure_future(event.wait())
        either: list[asyncio.Future[Any]] = [timer, waiter]
        try:
            await asyncio.wait(either, return_when=asyncio.FIRST_COMPLETED)
        finally:
            timer.cancel()
            waiter.cancel()

    def next_deadline(self) -> float | None:
        """When the earliest sleeper wakes (None: nobody sleeps)."""
        while self._sleepers and self._sleepers[0][2].done():  # woken by its event, or cancelled
            heapq.heappop(self._sleepers)
        return self._sleepers[0][0] if self._sleepers else None

    def advance_to(self, when: float) -> None:
        """Time is ``when`` (never backwards): every sleeper whose deadline has come wakes."""
        self.now = max(self.now, when)
        while (deadline := self.next_deadline()) is not None and deadline <= self.now:
            heapq.heappop(self._sleepers)[2].set_result(None)

    def _timer(self, seconds: float) -> asyncio.Future[None]:
        timer: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._seq += 1
        heapq.heappush(self._sleepers, (self.now + seconds, self._seq, timer))
        return timer
