"""What workers sharing one PostgreSQL coordinate through (bot.cluster): who is alive, who owns which shard,
who polls Telegram, and the wake-ups of the update inbox. PostgreSQL only; nothing of our own between workers.

    coordinator = await Coordinator.connect(dsn, on_notify)   # one dedicated connection per worker
    await coordinator.workers()         # the live workers: each holds a member lock while its connection lives
    await coordinator.take([7, 8])      # {7}: shard 7 is this worker's until give_up(7) or the connection ends
    await coordinator.lead("poller")    # True: this worker is the one that polls (held until the connection ends)
    await coordinator.mark("without redis", True); await coordinator.marked("without redis")   # how many say so

Every lock is a session advisory lock of the dedicated connection, named per schema (several databases, and the
tests' schemas, share one server): ``(hashtext('mahjong shard ' || schema), shard)``, ``(hashtext('mahjong
worker ' || schema), backend pid)``, ``hashtext('mahjong <role> ' || schema)``. When a worker dies its connection
ends and the server drops its locks: at once when its process is killed (the kernel closes the socket), within
about 5 s when its machine or network goes (the server's TCP keepalives below: 2 s idle, 1 s apart, 3 probes).

The locks are a lease: a worker must renew it by a query at least every ``LEASE_S``, which the connection does
every ``RENEW_S``; the server ends a session silent for ``LEASE_S`` (idle_session_timeout), so a process that
is alive but does not run (stopped by SIGSTOP, swapped out, its event loop stuck) loses its locks too, and the
others take its shards in their next round. ``when_lost`` hears the connection end; from then on the worker owns
nothing (storage.fencing refuses what it still tries to store). The connection's queries time out after
``CHECK_TIMEOUT_S``: a worker that cannot reach the server in that time must act as if it had lost every lock
(bot.cluster.ownership does).

A worker also knows for how long its lease surely lasts (``Lease``): until LEASE_S after it sent the last query
the server answered, less a margin. Its writes to chats are refused while that is not known (bot.leased_request):
a worker that was stopped, and runs again, sends nothing of the tables another worker may have taken meanwhile
before it has looked (and then dropped what waited for them).
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from typing import Any, Final

import asyncpg

from storage.errors import StorageUnavailableError
from storage.inbox import CHANNEL
from storage.postgres import CONNECT_TIMEOUT_S, FAILURES, POOLED

# A stopped worker's tables move after at most LEASE_S and the others' next round (bot.cluster.ownership: 1 s).
LEASE_S: Final = 4.0  # with a round after it, tables move again within 10 s even on a busy machine
RENEW_S: Final = LEASE_S / 3
# The server notices a silent peer in 2 + 3 x 1 = 5 s and ends its session, freeing its locks; a silent process
# (its host still answering the keepalives) in LEASE_S.
SESSION: Final = {
    "tcp_keepalives_idle": "2",
    "tcp_keepalives_interval": "1",
    "tcp_keepalives_count": "3",
    "idle_session_timeout": str(round(LEASE_S * 1000)),
}
CHECK_TIMEOUT_S: Final = 1.5
# A lease is taken as held only this long before it could end: the margin covers the time between a write's check
# and its request leaving the process. With a renewal every RENEW_S it never lapses on a worker that runs.
LEASE_MARGIN_S: Final = 1.0

_KEY = "hashtext($1 || current_schema())"
# The locks held on a name ($1), each lock's second key its objid: in this database, of this schema.
_HELD_ON = f"""locktype = 'advisory' AND objsubid = 2 AND granted AND classid = {_KEY}::oid
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"""
_HELD = f"SELECT objid::bigint AS n FROM pg_locks WHERE {_HELD_ON}"


ALIVE: Final = "mahjong alive "  # a worker's number (storage.fencing.worker_number) while its lease lives
# The sessions of the processes given (their pooled ones, storage.postgres) ended: what a worker whose lease ended
# still holds (an open transaction, a shard's row) is let go at once, and nothing more is written through them.
_END_SESSIONS = f"""SELECT COUNT(pg_terminate_backend(pid)) AS n FROM pg_locks
WHERE {_HELD_ON} AND objid::bigint = ANY($2::bigint[])"""


class Lease:
    """Until when this worker surely holds its locks, whichever of its coordinators renewed them last.

        lease = Lease(); coordinator = await Coordinator.connect(dsn, lease=lease); lease.holds()

    The server ends a session only once it has been idle LEASE_S, counted from after it answered a query, and the
    other workers take its locks only then: so a worker that sent a query at ``t`` and had its answer holds them
    until ``t + LEASE_S`` at least (``until``, less LEASE_MARGIN_S). Before any answer, and once a stop or a lost
    connection let that time pass, it does not know."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.until = -math.inf

    def renewed(self, sent_at: float) -> None:
        self.until = max(self.until, sent_at + LEASE_S - LEASE_MARGIN_S)

    def holds(self) -> bool:
        return self._clock() < self.until


