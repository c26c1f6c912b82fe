"""The SQLite backend: one file in WAL mode, opened, migrated and shared by the repositories.

One aiosqlite connection writes for the whole process; an asyncio.Lock gives each transaction the connection
to itself, so concurrent tables interleave whole transactions, never statements. Writes use
BEGIN IMMEDIATE, so two processes on one file queue on busy_timeout instead of failing mid-transaction.

Under load every await costs a turn of the event loop, and the writers wait for each other, so the hot paths
avoid both (bench/bot.py: a press's storage waited seconds behind 100 tables' settlements):
- ``write(body)`` runs a whole write transaction on the writer's thread in one go: ``body`` awaits its
  statements as in ``transaction()``, but each has already run when awaited, so the lock is held for the
  statements' own time, not for a turn of the loop per statement;
- a single write (``execute``) takes no lock: it waits only while a ``transaction()`` is open (it would land
  inside it), never for ``write()`` bodies, which run whole on the thread before or after it;
- single reads (``fetchall``) go to a read-only connection and read transactions to another, neither waiting
  for the writers: WAL lets them run beside a write, and each single read is a statement of its own, so it
  sees every transaction committed before it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator, Callable, Coroutine, Generator, Iterable
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import aiosqlite

from storage.backup import backup_file
from storage.errors import StorageError, StorageUnavailableError
from storage.gateway import Row, Trace, Tx, to_its_end
from storage.schema import migrate

BUSY_TIMEOUT_MS = 10_000
T = TypeVar("T")
A = TypeVar("A")


class SqliteBackend:
    def __init__(self, conns: tuple[_Connection, _Connection, _Connection], path: Path) -> None:
        self._conn, self._reader, self._snapshots = conns  # writes; single reads; read transactions
        self._lock = asyncio.Lock()  # one transaction at a time on the writer
        self._between = asyncio.Event()  # set while no transaction() is open on the writer
        self._between.set()
        self._snapshot_lock = asyncio.Lock()
        self.path = path

    @classmethod
    async def connect(cls, path: Path, trace: Trace | None = None) -> SqliteBackend:
        """Open (creating if needed) and migrate to the latest schema; SchemaTooNewError if it is newer.
        ``trace`` is given each statement's SQL before it runs, once migrated."""
        conns = [await connect(path)]
        try:
            await migrate(conns[0])
            conns += [await connect(path, read_only=True) for _ in range(2)]
            if trace is not None:
                for conn in conns:
                    await conn.set_trace_callback(trace)
        except BaseException:
            for conn in conns:
                await conn.close()
            raise
        return cls((conns[0], conns[1], conns[2]), path)

    async def close(self) -> None:
        async with self._lock, self._snapshot_lock:
            for conn in (self._reader, self._snapshots, self._conn):
                await conn.close()

    @contextlib.asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        """The connection inside one transaction: committed on success, rolled back on any exception.

        Read transactions (write=False) see one consistent snapshot across their queries. SQLite refusing
        (locked, disk full, read-only, a constraint) raises StorageUnavailableError, after the rollback.
        """
        conn, lock = (self._conn, self._lock) if write else (self._snapshots, self._snapshot_lock)
        async with lock:
            if write:
                self._between.clear()
            try:
                # Inside the try: a task cancelled while BEGIN is queued must still roll it back.
                await conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
                yield conn
                await conn.execute("COMMIT")
            except BaseException as exc:
                # Queued behind any statement still running, so the rollback lands after it; after a COMMIT
                # that did go through there is nothing left to roll back.
                with contextlib.suppress(sqlite3.Error):
                    await conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise _unavailable(exc) from exc
                raise
            finally:
                if write:
                    self._between.set()

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        """``body``'s statements in one write transaction, run on the writer's thread in one go: committed when
        it returns, rolled back when it raises (SQLite refusing: StorageUnavailableError). ``body`` must await
        nothing but its statements."""
        async with self._lock:
            try:  # (to its end, the lock held: it is never free while the transaction may still commit)
                return await to_its_end(self._conn.run(_in_one_go, body))
            except sqlite3.Error as exc:
                raise _unavailable(exc) from exc

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        """One read statement (atomic on its own), on the reader: it waits for no transaction."""
        try:
            return list(await self._reader.execute_fetchall(sql, tuple(params)))
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        """One write statement in its own transaction; returns the number of rows it changed."""
        while not self._between.is_set():  # a transaction() is open: the statement must not land inside it
            await self._between.wait()
        # aiosqlite queues the statement before this coroutine next yields, so it runs ahead of any later BEGIN;
        # a write() body runs whole on the thread, before or after it, so it need not be waited for.
        try:
            cursor = await self._conn.execute(sql, tuple(params))
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        return cursor.rowcount

    async def tables(self) -> list[str]:
        rows = await self.fetchall(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        return [r["name"] for r in rows]

    async def backup(self, dest: str | Path) -> Path:
        """An online copy of the database to dest (see storage.backup); the bot keeps running meanwhile."""
        return await asyncio.to_thread(backup_file, self.path, Path(dest))


class _Connection(aiosqlite.Connection):
    """aiosqlite's connection, which can also run a function of the sqlite3 connection on its thread."""

    async def run(self, work: Callable[[sqlite3.Connection, A], T], arg: A) -> T:
        return cast(T, await self._execute(work, self._conn, arg))  # type: ignore[no-untyped-call]


class _Done(Generic[T]):
    """A statement's result, awaitable without waiting: ``write()`` bodies' statements have already run."""

    def __init__(self, value: T) -> None:
        self._value = value

    def __await__(self) -> Generator[Any, None, T]:
        yield from ()
        return self._value


class _RunningTx:
    """The ``Tx`` of a ``write()`` body: each statement runs when called, on the writer's thread."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Done[sqlite3.Cursor]:
        return _Done(self._conn.execute(sql, tuple(parameters)))

    def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> _Done[list[sqlite3.Row]]:
        return _Done(self._conn.execute(sql, tuple(parameters)).fetchall())

    def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> _Done[sqlite3.Cursor]:
        return _Done(self._conn.executemany(sql, (tuple(p) for p in parameters)))


def _in_one_go(conn: sqlite3.Connection, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
    """On the writer's thread: BEGIN, ``body`` driven to its end without an event loop, COMMIT (ROLLBACK if it
    raises)."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        steps = body(_RunningTx(conn))
        try:
            steps.send(None)
        except StopIteration as done:
            result: T = done.value
        else:
            steps.close()
            raise StorageError("a write() body awaited something other than its statements")
        conn.execute("COMMIT")
        return result
    except BaseException:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")
        raise


