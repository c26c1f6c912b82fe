"""The overall write rate shared by workers through Redis (bot.cluster.shared_rate, bot.limits.Throttle): two
workers' grants together never beat the rate; Redis gone, each keeps to its share."""

from __future__ import annotations

import asyncio
import time
import uuid

import pytest

from bot.cluster.shared_rate import RedisRate
from bot.limits import Throttle

RATE = 200.0
WRITES = 300


async def test_two_workers_together_keep_to_the_rate(redis_url: str, caplog: pytest.LogCaptureFixture) -> None:
    key = f"mahjong:test:{uuid.uuid4().hex}"
    workers = [RedisRate.connect(redis_url, key, RATE, fallback_rate=RATE / 2) for _ in range(2)]
    throttles = [Throttle(RATE, shared=w) for w in workers]  # each alone would write at RATE
    granted: list[float] = []

    async def write(throttle: Throttle) -> None:
        await throttle.acquire(1)
        granted.append(time.monotonic())
        throttle.release()

    try:
        started = time.monotonic()
        await asyncio.gather(*(write(throttles[i % 2]) for i in range(WRITES)))
    finally:
        for w in workers:
            await w.close()
    granted.sort()
    assert granted[-1] - started >= (WRITES - 1) / RATE * 0.95  # not faster than the rate, across both
    # Nor in any half second (a write goes out when its reply from Redis has come back and its wait is over:
    # Redis's latency shifts some writes by a few ms, never by more than a few writes in a window).
    for i, first in enumerate(granted):
        within = sum(1 for g in granted[i:] if g - first < 0.5)
        assert within <= 0.5 * RATE + 5
    assert granted[-1] - started < 3 * WRITES / RATE + 1  # nor starved (a busy machine slows each round trip)
    assert not caplog.records  # Redis answered every time


async def test_without_redis_a_worker_keeps_to_its_share(caplog: pytest.LogCaptureFixture) -> None:
    rate = RedisRate.connect("redis://127.0.0.1:9/0", "mahjong:test:none", RATE, fallback_rate=RATE / 4)
    try:
        started = time.monotonic()
        for _ in range(5):
            await rate.take()
        assert time.monotonic() - started >= 5 * 4 / RATE * 0.9
    finally:
        await rate.close()
    assert [r.message for r in caplog.records].count(
        "Redis does not answer (ConnectionError): this worker writes at its share of the rate"
    ) == 1


class Counted:
    def __init__(self) -> None:
        self.taken = 0

    async def take(self) -> None:
        self.taken += 1
        await asyncio.sleep(0.001)


async def test_the_throttle_takes_one_shared_write_a_grant_urgent_ones_first() -> None:
    shared = Counted()
    throttle = Throttle(1000.0, shared=shared)
    order: list[str] = []

    async def write(name: str, priority: int) -> None:
        await throttle.acquire(priority)
        order.append(name)
        throttle.release()

    await asyncio.gather(write("lazy 1", 1), write("lazy 2", 1), write("urgent", 0))
    assert shared.taken == 3
    assert order[0] == "urgent"
