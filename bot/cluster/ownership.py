"""A worker's shards: taken through PostgreSQL's advisory locks (storage.cluster), a fair share of them, and
the tables of those alone run here.

    owner = Ownership(connect, tables, db, taken)  # connect: a new Coordinator; taken: set when shards come
    await owner.rebalance()                      # every REBALANCE_S, by owner.run()
    owner.owned                                  # the shards locked here, their tables resumed
    owner.fences.fence(table_key)                # what the table's writes carry (storage.fencing)
    async with owner.handling(shard): ...        # an update of the shard; the shard is not given up meanwhile

Every ``REBALANCE_S`` a worker counts the live workers N (each holds a member lock while its connection lives)
and moves toward ceil(SHARDS / N) shards: above it, it gives up those running the fewest tables (their runners
stopped first, then the lock freed); below it, it takes free shards (a lock nobody holds), raises their epochs
(storage.fencing: from then on the writes of any worker that held them before are refused), then resumes their
tables from storage (bot.host.resume) before it handles their updates; while still below, it looks again every
``SHORT_OF_SHARE_S``, so a worker that joins has its share as soon as the others' rounds free it. A worker
killed frees its locks with its connection, and the others, now fewer, take its shards within a round or two;
so does a worker that stops running (SIGSTOP) once its lease ends (storage.cluster.LEASE_S). A worker that
cannot reach PostgreSQL within the coordinator's timeout, or whose connection ended (its lease gone), stops
every table it runs at once: another may own them by then. A table whose runner died is resumed again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Final

from bot.cluster.shards import SHARDS, shard_of
from bot.host.registry import Tables
from bot.host.resume import resume_tables
from bot.table.key import TableKey
from bot.waits import set_or_timeout
from storage.cluster import Coordinator
from storage.database import Database
from storage.errors import StorageError, StorageUnavailableError
from storage.fencing import Fences

if TYPE_CHECKING:
    from bot.cluster.shared_rate import RedisRate

log = logging.getLogger(__name__)

REBALANCE_S: Final = 1.0  # a round: two short queries on the coordinator (how many live, whose lease ended)
WITHOUT_REDIS: Final = "without redis"  # the mark of a worker Redis does not answer (bot.cluster.shared_rate)
# Such a worker writes nothing this long after its mark is taken: every other worker has had a round to see it
# and lower the bucket's rate by its share.
HOLD_S: Final = 2 * REBALANCE_S
SHORT_OF_SHARE_S: Final = 0.25  # how often a worker below its share looks: the others free shards at their round


class Ownership:
    def __init__(
        self,
        connect: Callable[[], Awaitable[Coordinator]],
        tables: Tables,
        db: Database,
        taken: asyncio.Event | None = None,
        period: float = REBALANCE_S,
        fences: Fences[TableKey] | None = None,
        taken_up: Callable[[frozenset[int]], Awaitable[object]] | None = None,
        rate: RedisRate | None = None,
    ) -> None:
        self._connect, self.tables, self.db, self.period = connect, tables, db, period
        self.coordinator: Coordinator | None = None
        self._owned: set[int] = set()
        # The epoch each shard was taken at here: the tables' edge fences their writes with the same (bot.app).
        self.fences = fences if fences is not None else Fences(shard_of)
        self._taken_up = taken_up  # called with the shards just taken, their tables resumed (their league nights)
        self._handling: dict[int, asyncio.Lock] = {}
        self._taken = taken  # set whenever shards were taken: the inbox's consumer looks at once
        self.short = False  # below its share after its last round: it looks again soon
        self._ended = asyncio.Event()  # the coordinator's connection ended: a round at once drops everything
        self.rate = rate  # the overall write rate shared through Redis, told each round how it is shared
        self._marked_at: float | None = None  # when this worker's WITHOUT_REDIS mark was taken (on its connection)
        self._alive: set[int] = set()  # the worker processes whose lease lived at the last round

    @property
    def joined(self) -> bool:
        """Whether this worker holds its place among the workers now (its connection is up): what /healthz says."""
        return self.coordinator is not None and not self.coordinator.closed

    @property
    def owned(self) -> frozenset[int]:
        return frozenset(self._owned)

    @contextlib.asynccontextmanager
    async def handling(self, shard: int) -> AsyncIterator[bool]:
        """While an update of ``shard`` is handled the shard is not given up; yields whether it is still owned."""
        async with self._handling.setdefault(shard, asyncio.Lock()):
            yield shard in self._owned

    async def run(self) -> None:
        """Rebalance every period until cancelled; a round that fails is logged and tried again."""
        while True:
            try:
                await self.rebalance()
            except Exception:
                log.exception("rebalancing failed; trying again")
            await set_or_timeout(self._ended, min(self.period, SHORT_OF_SHARE_S) if self.short else self.period)

    async def rebalance(self) -> None:
        if self.coordinator is not None and self.coordinator.closed:
            await self._lose_all("the coordinator's connection ended")
        if self.coordinator is None:
            try:
                self.coordinator = await self._connect()
            except StorageUnavailableError as e:
                log.warning("no shard taken: %s", e)
                return
            self._ended.clear()
            self._marked_at = None
            self.coordinator.when_lost(self._ended.set)
            log.info("joined the workers (connection %d)", self.coordinator.pid)
        coordinator = self.coordinator
        await self._replace_dead()
        try:
            await self._end_the_gone(coordinator)
            workers = max(await coordinator.workers(), 1)
            await self._share_rate(coordinator, workers)
            target = math.ceil(SHARDS / workers)
            if len(self._owned) > target:
                for shard in self._least_busy()[: len(self._owned) - target]:
                    await self._give_up(coordinator, shard)
            elif len(self._owned) < target:
                await self._take(coordinator, target - len(self._owned))
            self.short = len(self._owned) < target
        except StorageUnavailableError as e:
            await self._lose_all(str(e))

    async def _share_rate(self, coordinator: Coordinator, workers: int) -> None:
        """This worker marked as Redis answers it or not, and the rate told what the database says of all."""
        if self.rate is None:
            return
        if self.rate.failing != (self._marked_at is not None):
            await coordinator.mark(WITHOUT_REDIS, self.rate.failing)
            self._marked_at = time.monotonic() if self.rate.failing else None
        own_share = self._marked_at is not None and time.monotonic() - self._marked_at >= HOLD_S
        self.rate.shared(workers, await coordinator.marked(WITHOUT_REDIS), own_share)

    async def _replace_dead(self) -> None:
        """The tables of owned shards whose runner died, resumed from storage as a new owner would."""
        dead = {key for key in self.tables.dead() if shard_of(key) in self._owned}
        if dead:
            resumed = await resume_tables(self.tables, self.db, lambda key: key in dead)
            log.warning("%d table(s) whose runner had died resumed", resumed)

    async def _end_the_gone(self, coordinator: Coordinator) -> None:
        """The pooled sessions of the workers whose lease ended since the last round, ended: a stopped worker's open
        transaction (its lock on a shard's row) no longer holds up whoever takes its shards."""
        alive = await coordinator.alive()
        gone, self._alive = self._alive - alive, alive
        if gone:
            log.info("the lease of %d worker(s) ended: %d of their sessions ended", len(gone),
                     await coordinator.end_sessions(gone))  # fmt: skip

    async def _take(self, coordinator: Coordinator, wanted: int) -> None:
        free = sorted(set(range(SHARDS)) - await coordinator.taken())
        random.shuffle(free)  # two workers starting together mostly try different shards
        taken = await coordinator.take(free[:wanted])  # one another takes meanwhile is tried again next round
        if not taken:
            return
        # A shard's lock is free once its old owner's lease ended, maybe since this round asked who is alive: its
        # sessions are ended first, or raising the epoch would wait on a transaction it left open.
        await self._end_the_gone(coordinator)
        try:  # before the tables are read back: what an old owner still stores is refused
            self.fences.hold(*await self.db.shard_owners.take(taken))
            resumed = await resume_tables(self.tables, self.db, lambda key: shard_of(key) in taken)
        except StorageError:  # nothing of these shards runs here: their locks go back
            await self.tables.release(lambda key: shard_of(key) in taken)
            self.fences.drop(taken)
            for shard in taken:
                await coordinator.give_up(shard)
            raise
        self._owned |= taken
        if self._taken is not None:
            self._taken.set()
        await self._take_up(taken)
        log.info("shards taken: %d (owning %d); %d table(s) resumed", len(taken), len(self._owned), resumed)

    async def _take_up(self, taken: set[int]) -> None:
        if self._taken_up is None:
            return
        try:
            await self._taken_up(frozenset(taken))
        except Exception:  # the shards stay taken: their tables run, what failed is logged
            log.exception("taking up the work of shards %s failed", sorted(taken))

    def _least_busy(self) -> list[int]:
        """The owned shards, those running the fewest tables first: moving a shard pauses its tables (and a table
        still in its lobby, not stored yet, is lost), so empty shards move first."""
        running = Counter(shard_of(table.key) for table in self.tables.all())
        return sorted(self._owned, key=lambda shard: (running[shard], shard))

    async def _give_up(self, coordinator: Coordinator, shard: int) -> None:
        async with self._handling.setdefault(shard, asyncio.Lock()):
            self._owned.discard(shard)
            try:
                stopped = await self.tables.release(lambda key: shard_of(key) == shard)
            finally:  # whatever failed there, the shard is no longer this worker's: its lock goes back
                self.fences.drop([shard])
        await coordinator.give_up(shard)
        log.info("shard %d given up (%d table(s) stopped); owning %d", shard, stopped, len(self._owned))

    async def _lose_all(self, why: str, level: int = logging.WARNING) -> None:
        """The connection is lost or silent (or the worker closes): its locks are, or soon will be, someone
        else's, so its tables stop here (every step taken, whatever one of them raises)."""
        lost, self._owned = self._owned, set()
        coordinator, self.coordinator = self.coordinator, None
        if self.rate is not None:  # its mark goes with the connection
            self.rate.unmarked()
        stopped = 0
        try:
            stopped = await self.tables.release(lambda key: shard_of(key) in lost)
        except Exception:
            log.exception("stopping the tables of the shards dropped failed; dropping them all the same")
        self.fences.drop(lost)
        if coordinator is not None:
            await coordinator.close()
        log.log(level, "%s: %d shard(s) and %d table(s) dropped", why, len(lost), stopped)

    async def close(self) -> None:
        """Stop every table here and free every lock (the others take them up at once)."""
        await self._lose_all("worker stopping", logging.INFO)
