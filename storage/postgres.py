"""The PostgreSQL backend: a pool of asyncpg connections to one server, shared by any number of processes.

    db = await Database.open("postgresql://bot@db.example/mahjong")       # migrates, as SQLite does
    db = await Database.open("postgresql://root@127.0.0.1/test?search_path=t1")  # a schema of its own

Every query is one SQL text, the repositories' own (storage.dialect numbers its placeholders), sent as a
prepared statement that asyncpg caches per connection. Appending an action, the hottest path, is one statement
from the pool: one round trip, no transaction around it; ``write(body)`` (a deal, a settlement) is BEGIN and
the writers' lock in one round trip, then the body's statements and COMMIT. Write transactions run one at a
time per schema (a transaction-level advisory lock), as SQLite runs them, so the repositories' read-then-write
steps (a player's skill before and after a hand) stay exact across processes; single statements take no lock.
A process's write transactions queue for that lock here, one taking a pooled connection at a time
(``_writing``): waiting on the server, each would hold a connection, and a burst of deals and settlements took
all of them from the appends (bench/workers.py's live phase: the pool empty at 80 % of its statements' turns,
an append's p50 0.7 s).
Read transactions are REPEATABLE READ, READ ONLY: one snapshot across their queries, waiting for no writer.

The schema's version is the row of ``schema_version`` (SQLite keeps it in PRAGMA user_version); the
migrations are SQLite's files, translated by storage.dialect, each applied in one transaction under a lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable
from decimal import Decimal
from pathlib import Path
from typing import Any, Final, TypeAlias, TypeVar

try:
    import asyncpg
    from asyncpg.pool import PoolConnectionProxy
except ImportError as exc:  # pragma: no cover - the extra is part of the dev install
    raise ImportError("PostgreSQL storage needs asyncpg: pip install 'wuhan-mahjong-bot[postgres]'") from exc

from storage.dialect import postgres_ddl, postgres_sql
from storage.errors import ConstraintError, MigrationError, StorageError, StorageUnavailableError
from storage.gateway import Row, Trace, Tx, to_its_end
from storage.schema import LATEST_VERSION, MIGRATIONS, Migration, refuse_newer

T = TypeVar("T")
Connection: TypeAlias = "asyncpg.Connection[asyncpg.Record] | PoolConnectionProxy[asyncpg.Record]"
POOL_SIZE = 8
CONNECT_TIMEOUT_S = 10.0
# A transaction its process left open (stopped by SIGSTOP, its event loop stuck) holds the writers' lock and its
# shard's row (storage.fencing): the server ends it after this long, every other writer then goes on, and the
# shard can change hands within its lease (storage.cluster.LEASE_S). No transaction here waits on anything else.
IDLE_IN_TRANSACTION_S = 5
# The writers' lock: one per schema, so databases sharing a server (and the tests' schemas) do not queue.
_BEGIN_WRITE = "BEGIN; SELECT pg_advisory_xact_lock(hashtext('mahjong writes ' || current_schema()))"
_BEGIN_READ = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
_MIGRATION_LOCK = "SELECT pg_advisory_xact_lock(hashtext('mahjong migrations ' || current_schema()))"
# Everything the driver raises: asyncpg's three roots (the server's refusals, misuse or a closed connection, its
# protocol's own state, e.g. "cannot switch to state 12" when a connection is cut mid-statement), the socket's,
# a timeout. Each is the storage's StorageUnavailableError: the core already takes that as a store refused.
FAILURES = (
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    OSError,
    asyncio.TimeoutError,
)
# Of those, what a connection the server ended raises at its next use (not a refusal it answered, nor a timeout).
_GONE = (
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    OSError,
)
_COUNT = re.compile(r"(\d+)$")
# A worker's pooled sessions each hold a shared lock on its process's number (storage.fencing.worker_number), and its
# coordinator's connection an exclusive one while its lease lives (storage.cluster), so the others can end the
# sessions of a worker whose lease ended (a stopped process's open transactions, its rows' locks) at once.
POOLED: Final = "mahjong pooled "
_MEMBER = f"SELECT pg_advisory_lock_shared(hashtext('{POOLED}' || current_schema()), $1)"


class PostgresBackend:
    def __init__(self, pool: asyncpg.Pool, dsn: str, trace: Trace | None) -> None:
        self._pool = pool
        self.dsn = dsn
        self._trace = trace
        self._writing = asyncio.Lock()  # this process's write transaction on its way to the writers' lock

    @classmethod
    async def connect(cls, dsn: str, trace: Trace | None = None, member: int | None = None) -> PostgresBackend:
        """A pool on the server at dsn, the schema migrated; StorageUnavailableError when it cannot be reached.
        ``member``: the number of this worker among several, its sessions marked with it."""
        try:
            pool = await asyncpg.create_pool(
                dsn,
                min_size=1,
                max_size=POOL_SIZE,
                timeout=CONNECT_TIMEOUT_S,
                init=functools.partial(_prepare_connection, member=member),
                reset=_end_any_transaction,
                server_settings={"idle_in_transaction_session_timeout": str(IDLE_IN_TRANSACTION_S * 1000)},
            )
        except FAILURES as exc:
            raise _unavailable(exc) from exc
        try:
            async with pool.acquire() as conn:
                await migrate(conn)
        except BaseException:
            await pool.close()
            raise
        return cls(pool, dsn, trace)

    async def close(self) -> None:
        await self._pool.close()

    @contextlib.asynccontextmanager
    async def transaction(self, write: bool = True) -> AsyncIterator[Tx]:
        try:
            async with self._writing if write else contextlib.nullcontext(), self._begun(write) as conn:
                try:
                    yield _PostgresTx(conn, self._trace)
                    await self._traced(conn, "COMMIT")
                except BaseException:
                    # After a COMMIT that went through there is nothing left to roll back; a connection that
                    # cannot even roll back is closed, and the pool opens another.
                    try:
                        await conn.execute("ROLLBACK")
                    except BaseException:
                        _close(conn)
                    raise
        except FAILURES as exc:
            raise _unavailable(exc) from exc

    @contextlib.asynccontextmanager
    async def _begun(self, write: bool) -> AsyncIterator[Connection]:
        """A pooled connection with its transaction begun: a BEGIN has done nothing, so on a connection the server
        ended it is asked again on the next (``_live``); a refusal or a timeout is the caller's."""
        begin = _BEGIN_WRITE if write else _BEGIN_READ
        async with self._live(lambda conn: self._traced(conn, begin), POOL_SIZE) as (conn, _):
            yield conn

    @contextlib.asynccontextmanager
    async def _live(
        self, first: Callable[[Connection], Awaitable[T]], retries: int
    ) -> AsyncIterator[tuple[Connection, T]]:
        """A pooled connection and what ``first`` gave on it. A connection the server ended while it sat idle (a
        restart, a cut) fails its first use (``_GONE``): it is closed and ``first`` asked again on the next, at
        most ``retries`` more times (the pool's size: each of its connections once), so dead idle connections
        refuse nothing. Only a ``first`` that may run twice (a BEGIN, a read) is given retries."""
        for attempt in range(retries + 1):
            async with self._pool.acquire() as conn:
                try:
                    result = await first(conn)
                except _GONE:
                    _close(conn)
                    if attempt == retries:
                        raise
                    continue
                yield conn, result
                return

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        return await to_its_end(self._write(body))

    async def _traced(self, conn: Connection, sql: str) -> None:
        if self._trace is not None:
            self._trace(sql)
        await conn.execute(sql)

    async def _write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T:
        async with self.transaction() as tx:
            return await body(tx)

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]:
        return list(await self._pooled(sql, lambda conn, text: conn.fetch(text, *params), repeatable=True))

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int:
        return _rowcount(await self._pooled(sql, lambda conn, text: conn.execute(text, *params), repeatable=False))

    async def _pooled(self, sql: str, call: Callable[[Connection, str], Awaitable[T]], repeatable: bool) -> T:
        """One statement on a pooled connection, no transaction around it; a lost server is StorageUnavailable.
        A ``repeatable`` one (a read) is asked again on the next connection when its own was gone (``_live``); a
        write is not, since it may have run before its connection went."""
        if self._trace is not None:
            self._trace(sql)
        retries = POOL_SIZE if repeatable else 0
        try:
            async with self._live(lambda conn: call(conn, postgres_sql(sql)), retries) as (_, result):
                return result
        except FAILURES as exc:
            raise _unavailable(exc) from exc

    async def tables(self) -> list[str]:
        rows = await self.fetchall(
            """SELECT table_name FROM information_schema.tables
               WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name != 'schema_version'
               ORDER BY table_name"""
        )
        return [r["table_name"] for r in rows]

    async def backup(self, dest: str | Path) -> Path:
        raise StorageError("a PostgreSQL database is backed up with pg_dump (README: Backups), not by the bot")


