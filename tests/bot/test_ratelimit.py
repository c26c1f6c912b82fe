"""bot.ratelimit against the fake Bot API on loopback: a 429 pauses its own chat only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from telegram.error import RetryAfter
from telegram.ext import ExtBot

from bot.ratelimit import ChatRateLimiter
from sandbox import FakeTelegram
from sandbox.records import FaultKind
from tests.clock import FakeClock
from tests.loopback import shared_tls


@pytest.fixture
async def bot(fake_telegram: FakeTelegram, clock: FakeClock) -> AsyncIterator[ExtBot[None]]:
    limiter = ChatRateLimiter(clock=clock)
    async with ExtBot(fake_telegram.token, base_url=fake_telegram.base_url, rate_limiter=limiter, **shared_tls()) as b:
        yield b


async def test_a_long_pause_is_handed_back_and_holds_only_its_chat(
    fake_telegram: FakeTelegram, bot: ExtBot[None]
) -> None:
    flooded, other = fake_telegram.add_group("flooded"), fake_telegram.add_group("other")
    fake_telegram.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=flooded.id, retry_after=20)
    with pytest.raises(RetryAfter):
        await bot.send_message(flooded.id, "one")
    started = time.monotonic()
    await bot.send_message(other.id, "two")  # another chat: straight on
    with pytest.raises(RetryAfter):  # the paused chat: refused at once, without asking Telegram again
        await bot.send_message(flooded.id, "three")
    assert time.monotonic() - started < 1
    assert len(fake_telegram.calls("sendMessage", chat_id=flooded.id)) == 1


async def test_a_short_pause_is_waited_out(fake_telegram: FakeTelegram, bot: ExtBot[None], clock: FakeClock) -> None:
    group = fake_telegram.add_group("g")
    fake_telegram.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=group.id, retry_after=1)
    sent = asyncio.create_task(bot.send_message(group.id, "once retried"))
    deadline = time.monotonic() + 10
    while clock.next_deadline() is None:  # the 429 came back (HTTP on loopback): the limiter waits out its pause
        assert time.monotonic() < deadline and not sent.done()
        await asyncio.sleep(0.001)
    assert clock.next_deadline() == clock.now + 1
    clock.advance_to(clock.now + 1)
    await asyncio.wait_for(sent, 10)
    assert [c.status for c in fake_telegram.calls("sendMessage", chat_id=group.id)] == [429, 200]
