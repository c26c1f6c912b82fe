"""The real PostgreSQL for the tests: schemas of their own, so tests run in parallel (pytest -n 3).

    url = fresh_schema()       # postgresql://root@127.0.0.1:5432/test?search_path=t_…; skipped without a server
    drop_schema(url)
    empty_schema(url)          # every row deleted, ids from 1 again (await empty(url) in a coroutine)

Creating, migrating and dropping a schema costs about half a second; emptying one about 40 ms. So the storage
tests share one migrated schema per test process, emptied before each test (tests/storage/conftest.py), and
only tests of creating a schema (migrations, the copy command, the bot's start) take a fresh one. The tests'
connections commit without waiting for the disk (synchronous_commit=off: a crash of the server is not what
they test; every transaction is still whole).

The server is MAHJONG_TEST_POSTGRES (default: the machine's 127.0.0.1:5432, database ``test``, trust auth as
root or postgres). Without it the PostgreSQL tests are skipped, saying so (and the run's summary says the
PostgreSQL suite did not run); with CI=true they fail instead.
"""

from __future__ import annotations

import asyncio
import functools
import os
import uuid
from urllib.parse import parse_qs, urlsplit

from tests.requires import skip_or_fail

DEFAULT_SERVERS = ("postgresql://root@127.0.0.1:5432/test", "postgresql://postgres@127.0.0.1:5432/test")
SKIP_REASON = "PostgreSQL suite did not run"


async def _reachable(url: str) -> bool:
    import asyncpg

    try:
        conn = await asyncpg.connect(url, timeout=3)
    except (TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
        return False
    await conn.close()
    return True


@functools.cache
def server_url() -> str | None:
    """The test server's URL, None when none answers (checked once per process)."""
    configured = os.environ.get("MAHJONG_TEST_POSTGRES", "").strip()
    for url in (configured,) if configured else DEFAULT_SERVERS:
        try:
            if asyncio.run(_reachable(url)):
                return url
        except ImportError:
            return None
    return None


def server_or_skip() -> str:
    """The server's URL; else a skip saying so (a failure in CI)."""
    url = server_url()
    if url is not None:
        return url
    where = os.environ.get("MAHJONG_TEST_POSTGRES") or "127.0.0.1:5432 (database test)"
    reason = f"{SKIP_REASON}: no PostgreSQL at {where} (or asyncpg missing: pip install -e '.[dev]')"
    skip_or_fail(reason)


async def _run(url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def fresh_schema(*, durable: bool = False) -> str:
    """A new empty schema on the test server, as a URL whose connections use it (search_path). ``durable``: its
    commits wait for the disk, as the bot's do by default (a benchmark's figures), instead of the tests' off."""
    server = server_or_skip()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    asyncio.run(_run(server, f"CREATE SCHEMA {schema}"))
    url = f"{server}{'&' if '?' in server else '?'}search_path={schema}"
    return url if durable else f"{url}&synchronous_commit=off"


_CHILDREN_FIRST = """
WITH RECURSIVE tables AS (
    SELECT c.oid, c.relname FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname != 'schema_version'
), depth (oid, level) AS (
    SELECT oid, 0 FROM tables
    UNION ALL
    SELECT k.conrelid, d.level + 1 FROM depth d JOIN pg_constraint k ON k.confrelid = d.oid AND k.contype = 'f'
    WHERE k.conrelid != d.oid
)
SELECT t.relname FROM tables t JOIN depth d USING (oid) GROUP BY t.relname ORDER BY MAX(d.level) DESC, t.relname
"""


_EMPTYING: dict[str, str] = {}  # per schema URL: the statements that empty it (its tables do not change)


async def empty(url: str) -> None:
    """Delete every row of the schema's tables (children first) and start its ids from 1 again."""
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        if url not in _EMPTYING:
            tables = [r[0] for r in await conn.fetch(_CHILDREN_FIRST)]
            sequences = [
                r[0]
                for r in await conn.fetch(
                    "SELECT relname FROM pg_class WHERE relkind = 'S' AND relnamespace = current_schema()::regnamespace"
                )
            ]
            deletes = [f"DELETE FROM {t}" for t in tables] + [f"ALTER SEQUENCE {s} RESTART" for s in sequences]
            _EMPTYING[url] = "BEGIN; " + "; ".join(deletes) + "; COMMIT"
        await conn.execute(_EMPTYING[url])
    finally:
        await conn.close()


def empty_schema(url: str) -> None:
    """Delete every row of the schema's tables (children first) and start its ids from 1 again."""
    asyncio.run(empty(url))


def drop_schema(url: str) -> None:
    schema = parse_qs(urlsplit(url).query)["search_path"][0]
    asyncio.run(_run(url, f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
