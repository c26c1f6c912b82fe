"""Fixtures for storage tests: a real database file in a tmp dir, a clock the test moves, seated tables."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from storage import Database, Match, Seat


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


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "bot.sqlite3"


@pytest.fixture
async def db(db_path: Path, clock: Clock) -> AsyncIterator[Database]:
    database = await Database.open(db_path, clock=clock)
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
