"""The overall write rate shared by workers through Redis (bot.cluster.shared_rate, bot.limits.Throttle): two
workers' grants together never beat the rate; Redis gone, each keeps to its share. And a private chat's pace:
two workers' outboxes writing to one person keep to one write a chat per interval between them."""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid

import pytest
from telegram import Bot

from bot.cluster.shared_rate import RedisRate
from bot.limits import Throttle
from bot.outbox import Content, Outbox
from sandbox import FakeTelegram
from tests.loopback import shared_tls

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

    async def take_chat(self, chat_id: int, interval: float) -> None:
        raise AssertionError("the throttle takes only the overall rate")


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


async def test_two_workers_writing_to_one_person_keep_to_the_chat_s_pace(
    fake_telegram: FakeTelegram, redis_url: str
) -> None:
    """Ann's table is on one worker and her /me is answered by another: between them, her chat still gets one
    write an interval; Bob's chat is not held up by hers."""
    interval, writes = 0.3, 6
    ann, bob = fake_telegram.add_user("Ann"), fake_telegram.add_user("Bob")
    key = f"mahjong:test:{uuid.uuid4().hex}"
    rates = [RedisRate.connect(redis_url, key, 1000.0, fallback_rate=500.0) for _ in range(2)]
    bots = [Bot(fake_telegram.token, base_url=fake_telegram.base_url, **shared_tls()) for _ in range(2)]
    outboxes = []
    try:
        for bot, rate in zip(bots, rates, strict=True):
            await bot.initialize()
            outboxes.append(Outbox(bot, private_interval=interval, passive_interval=interval, shared_rate=rate))
        started = time.monotonic()
        for n in range(writes):  # each worker its own message to Ann, and Bob one from the first
            outboxes[n % 2].show(ann.id, f"slot {n}", Content(f"to Ann {n}"), urgent=True)
        outboxes[0].show(bob.id, "slot", Content("to Bob"), urgent=True)
        deadline = time.monotonic() + 15
        while len(fake_telegram.calls("sendMessage", chat_id=ann.id)) < writes:
            assert time.monotonic() < deadline, "the writes to Ann did not all go out"
            await asyncio.sleep(0.02)
    finally:
        for outbox in outboxes:
            await outbox.close()
        for bot in bots:
            await bot.shutdown()
        for rate in rates:
            await rate.close()
    to_ann = sorted(c.at for c in fake_telegram.calls("sendMessage", chat_id=ann.id))
    assert len(to_ann) == writes
    assert min(b - a for a, b in itertools.pairwise(to_ann)) >= interval * 0.9  # across both workers
    [to_bob] = fake_telegram.calls("sendMessage", chat_id=bob.id)
    assert to_bob.at - started < 2 * interval  # his chat has its own pace


async def test_a_write_held_up_by_the_overall_rate_keeps_the_chat_s_pace(redis_url: str) -> None:
    """One worker's write to Ann waits behind five others for its overall rate while a second worker writes to
    her at once: the two writes to her still come an interval apart (the chat's turn is taken last)."""
    interval = 0.3
    key = f"mahjong:test:{uuid.uuid4().hex}"
    rates = [RedisRate.connect(redis_url, key, 1000.0, fallback_rate=500.0) for _ in range(2)]
    busy, idle = Throttle(10.0, shared=rates[0]), Throttle(1000.0, shared=rates[1])
    to_ann: list[float] = []

    async def write(throttle: Throttle, private: tuple[int, float] | None) -> None:
        await throttle.acquire(0, private)
        if private is not None:
            to_ann.append(time.monotonic())
        throttle.release()

    try:
        others = [asyncio.create_task(write(busy, None)) for _ in range(5)]  # 0.5 s of the busy worker's rate
        await asyncio.sleep(0)
        held_up = asyncio.create_task(write(busy, (42, interval)))
        await asyncio.sleep(0.05)
        await asyncio.gather(write(idle, (42, interval)), held_up, *others)
    finally:
        for rate in rates:
            await rate.close()
    first, second = sorted(to_ann)
    assert second - first >= interval * 0.9
