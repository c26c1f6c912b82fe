"""Shared fixtures: `fake_telegram`, a running loopback Bot API server (see tests/fake_telegram)."""

from collections.abc import Iterator

import pytest

from tests.fake_telegram import FakeTelegram


@pytest.fixture
def fake_telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram() as server:
        yield server
