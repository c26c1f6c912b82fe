"""Workers sharing one PostgreSQL (bot.cluster): a fresh migrated schema of the real server per test
(tests/postgres.py: skipped without one, failing in CI), and a registry of tables with nothing behind it."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from typing import cast

import pytest

from bot.config import Config
from bot.host.edge import Edge
from bot.host.registry import Tables
from storage.database import Database
from tests.requires import skip_or_fail


@pytest.fixture
async def cluster_db(postgres_url: str) -> AsyncIterator[Database]:
    db = await Database.open(postgres_url)
    yield db
    await db.close()


def empty_tables() -> Tables:
    """A registry for tests that resume nothing (no unfinished hand stored): its edge is never reached."""
    return Tables(Config(token="1:test"), cast(Edge, None))


REDIS_URL = os.environ.get("MAHJONG_TEST_REDIS", "redis://127.0.0.1:6379/15")


@pytest.fixture
async def redis_url() -> str:
    """The machine's Redis (MAHJONG_TEST_REDIS; database 15): skipped without one, failing in CI."""
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        await client.ping()
    except (redis.RedisError, OSError):
        reason = f"Redis tests did not run: no Redis at {REDIS_URL}"
        skip_or_fail(reason)
    finally:
        await client.aclose()
    return REDIS_URL
