"""The Database: the repositories over one of two backends, chosen by what MAHJONG_DB names.

    db = await Database.open("data/mahjong.sqlite3")          # or sqlite:///data/mahjong.sqlite3
    db = await Database.open("postgresql://bot@db/mahjong")   # asyncpg (pip install '.[postgres]')
    await db.players.upsert(42, "Ann")
    ...
    await db.close()            # or: async with await Database.open(target) as db: ...

storage.sqlite is the embedded default (one file, WAL, one writer per process); storage.postgres serves any
number of processes from one PostgreSQL server. Both give the repositories (storage.gateway.Gateway) the same
four ways in: ``transaction()`` (statements awaited one by one), ``write(body)`` (a whole write transaction at
once: the hot paths, a hand's deal and its settlement), ``fetchall`` (one read) and ``execute`` (one write, e.g.
appending an action). Both are opened migrated to the same schema, from the one history in storage/migrations.
A worker (bot.cluster) writes its tables through ``db.fenced(fence)``: the same repositories, every write refused
once another worker has taken the table's shard (storage.fencing).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Iterable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from storage.chats import Chats
from storage.codec import Clock, utc_now
from storage.dialect import parse_target
from storage.fencing import FencedBackend, ShardOwners
from storage.gateway import Backend, Fence, Row, Trace, Tx
from storage.group_append import GroupAppends
from storage.handled_updates import HandledUpdates
from storage.hands import Hands
from storage.inbox import Inbox
from storage.leagues import Leagues
from storage.live_messages import LiveMessages
from storage.matches import Matches
from storage.players import Players
from storage.quick import QuickQueue
from storage.ratings import Ratings
from storage.seated import Seated
from storage.sqlite import SqliteBackend
from storage.standings import Standings
from storage.stats import Stats

T = TypeVar("T")


class Database:
    def __init__(
        self, backend: Backend, clock: Clock = utc_now, fence: Fence | None = None, appends: GroupAppends | None = None
    ) -> None:
        self.backend = backend
        self.now = clock
        self.fence = fence  # a fenced view's (below)
        self.appends = GroupAppends(self) if appends is None else appends  # its fenced views' appends, together
        self.players = Players(self)
        self.chats = Chats(self)
        self.matches = Matches(self)
        self.hands = Hands(self, self.appends)
        self.leagues = Leagues(self)
        self.standings = Standings(self)
        self.stats = Stats(self)
        self.ratings = Ratings(self)
        self.quick = QuickQueue(self)
        self.live_messages = LiveMessages(self)
        self.updates = HandledUpdates(self)
        self.inbox = Inbox(self)  # workers sharing PostgreSQL only (bot.cluster), as are the two below
        self.shard_owners = ShardOwners(self)
        self.seated = Seated(self)  # one table a person across workers (bot.cluster)
        self._views: dict[Fence, Database] = {}

    @classmethod
    async def open(
        cls, target: str | Path, *, clock: Clock = utc_now, trace: Trace | None = None, member: int | None = None
    ) -> Database:
        """Open (creating if needed) and migrate to the latest schema; SchemaTooNewError if it is newer.

        target: a SQLite file (a path, or sqlite:///path) or a PostgreSQL URL (postgresql://…). trace: called
        with each statement's SQL before it runs, once migrated (diagnostics, and the crash tests' kill points).
        member: this worker's number among several on PostgreSQL (bot.cluster, storage.fencing.worker_number): its
        sessions marked with it."""
        backend, where = parse_target(str(target))
        if backend == "postgresql":
            from storage.postgres import PostgresBackend  # asyncpg is needed only here

            return cls(await PostgresBackend.connect(where, trace, member), clock)
        return cls(await SqliteBackend.connect(Path(where), trace), clock)

    async def close(self) -> None:
        await self.backend.close()

    def fenced(self, fence: Fence) -> Database:
        """The same repositories, whose every write is refused (FencedError) once ``fence`` is no longer its
        shard's epoch (storage.fencing); one view per fence, kept (a worker takes a shard a handful of times)."""
        view = self._views.get(fence)
        if view is None:
            view = self._views[fence] = Database(FencedBackend(self.backend, fence), self.now, fence, self.appends)
        return view

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[Tx]:
        """Statements inside one transaction: committed on success, rolled back on any exception.

        Read transactions (write=False) see one consistent snapshot across their queries; write transactions
        run one at a time (across processes too). The database refusing (locked, disk full, read-only, a
        constraint, the server gone) raises StorageUnavailableError, after the rollback."""
        return self.backend.transaction(write)

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """``body``'s statements in one write transaction: committed when it returns, rolled back when it
        raises (the database refusing: StorageUnavailableError). ``body`` must await nothing but its statements."""
        return await self.backend.write(body)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """One read statement (atomic on its own): it waits for no transaction."""
        return await self.backend.fetchall(sql, params)

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write statement in its own transaction; returns the number of rows it changed."""
        return await self.backend.execute(sql, params)

    async def tables(self) -> list[str]:
        """The names of the schema's tables, sorted (the migrations' own bookkeeping left out)."""
        return await self.backend.tables()

    async def backup(self, dest: str | Path) -> Path:
        """An online copy of a SQLite database to dest (storage.backup); the bot keeps running meanwhile."""
        return await self.backend.backup(dest)
