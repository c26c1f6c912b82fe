"""Shared fixtures: `fake_telegram`, a running loopback Bot API server (see sandbox/)."""

import threading
from collections.abc import Iterator

import aiosqlite.core
import pytest

from sandbox import FakeTelegram
from tests.postgres import SKIP_REASON, drop_schema, fresh_schema


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


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A fresh empty schema on the test PostgreSQL (tests/postgres.py), dropped afterwards."""
    url = fresh_schema()
    yield url
    drop_schema(url)


# The modules that start bot processes or browsers take the longest, mostly waiting: queued first, they run beside
# one another and beside the computing tests, and no worker starts a long one when the others are nearly done. So do
# the few computing modules that keep one worker busy for a minute of a loaded run (queued last, by their folder's
# name, they were the last to end: the self-play records, the league's nights, the benchmark's duplicate deals).
# Before them, the modules that time a worker's takeover (several workers on PostgreSQL and Redis: a SIGSTOPped
# worker's tables move within 10 s, a worker's failures): mostly waiting on leases, they start at once and run
# beside the rest, each on a worker of its own, so they are not a stage of their own after the suite.
TIMED_FIRST = (
    "tests/e2e/test_workers.py",
    "tests/e2e/test_workers_live.py",
    "tests/e2e/test_quick_workers.py",
    "tests/cluster/test_failures.py",
)
SLOW_FIRST = (
    "tests/e2e/",
    "tests/sandbox/",
    "tests/cluster/",
    "tests/test_teacher_data.py",
    "tests/league/test_nights.py",
    "tests/test_bench_ai.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=lambda item: (not item.nodeid.startswith(TIMED_FIRST), not item.nodeid.startswith(SLOW_FIRST)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say it plainly when the PostgreSQL tests were skipped: the run did not test that backend."""
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if SKIP_REASON in str(r.longrepr)]
    if skipped:
        terminalreporter.write_line(
            f"THE POSTGRESQL SUITE DID NOT RUN: {len(skipped)} tests skipped, no PostgreSQL reachable (127.0.0.1:5432 "
            "or MAHJONG_TEST_POSTGRES); with CI=true this is a failure",
            yellow=True,
            bold=True,
        )
