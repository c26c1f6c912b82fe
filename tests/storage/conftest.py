"""Fixtures for storage tests: a real database on each backend, a clock the test moves, seated tables.

Every test using ``db`` or ``db_target`` runs twice: on a SQLite file in a tmp dir and on a fresh schema of the
real PostgreSQL (tests/postgres.py; skipped without one, failing in CI). A test asking for ``db_path`` looks
into the SQLite file itself, so it runs on SQLite only.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import Database, Match, Seat
from tests.postgres import drop_schema, empty_schema, fresh_schema

BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        sqlite_only = "db_path" in metafunc.fixturenames or metafunc.definition.get_closest_marker("sqlite_only")
        metafunc.parametrize("backend", BACKENDS[:1] if sqlite_only else BACKENDS)


class Clock:
    """A settable UTC clock for Database.open(clock=...)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(scope="session")
def postgres_schema() -> Iterator[str]:
    """This test process's migrated PostgreSQL schema (tests/postgres.py), emptied before each test."""
    url = fresh_schema()

    async def migrate() -> None:
        await (await Database.open(url)).close()

    asyncio.run(migrate())
    yield url
    drop_schema(url)


@pytest.fixture
def db_target(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str | Path:
    """What Database.open opens: a new SQLite file, or a PostgreSQL URL of this process's schema, emptied."""
    if backend == "sqlite":
        return tmp_path / "bot.sqlite3"
    url: str = request.getfixturevalue("postgres_schema")
    empty_schema(url)
    return url


@pytest.fixture
def db_path(db_target: str | Path) -> Path:
    """The SQLite file of a test that reads or writes it directly (such a test runs on SQLite only)."""
    assert isinstance(db_target, Path)
    return db_target


@pytest.fixture
async def db(db_target: str | Path, clock: Clock) -> AsyncIterator[Database]:
    database = await Database.open(db_target, clock=clock)
    yield database
    await database.close()


NewMatch = Callable[..., Awaitable[Match]]


async def seat_match(
    db: Database,
    players: Sequence[int | None] = (1, 2, 3, None),
    chat_id: int = -100,
    league_night_id: int | None = None,
) -> Match:
    """A running match with these seats (None = an automatic player), registering the players first."""
    for pid in players:
        if pid is not None:
            await db.players.upsert(pid, f"player {pid}")
    seats = [Seat.auto() if pid is None else Seat.human(pid) for pid in players]
    return await db.matches.create(chat_id, 12345, "kaikoufan", seats, 8, league_night_id=league_night_id)


@pytest.fixture
def new_match(db: Database) -> NewMatch:
    async def make(*args: object, **kwargs: object) -> Match:
        return await seat_match(db, *args, **kwargs)  # type: ignore[arg-type]

    return make
