"""Handled updates: each update_id is claimed once, across a reopening; old ids are let go after two days.
On both backends (tests/storage/conftest.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

from storage.database import Database
from storage.handled_updates import KEEP


def test_an_update_is_claimed_once_even_after_a_reopening_and_concurrently(db_target: str | Path) -> None:
    async def scenario() -> None:
        async with await Database.open(db_target) as db:
            assert await db.updates.claim(7)
            assert not await db.updates.claim(7)
            claims = await asyncio.gather(*(db.updates.claim(8) for _ in range(5)))  # one batch, five copies
            assert sorted(claims) == [False] * 4 + [True]
        async with await Database.open(db_target) as db:  # a restart
            assert not await db.updates.claim(7) and not await db.updates.claim(8)
            assert await db.updates.claim(9)

    asyncio.run(scenario())


def test_ids_older_than_two_days_are_let_go(db_target: str | Path) -> None:
    now = [datetime(2026, 1, 1, tzinfo=UTC)]

    async def scenario() -> None:
        async with await Database.open(db_target, clock=lambda: now[0]) as db:
            assert await db.updates.claim(1)
        now[0] += KEEP + timedelta(minutes=1)
        async with await Database.open(db_target, clock=lambda: now[0]) as db:
            # Telegram may number afresh after a week without updates: an old id no longer hides a new update.
            assert await db.updates.claim(2)
            assert await db.updates.claim(1)

    asyncio.run(scenario())