class Coordinator:
    def __init__(self, conn: asyncpg.Connection, schema: str, lease: Lease | None = None) -> None:
        self._conn = conn
        self._lease = lease if lease is not None else Lease()
        self._busy = asyncio.Lock()  # one query at a time on the one connection
        self.channel = f"{CHANNEL}_{schema}"
        self._renewing = asyncio.create_task(self._renew(), name="lease")

    @classmethod
    async def connect(
        cls,
        dsn: str,
        on_notify: Callable[[str], None] | None = None,
        member: int | None = None,
        lease: Lease | None = None,
    ) -> Coordinator:
        """The worker's connection, joined as a live worker (and listening to the inbox if on_notify is given; its
        lease on ``member``, the number its pooled sessions carry, if given); StorageUnavailableError when the
        server cannot be reached; ``lease``: renewed by every query answered)."""
        sent_at = time.monotonic()
        try:
            conn = await asyncpg.connect(dsn, timeout=CONNECT_TIMEOUT_S, server_settings=SESSION)
        except FAILURES as e:
            raise StorageUnavailableError(f"the coordinator cannot connect ({type(e).__name__})") from e
        try:
            schema = await conn.fetchval("SELECT current_schema()")
            await conn.execute(f"SELECT pg_advisory_lock({_KEY}, pg_backend_pid())", "mahjong worker ")
            alive = f"SELECT pg_try_advisory_lock({_KEY}, $2)"
            if member is not None and not await conn.fetchval(alive, ALIVE, member):
                raise StorageUnavailableError(f"another worker has the number {member}")  # one in 2^31: a bug
            coordinator = cls(conn, str(schema), lease)
            coordinator._lease.renewed(sent_at)
            if on_notify is not None:
                await conn.add_listener(coordinator.channel, lambda *args: on_notify(str(args[-1])))
        except BaseException as e:
            conn.terminate()
            if isinstance(e, FAILURES):
                raise StorageUnavailableError(f"the coordinator cannot join ({type(e).__name__})") from e
            raise
        return coordinator

    async def _query(self, sql: str, *args: Any) -> list[asyncpg.Record]:
        """The rows of one query; StorageUnavailableError (the connection then closed) when it fails or takes
        longer than CHECK_TIMEOUT_S: this worker's locks must be taken as lost."""
        try:
            async with self._busy:
                sent_at = time.monotonic()
                rows = list(await self._conn.fetch(sql, *args, timeout=CHECK_TIMEOUT_S))
                self._lease.renewed(sent_at)
                return rows
        except FAILURES as e:
            self._conn.terminate()
            raise StorageUnavailableError(f"the coordinator's connection failed ({type(e).__name__})") from e

    async def _renew(self) -> None:
        """Renew the lease until the connection ends (a failed query ends it)."""
        while True:
            await asyncio.sleep(RENEW_S)
            try:
                await self._query("SELECT 1")
            except StorageUnavailableError:
                return

    def when_lost(self, lost: Callable[[], None]) -> None:
        """Call ``lost`` once the connection has ended (the server ended it, or it failed, or ``close``)."""
        self._conn.add_termination_listener(lambda _conn: lost())

    async def workers(self) -> int:
        """How many workers are alive (this one included)."""
        return len(await self._query(_HELD, "mahjong worker "))

    async def alive(self) -> set[int]:
        """The worker processes whose lease lives (this one's included)."""
        return {int(r["n"]) for r in await self._query(_HELD, ALIVE)}

    async def end_sessions(self, processes: set[int]) -> int:
        """End the pooled sessions of these processes, whose lease ended (how many)."""
        rows = await self._query(_END_SESSIONS, POOLED, sorted(processes))
        return int(rows[0]["n"])

    async def taken(self) -> set[int]:
        """The shards some worker (this one included) owns."""
        return {int(r["n"]) for r in await self._query(_HELD, "mahjong shard ")}

    async def take(self, shards: list[int]) -> set[int]:
        """Those of ``shards`` locked here now (each tried once, in one round trip; one another holds is not)."""
        sql = f"SELECT s FROM unnest($2::int[]) AS s WHERE pg_try_advisory_lock({_KEY}, s)"
        return {int(r["s"]) for r in await self._query(sql, "mahjong shard ", shards)}

    async def give_up(self, shard: int) -> None:
        await self._query(f"SELECT pg_advisory_unlock({_KEY}, $2)", "mahjong shard ", shard)

    async def mark(self, name: str, on: bool) -> None:
        """Hold (``on``) or free this worker's lock ``name`` (e.g. "without redis"): what ``marked`` counts. Held
        once: the caller keeps track of it."""
        call = "pg_advisory_lock" if on else "pg_advisory_unlock"  # its own key (its pid): never waits
        await self._query(f"SELECT {call}({_KEY}, pg_backend_pid())", f"mahjong {name} ")

    async def marked(self, name: str) -> int:
        """How many live workers hold their lock ``name``."""
        return len(await self._query(_HELD, f"mahjong {name} "))

    async def lead(self, role: str) -> bool:
        """Hold the one lock of ``role`` (e.g. "poller"); True while this connection holds it."""
        rows = await self._query(f"SELECT pg_try_advisory_lock({_KEY}) AS ok", f"mahjong {role} ")
        return bool(rows[0]["ok"])

    @property
    def pid(self) -> int:
        """The server's process of this connection: the second key of this worker's member lock (pg_locks)."""
        return self._conn.get_server_pid()

    @property
    def closed(self) -> bool:
        return self._conn.is_closed()

    async def close(self) -> None:
        """End the connection: every lock of this worker is free at once."""
        self._renewing.cancel()
        if not self._conn.is_closed():
            self._conn.terminate()
