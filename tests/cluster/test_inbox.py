"""The update inbox (storage.inbox, bot.cluster.consumer) against the real PostgreSQL: an update Telegram sends
again is stored once, its owner is woken, each update goes to its shard's owner alone, in order, and an update of
no table to exactly one worker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, cast

import pytest
from telegram import Update
from telegram.ext import Application

from bot.cluster.consumer import Consumer
from bot.cluster.ownership import Ownership
from bot.cluster.shards import SHARDS, shard_of, update_shard
from bot.table.key import TableKey
from storage.cluster import Coordinator
from storage.database import Database
from tests.cluster.conftest import empty_tables


def _group_update(update_id: int, chat_id: int, text: str = "/join") -> dict[str, Any]:
    chat = {"id": chat_id, "type": "supergroup", "title": "g"}
    sender = {"id": 7, "is_bot": False, "first_name": "Ann"}
    return {
        "update_id": update_id,
        "message": {"message_id": update_id, "date": 0, "chat": chat, "from": sender, "text": text},
    }


def _private_update(update_id: int) -> dict[str, Any]:
    chat = {"id": 7, "type": "private", "first_name": "Ann"}
    sender = {"id": 7, "is_bot": False, "first_name": "Ann"}
    return {
        "update_id": update_id,
        "message": {"message_id": update_id, "date": 0, "chat": chat, "from": sender, "text": "/me"},
    }


def _row(raw: dict[str, Any]) -> tuple[int, int | None, str]:
    return raw["update_id"], update_shard(Update.de_json(raw, None)), json.dumps(raw)


class Recorder:
    """What the consumer needs of an Application: its bot, and process_update (here: who got which update)."""

    bot = None

    def __init__(self, name: str, seen: list[tuple[str, int]]) -> None:
        self.name, self.seen = name, seen

    async def process_update(self, update: Update) -> None:
        self.seen.append((self.name, update.update_id))
        await asyncio.sleep(0.001)


def _connecting(url: str, wake: asyncio.Event) -> Callable[[], Awaitable[Coordinator]]:
    return lambda: Coordinator.connect(url, lambda _payload: wake.set())


@pytest.fixture
async def url(cluster_db: Database) -> AsyncIterator[str]:
    yield cluster_db.backend.dsn  # type: ignore[attr-defined]


async def test_an_update_sent_again_is_stored_once_and_wakes_the_workers(cluster_db: Database, url: str) -> None:
    heard: list[str] = []
    coordinator = await Coordinator.connect(url, heard.append)
    try:
        batch = [_row(_group_update(1, -1001)), _row(_private_update(2))]
        assert await cluster_db.inbox.store(batch) == 2
        assert await cluster_db.inbox.store(batch[:1]) == 0  # Telegram sent update 1 again
        rows = await cluster_db.fetchall("SELECT update_id, shard FROM inbox ORDER BY update_id")
        assert [(r["update_id"], r["shard"]) for r in rows] == [(1, shard_of(TableKey(-1001))), (2, None)]
        for _ in range(100):
            if heard:
                break
            await asyncio.sleep(0.01)
        assert sorted(heard[0].split(",")) == sorted([str(shard_of(TableKey(-1001))), "-"])
    finally:
        await coordinator.close()


async def test_each_update_goes_to_its_shards_owner_in_order_and_one_of_no_table_to_one_worker(
    cluster_db: Database, url: str
) -> None:
    seen: list[tuple[str, int]] = []
    workers: list[tuple[Ownership, Consumer]] = []
    for name in ("a", "b"):
        wake = asyncio.Event()
        ownership = Ownership(_connecting(url, wake), empty_tables(), cluster_db)
        app = cast(Application[Any, Any, Any, Any, Any, Any], Recorder(name, seen))
        workers.append((ownership, Consumer(app, cluster_db, ownership, wake)))
    for _ in range(2):
        for ownership, _consumer in workers:
            await ownership.rebalance()
    (a, _), (b, _) = workers
    assert len(a.owned) == len(b.owned) == SHARDS // 2
    owner = {"a": a.owned, "b": b.owned}

    groups = [-1000 - i for i in range(12)]
    raws = [_group_update(n, groups[n % len(groups)]) for n in range(1, 61)] + [
        _private_update(n) for n in range(61, 71)
    ]
    await cluster_db.inbox.store([_row(r) for r in raws])
    tasks = [asyncio.create_task(consumer.run()) for _, consumer in workers]
    try:
        for _ in range(500):
            if not await cluster_db.fetchall("SELECT 1 FROM inbox WHERE done_at IS NULL"):
                break
            await asyncio.sleep(0.01)
        else:
            pytest.fail("updates left undone")
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for ownership, _ in workers:
            await ownership.close()

    assert sorted(n for _, n in seen) == list(range(1, 71))  # each once
    assert {name for name, _ in seen} == {"a", "b"}
    for name, n in seen:
        if n <= 60:
            assert shard_of(TableKey(groups[n % len(groups)])) in owner[name]
    for chat in groups:  # one group's updates in the order they came
        mine = [n for _, n in seen if n <= 60 and groups[n % len(groups)] == chat]
        assert mine == sorted(mine)
    bodies = await cluster_db.fetchall("SELECT DISTINCT body FROM inbox")
    assert [r["body"] for r in bodies] == [""]  # nothing said is kept once handled
