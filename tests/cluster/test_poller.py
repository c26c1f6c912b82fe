"""The worker that polls (bot.cluster.poller) against the real PostgreSQL: only the worker holding the poller's
lock polls; a batch is stored, committed, before the next getUpdates confirms it (its offset); a batch the
database refused is asked for again, not confirmed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest
from telegram import Bot, Update

from bot.cluster.ownership import Ownership
from bot.cluster.poller import Poller
from storage.cluster import Coordinator
from storage.database import Database
from storage.errors import StorageUnavailableError
from tests.cluster.conftest import empty_tables


def _update(update_id: int, chat_id: int) -> Update:
    chat = {"id": chat_id, "type": "supergroup", "title": "g"}
    sender = {"id": 7, "is_bot": False, "first_name": "Ann"}
    message = {"message_id": update_id, "date": 0, "chat": chat, "from": sender, "text": "/join"}
    return Update.de_json({"update_id": update_id, "message": message}, None)


class Telegram:
    """getUpdates as Telegram answers it: what is not confirmed yet (ids from ``offset`` on)."""

    def __init__(self, updates: list[Update]) -> None:
        self.updates = updates
        self.offsets: list[int | None] = []

    async def get_updates(self, offset: int | None = None, **_: Any) -> tuple[Update, ...]:
        self.offsets.append(offset)
        return tuple(u for u in self.updates if offset is None or u.update_id >= offset)

    async def delete_webhook(self) -> bool:
        return True


@pytest.fixture
async def ownership(cluster_db: Database) -> AsyncIterator[Ownership]:
    url: str = cluster_db.backend.dsn  # type: ignore[attr-defined]
    owner = Ownership(lambda: Coordinator.connect(url), empty_tables(), cluster_db)
    await owner.rebalance()
    yield owner
    await owner.close()


async def test_a_batch_is_confirmed_only_once_stored(
    cluster_db: Database, ownership: Ownership, monkeypatch: pytest.MonkeyPatch
) -> None:
    telegram = Telegram([_update(5, -1001), _update(6, -1002)])
    poller = Poller(cast(Bot, telegram), cluster_db, ownership)
    assert await poller._election.lead()
    assert await poller.poll_once() == 2
    stored = [r["update_id"] for r in await cluster_db.fetchall("SELECT update_id FROM inbox ORDER BY update_id")]
    assert stored == [5, 6]

    telegram.updates.append(_update(7, -1001))
    refused = StorageUnavailableError("the database refused it")

    async def store(_rows: object) -> int:
        raise refused

    with monkeypatch.context() as patched:
        patched.setattr(cluster_db.inbox, "store", store)
        with pytest.raises(StorageUnavailableError):
            await poller.poll_once()
    assert await poller.poll_once() == 1  # asked for again from the same offset: 7 was never confirmed
    assert telegram.offsets == [None, 7, 7]


async def test_only_the_lock_holder_polls(cluster_db: Database, ownership: Ownership) -> None:
    url: str = cluster_db.backend.dsn  # type: ignore[attr-defined]
    other = Ownership(lambda: Coordinator.connect(url), empty_tables(), cluster_db)
    await other.rebalance()
    try:
        first = Poller(cast(Bot, Telegram([])), cluster_db, ownership)
        second = Poller(cast(Bot, Telegram([])), cluster_db, other)
        assert await first._election.lead() and not await second._election.lead()
        assert ownership.coordinator is not None
        await ownership.coordinator.close()  # the poller's worker is gone: its lock with it, once the server sees it
        assert not await first._election.lead()
        for _ in range(100):
            if await second._election.lead():
                break
            await asyncio.sleep(0.02)
        else:
            pytest.fail("the lock was not taken over")
    finally:
        await other.close()
