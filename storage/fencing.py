"""Fencing for workers sharing one PostgreSQL (bot.cluster; PostgreSQL only): a worker that lost a shard without
knowing it yet can no longer write for that shard's tables.

    [fence] = await db.shard_owners.take([7])    # after taking shard 7's lock: its epoch raised (a Fence)
    view = db.fenced(fence)                      # the same repositories; every write checks the fence
    await view.hands.append_action(hand_id, seq, action, done=update_id)   # FencedError once another took 7

A shard's advisory lock (storage.cluster) says who owns it now, but a worker learns that it lost one only at its
next look (its connection cut off by a network split: the server drops its locks after ~5 s, the worker notices
within its round). In between, its writes must not cross the new owner's. So each worker that takes a shard
raises the shard's epoch in ``shard_owners`` (after the lock, before it resumes the shard's tables), and every
write transaction of a fenced view first reads its shard's row ``FOR SHARE`` and goes on only if the epoch is
still its own. The lock on the row orders the two: a write that checked first commits before the new owner's
epoch (and so before it reads the tables back from storage); one that comes after finds the new epoch and is
refused with ``FencedError`` (a ``StorageError``: the table's core takes it as any refused store). Reads are not
fenced: they change nothing. The hottest write, appending an action, stays one statement without the writers'
lock: it joins the shard's row (read ``FOR SHARE``) in a WITH, the press's inbox update marked done in the same
statement, the appends of many tables in one (storage.group_append).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator, Callable, Coroutine, Iterable
from pathlib import Path
from typing import Any, Generic, TypeVar

from storage.codec import timestamp
from storage.errors import FencedError
from storage.gateway import Backend, Fence, Gateway, Row, Tx

T = TypeVar("T")
K = TypeVar("K")


def worker_number() -> int:
    """A new worker's number among the workers, drawn when it starts: its pooled sessions and its lease are marked
    with it (storage.postgres, storage.cluster), so that once its lease ends the others end its sessions too."""
    return secrets.randbits(31)


_RAISE = """
INSERT INTO shard_owners (shard, epoch, taken_at) VALUES {rows}
ON CONFLICT (shard) DO UPDATE SET epoch = shard_owners.epoch + 1, taken_at = ?1
RETURNING shard, epoch
"""
_CHECK = "SELECT epoch FROM shard_owners WHERE shard = ? FOR SHARE"


class Fences(Generic[K]):
    """The fence of each shard a worker holds, by the shard of a key (a table's): filled by the worker's ownership
    (bot.cluster.ownership) as it takes and gives up shards, read for every write of a table (bot.host.edge).

        fences = Fences(shard_of)
        fences.hold(*await db.shard_owners.take([7])); fences.fence(table_key); fences.drop([7])
    """

    def __init__(self, shard_of: Callable[[K], int]) -> None:
        self._shard_of = shard_of
        self._held: dict[int, Fence] = {}

    def fence(self, key: K) -> Fence:
        return self.of(self._shard_of(key))

    def of(self, shard: int) -> Fence:
        """The shard's fence here; for a shard not held, one that every write fails (epochs start at 1)."""
        return self._held.get(shard, Fence(shard, 0))

    def holds(self, key: K) -> bool:
        """Whether the key's shard is held here (its epoch taken by this worker)."""
        return self._shard_of(key) in self._held

    def hold(self, *fences: Fence) -> None:
        for fence in fences:
            self._held[fence.shard] = fence

    def drop(self, shards: Iterable[int]) -> None:
        for shard in shards:
            self._held.pop(shard, None)


class ShardOwners:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def take(self, shards: Iterable[int]) -> list[Fence]:
        """The shards' epochs raised (committed, in one statement): the fences of their new owner, which every
        older fence now fails."""
        taken = sorted(shards)
        if not taken:
            return []
        rows = ", ".join(f"(?{n}, 1, ?1)" for n in range(2, len(taken) + 2))
        found = await self._db.fetchall(_RAISE.format(rows=rows), (timestamp(self._db.now()), *taken))
        return [Fence(int(r["shard"]), int(r["epoch"])) for r in found]

    async def epoch(self, shard: int) -> int:
        """The shard's epoch now (0: never taken)."""
        rows = await self._db.fetchall("SELECT epoch FROM shard_owners WHERE shard = ?", (shard,))
        return int(rows[0]["epoch"]) if rows else 0


async def check(tx: Tx, fence: Fence) -> None:
    """Within a write transaction: go on only while ``fence`` is the shard's epoch (its row held until the end)."""
    rows = list(await tx.execute_fetchall(_CHECK, (fence.shard,)))
    now = int(rows[0]["epoch"]) if rows else 0
    if now != fence.epoch:
        raise FencedError(f"shard {fence.shard} was taken over (epoch {now}, this worker's {fence.epoch})")


class FencedBackend:
    """A backend whose every write runs in a transaction that first checks ``fence`` (a single write statement
    becomes one such transaction); reads pass through as they are."""

    def __init__(self, backend: Backend, fence: Fence) -> None:
        self._backend, self.fence = backend, fence

    @contextlib.asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        async with self._backend.transaction(write) as tx:
            if write:
                await check(tx, self.fence)
            yield tx

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        async def fenced(tx: Tx) -> T:
            await check(tx, self.fence)
            return await body(tx)

        return await self._backend.write(fenced)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return await self._backend.fetchall(sql, params)

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        async def one(tx: Tx) -> int:
            return (await tx.execute(sql, params)).rowcount

        return await self.write(one)

    async def tables(self) -> list[str]:
        return await self._backend.tables()

    async def backup(self, dest: str | Path) -> Path:
        return await self._backend.backup(dest)

    async def close(self) -> None:
        """The view shares its backend: closing it closes nothing (the Database it came from does)."""
