"""Shared fixtures: `fake_telegram`, a running loopback Bot API server (see sandbox/)."""

import threading
from collections.abc import Iterator

import aiosqlite.core
import pytest

from sandbox import FakeTelegram


class _DaemonThread(threading.Thread):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, daemon=True, **kwargs)  # type: ignore[arg-type]


# A test that fails before closing its database would leave aiosqlite's (non-daemon) worker thread alive, and
# pytest would then hang at exit instead of reporting the failure: in tests, those threads never hold the exit.
aiosqlite.core.Thread = _DaemonThread  # type: ignore[misc]


@pytest.fixture
def fake_telegram() -> Iterator[FakeTelegram]:
    with FakeTelegram() as server:
        yield server
