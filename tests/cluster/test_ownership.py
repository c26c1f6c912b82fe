"""Shards and their owners (bot.cluster.ownership) against the real PostgreSQL: a fair share each, never one
shard owned twice, and a worker's shards taken over when its connection ends."""

from __future__ import annotations

import asyncio
import time

import pytest

from bot.cluster.ownership import Ownership
from bot.cluster.shards import SHARDS, shard_of
from bot.table.key import TableKey
from storage.cluster import Coordinator
from storage.database import Database
from storage.errors import StorageUnavailableError
from storage.postgres import IDLE_IN_TRANSACTION_S
from tests.cluster.conftest import empty_tables


def _worker(db: Database, url: str) -> Ownership:
    return Ownership(lambda: Coordinator.connect(url), empty_tables(), db)


async def _until_owned(worker: Ownership, shard: int) -> None:
    """Rounds, as the worker's loop runs them, until it holds the shard (the server ends a closed session's locks a
    moment after the close)."""
    while shard not in worker.owned:
        await worker.rebalance()
        await asyncio.sleep(0.1)


async def _rounds(*workers: Ownership, n: int = 2) -> None:
    for _ in range(n):
        for w in workers:
            await w.rebalance()
        owned = [w.owned for w in workers]
        assert sum(map(len, owned)) == len(frozenset().union(*owned)), "a shard owned twice"


async def test_shards_are_shared_fairly_and_taken_over_when_a_worker_dies(cluster_db: Database) -> None:
    url = cluster_db.backend.dsn  # type: ignore[attr-defined]
    a, b = _worker(cluster_db, url), _worker(cluster_db, url)
    try:
        await _rounds(a)
        assert len(a.owned) == SHARDS
        await _rounds(a, b)
        assert len(a.owned) == len(b.owned) == SHARDS // 2
        assert a.owned | b.owned == frozenset(range(SHARDS))

        assert a.coordinator is not None
        await a.coordinator.close()  # as a killed worker's connection: its locks are free at once
        started = time.monotonic()
        while len(b.owned) < SHARDS:  # the survivor's rounds (each 1 s apart in a worker; here at once)
            assert time.monotonic() - started < 5.0  # the issue asks for 10 s; here one round, once the server
            await _rounds(b, n=1)  # has seen the connection end (a few ms)
        await _rounds(a, b, n=1)  # a sees its connection gone: it drops its shards, joins again, finds none free
        assert not (a.owned & b.owned)
        await _rounds(a, b, n=2)  # then b gives up half, and a takes them
        assert len(a.owned) == len(b.owned) == SHARDS // 2
    finally:
        await a.close()
        await b.close()


def test_a_table_has_its_groups_shard_the_same_everywhere() -> None:
    assert shard_of(TableKey(-100123)) == shard_of(TableKey(-100123)) < SHARDS
    assert shard_of(TableKey(-100123, 42)) == shard_of(TableKey(-100123))  # a forum's tables: their group's shard
    spread = {shard_of(TableKey(-1000000000 - i)) for i in range(400)}
    assert len(spread) == SHARDS


async def test_a_worker_whose_lease_ended_has_its_sessions_ended_and_holds_no_shard_up(postgres_url: str) -> None:
    """A stopped worker's lease ends (its coordinator's connection) while one of its pooled sessions sits in a
    fenced write transaction, holding its shard's row: the survivor's round ends that worker's sessions, so it takes
    the shard at once instead of waiting for the server to end the idle transaction (IDLE_IN_TRANSACTION_S)."""
    stopped_db = await Database.open(postgres_url, member=111)
    survivor_db = await Database.open(postgres_url, member=222)
    stopped = Ownership(lambda: Coordinator.connect(postgres_url, member=111), empty_tables(), stopped_db)
    survivor = Ownership(lambda: Coordinator.connect(postgres_url, member=222), empty_tables(), survivor_db)
    try:
        await _rounds(stopped)
        await _rounds(survivor, stopped)
        shard = min(stopped.owned)
        open_transaction = stopped_db.fenced(stopped.fences.of(shard)).transaction()
        await open_transaction.__aenter__()  # the shard's row held FOR SHARE, as a write that was stopped midway
        assert stopped.coordinator is not None
        await stopped.coordinator.close()  # its lease ends, as the server ends a stopped process's
        await asyncio.wait_for(_until_owned(survivor, shard), IDLE_IN_TRANSACTION_S - 2)  # no round waits on the row
        assert len(survivor.owned) == SHARDS
        with pytest.raises(StorageUnavailableError):  # its session was ended: nothing more is written through it
            await open_transaction.__aexit__(None, None, None)
        await survivor_db.players.upsert(7, "Ann")  # the survivor's own sessions go on
    finally:
        await stopped.close()
        await survivor.close()
        await stopped_db.close()
        await survivor_db.close()
