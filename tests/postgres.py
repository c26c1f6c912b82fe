"""The real PostgreSQL for the tests: a fresh schema per test, so tests run in parallel (pytest -n 3).

    url = fresh_schema()       # postgresql://root@127.0.0.1:5432/test?search_path=t_…; skipped without a server
    drop_schema(url)

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

import pytest

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
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)


async def _run(url: str, sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(url, timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


def fresh_schema() -> str:
    """A new empty schema on the test server, as a URL whose connections use it (search_path)."""
    server = server_or_skip()
    schema = f"t_{uuid.uuid4().hex[:16]}"
    asyncio.run(_run(server, f"CREATE SCHEMA {schema}"))
    return f"{server}{'&' if '?' in server else '?'}search_path={schema}"


def drop_schema(url: str) -> None:
    schema = parse_qs(urlsplit(url).query)["search_path"][0]
    asyncio.run(_run(url, f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