class _Count:
    def __init__(self, rowcount: int) -> None:
        self.rowcount = rowcount


class _PostgresTx:
    """A transaction's connection, speaking the repositories' SQL (``?`` placeholders) to asyncpg."""

    def __init__(self, conn: Connection, trace: Trace | None) -> None:
        self._conn = conn
        self._trace = trace

    async def execute(self, sql: str, parameters: Iterable[Any] = ()) -> _Count:
        if self._trace is not None:
            self._trace(sql)
        try:
            return _Count(_rowcount(await self._conn.execute(postgres_sql(sql), *parameters)))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ()) -> list[Row]:
        if self._trace is not None:
            self._trace(sql)
        try:
            return list(await self._conn.fetch(postgres_sql(sql), *parameters))
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise _constraint(exc) from exc

    async def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> _Count:
        rows = [tuple(p) for p in parameters]
        if self._trace is not None:
            self._trace(sql)
        if rows:
            try:
                await self._conn.executemany(postgres_sql(sql), rows)
            except asyncpg.IntegrityConstraintViolationError as exc:
                raise _constraint(exc) from exc
        return _Count(len(rows))


async def _prepare_connection(conn: asyncpg.Connection, member: int | None = None) -> None:
    # SUM over BIGINT is NUMERIC in PostgreSQL (INTEGER in SQLite): whole numbers come back as int.
    await conn.set_type_codec("numeric", encoder=str, decoder=_number, schema="pg_catalog", format="text")
    if member is not None:
        await conn.execute(_MEMBER, member)