def _unavailable(exc: sqlite3.Error) -> StorageUnavailableError:
    """SQLite's refusal as storage's error: its kind and SQLite's short reason (no SQL, no values, no path)."""
    return StorageUnavailableError(f"the database refused it ({type(exc).__name__}: {str(exc)[:80]})")


def _greatest(*values: Any) -> Any:
    present = [v for v in values if v is not None]
    return max(present) if present else None


async def connect(path: Path, *, read_only: bool = False) -> _Connection:
    """An autocommit connection with the pragmas every user of the file needs (``read_only``: refusing writes)."""
    if str(path) == ":memory:" or str(path).startswith("file:"):
        raise StorageError("storage needs a database file path (WAL mode does not work in memory)")
    conn = _Connection(lambda: sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000), 64)
    await conn
    try:
        conn.row_factory = aiosqlite.Row
        await conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS:d}")
        rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
        if rows[0][0] != "wal":
            raise StorageError(f"could not put {path} in WAL mode (got {rows[0][0]!r})")
        # NORMAL is durable against process crashes in WAL mode; only an OS crash may lose the last commits.
        await conn.execute("PRAGMA synchronous = NORMAL")
        await conn.execute("PRAGMA foreign_keys = ON")
        # PostgreSQL's GREATEST (the largest argument, NULLs ignored), so the repositories write it once for both.
        await conn.create_function("greatest", -1, _greatest, deterministic=True)
        if read_only:
            await conn.execute("PRAGMA query_only = ON")
    except BaseException:
        await conn.close()
        raise
    return conn
