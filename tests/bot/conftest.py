"""Fixtures of the bot/ tests: ``bot``, a real PTB ``Bot`` talking to the loopback fake Bot API (a test file may
define its own, as test_ratelimit does with its rate limiter); ``clock``, a clock the test moves (tests/clock.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from telegram import Bot

from sandbox import FakeTelegram
from tests.clock import FakeClock
from tests.loopback import shared_tls


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with Bot(fake_telegram.token, base_url=fake_telegram.base_url, **shared_tls()) as b:
        yield b


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()