def _close(conn: Connection) -> None:
    """Close a pooled connection whose state is unknown; one its server ended the pool has let go already."""
    with contextlib.suppress(asyncpg.InterfaceError):
        conn.terminate()


async def _end_any_transaction(conn: asyncpg.Connection) -> None:
    """What the pool does to a connection given back: nothing but end a transaction left open (asyncpg's
    default reset costs a round trip on every statement the pool runs)."""
    if conn.is_in_transaction():
        await conn.execute("ROLLBACK")


def _number(text: str) -> int | Decimal:
    value = Decimal(text)
    return int(value) if value == value.to_integral_value() else value


def _rowcount(status: str) -> int:
    """The rows a statement changed, from its status ('INSERT 0 1', 'UPDATE 3', 'DELETE 0')."""
    found = _COUNT.search(status or "")
    return int(found.group(1)) if found else 0


def _constraint(exc: asyncpg.IntegrityConstraintViolationError) -> ConstraintError:
    return ConstraintError(f"the database refused it ({type(exc).__name__}: {str(exc)[:80]})")


def _unavailable(exc: BaseException) -> StorageUnavailableError:
    """PostgreSQL's refusal as storage's error: its kind and short reason (no SQL, no values, no password)."""
    return StorageUnavailableError(f"the database refused it ({type(exc).__name__}: {str(exc)[:80]})")


async def schema_version(conn: Connection) -> int:
    """The schema's version, 0 for a schema without tables yet (the version table is created then)."""
    await conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
    version = await conn.fetchval("SELECT version FROM schema_version")
    if version is None:
        await conn.execute("INSERT INTO schema_version (version) VALUES (0)")
        return 0
    return int(version)


async def migrate(
    conn: Connection, target: int = LATEST_VERSION, migrations: tuple[Migration, ...] = MIGRATIONS
) -> int:
    """Apply the migrations after the schema's version up to target, each in its own transaction under the
    migrations' lock (several processes may start at once); returns the version reached."""
    try:
        async with conn.transaction():
            await conn.execute(_MIGRATION_LOCK)
            version = await schema_version(conn)
        refuse_newer(version, len(migrations))
        for migration in migrations[version:target]:
            async with conn.transaction():
                await conn.execute(_MIGRATION_LOCK)
                version = await schema_version(conn)
                refuse_newer(version, len(migrations))
                if version >= migration.version:
                    continue
                statements = [s for s in map(postgres_ddl, migration.statements()) if s is not None]
                try:
                    await conn.execute(";\n".join(statements))  # one round trip
                except asyncpg.PostgresError as exc:
                    raise MigrationError(f"migration {migration.name} failed: {exc}") from exc
                await conn.execute("UPDATE schema_version SET version = $1", migration.version)
        async with conn.transaction():
            return await schema_version(conn)
    except FAILURES as exc:
        raise _unavailable(exc) from exc
