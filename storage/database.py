"""The Database: one SQLite file in WAL mode, opened, migrated and shared by the repositories.

    db = await Database.open("mahjong.sqlite3")
    await db.players.upsert(42, "Ann")
    ...
    await db.close()            # or: async with await Database.open(path) as db: ...

One aiosqlite connection serves the whole process; an asyncio.Lock gives each transaction the connection
to itself, so concurrent tables interleave whole transactions, never statements. Writes use
BEGIN IMMEDIATE, so two processes on one file queue on busy_timeout instead of failing mid-transaction.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, cast

import aiosqlite

from storage.backup import backup_file
from storage.chats import Chats
from storage.codec import Clock, utc_now
from storage.errors import StorageError, StorageUnavailableError
from storage.hands import Hands
from storage.leagues import Leagues
from storage.live_messages import LiveMessages
from storage.matches import Matches
from storage.players import Players
from storage.schema import migrate
from storage.standings import Standings
from storage.stats import Stats

BUSY_TIMEOUT_MS = 10_000


class Database:
    def __init__(self, conn: aiosqlite.Connection, path: Path, clock: Clock) -> None:
        self._conn = conn
        self._lock = asyncio.Lock()
        self.path = path
        self.now = clock
        self.players = Players(self)
        self.chats = Chats(self)
        self.matches = Matches(self)
        self.hands = Hands(self)
        self.leagues = Leagues(self)
        self.standings = Standings(self)
        self.stats = Stats(self)
        self.live_messages = LiveMessages(self)

    @classmethod
    async def open(cls, path: str | Path, *, clock: Clock = utc_now) -> Database:
        """Open (creating if needed) and migrate to the latest schema; SchemaTooNewError if it is newer."""
        path = Path(path)
        conn = await connect(path)
        try:
            await migrate(conn)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path, clock)

    async def close(self) -> None:
        async with self._lock:
            await self._conn.close()

    async def __aenter__(self) -> Database:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    @contextlib.asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """The connection inside one transaction: committed on success, rolled back on any exception.

        Read transactions (write=False) see one consistent snapshot across their queries. SQLite refusing
        (locked, disk full, read-only, a constraint) raises StorageUnavailableError, after the rollback.
        """
        async with self._lock:
            try:
                # Inside the try: a task cancelled while BEGIN is queued must still roll it back.
                await self._conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield self._conn
                await self._conn.execute("COMMIT")
            except BaseException as exc:
                # Queued behind any statement still running, so the rollback lands after it; after a COMMIT
                # that did go through there is nothing left to roll back.
                with contextlib.suppress(sqlite3.Error):
                    await self._conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _unavailable(exc) from exc
                raise

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
        """One read statement (atomic on its own)."""
        async with self._lock:
            try:
                return list(await self._conn.execute_fetchall(sql, tuple(params)))
            except sqlite3.Error as exc:
                raise _unavailable(exc) from exc

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write statement in its own transaction; returns the number of rows it changed."""
        async with self._lock:
            try:
                cursor = await self._conn.execute(sql, tuple(params))
            except sqlite3.Error as exc:
                raise _unavailable(exc) from exc
            return cursor.rowcount

    async def backup(self, dest: str | Path) -> Path:
        """An online copy of the database to dest (see storage.backup); the bot keeps running meanwhile."""
        return await asyncio.to_thread(backup_file, self.path, Path(dest))

    async def set_trace(self, callback: Callable[[str], object] | None) -> None:
        """Call callback(sql) before each statement runs (diagnostics, and the crash tests' kill points)."""
        # None clears it: sqlite3 accepts None, aiosqlite's annotation does not say so.
        await self._conn.set_trace_callback(cast("Callable[..., Any]", callback))


def _unavailable(exc: sqlite3.Error) -> StorageUnavailableError:
    """SQLite's refusal as storage's error: its kind and SQLite's short reason (no SQL, no values, no path)."""
    return StorageUnavailableError(f"the database refused it ({type(exc).__name__}: {str(exc)[:80]})")


async def connect(path: Path) -> aiosqlite.Connection:
    """An autocommit connection with the pragmas every user of the file needs."""
    if str(path) == ":memory:" or str(path).startswith("file:"):
        raise StorageError("storage needs a database file path (WAL mode does not work in memory)")
    conn = await aiosqlite.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
        if rows[0][0] != "wal":
            raise StorageError(f"could not put {path} in WAL mode (got {rows[0][0]!r})")
        # NORMAL is durable against process crashes in WAL mode; only an OS crash may lose the last commits.
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
    except BaseException:
        await conn.close()
        raise
    return conn
