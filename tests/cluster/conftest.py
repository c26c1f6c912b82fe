"""Workers sharing one PostgreSQL (bot.cluster): a fresh migrated schema of the real server per test
(tests/postgres.py: skipped without one, failing in CI), and a registry of tables with nothing behind it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import cast

import pytest

from bot.config import Config
from bot.table.edge import Edge
from bot.table.registry import Tables
from storage.database import Database


@pytest.fixture
async def cluster_db(postgres_url: str) -> AsyncIterator[Database]:
    db = await Database.open(postgres_url)
    yield db
    await db.close()


def empty_tables() -> Tables:
    """A registry for tests that resume nothing (no unfinished hand stored): its edge is never reached."""
    return Tables(Config(token="1:test"), cast(Edge, None))
