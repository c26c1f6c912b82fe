"""Connection setup and migrations: from empty, from every earlier version, and refusing a newer database."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from storage import Database, MigrationError, SchemaTooNewError, StorageError
from storage.schema import LATEST_VERSION, MIGRATIONS, Migration, load_migrations, migrate
from storage.sqlite import connect


def schema_of(path: Path) -> dict[str, str]:
    """Every table, index and column definition, as SQLite reports them (comparable across routes)."""
    with sqlite3.connect(path) as conn:
        objects = {
            f"{kind} {name}": sql
            for kind, name, sql in conn.execute(
                "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"
            )
        }
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            cols = conn.execute(f"PRAGMA table_info({table})").fetchall()
            objects[f"columns {table}"] = repr([c[1:] for c in cols])
        return objects


async def at_version(path: Path, version: int) -> None:
    conn = await connect(path)
    try:
        assert await migrate(conn, target=version) == version
    finally:
        await conn.close()


def test_there_are_several_ordered_migrations() -> None:
    assert LATEST_VERSION >= 2
    assert [m.version for m in MIGRATIONS] == list(range(1, LATEST_VERSION + 1))


async def test_open_empty_file_reaches_latest_with_pragmas(db_path: Path) -> None:
    db = await Database.open(db_path)
    try:
        conn = db.backend._conn  # type: ignore[attr-defined]
        assert (await conn.execute_fetchall("PRAGMA user_version"))[0][0] == LATEST_VERSION
        assert (await conn.execute_fetchall("PRAGMA journal_mode"))[0][0] == "wal"
        assert (await conn.execute_fetchall("PRAGMA foreign_keys"))[0][0] == 1
        assert (await conn.execute_fetchall("PRAGMA synchronous"))[0][0] == 1  # NORMAL
        assert (await conn.execute_fetchall("PRAGMA busy_timeout"))[0][0] >= 1000
    finally:
        await db.close()


@pytest.mark.parametrize("start", range(LATEST_VERSION))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh, old = tmp_path / "fresh.sqlite3", tmp_path / "old.sqlite3"
    await (await Database.open(fresh)).close()
    await at_version(old, start)
    if start >= 1:  # data written at the old version survives the upgrade
        with sqlite3.connect(old) as conn:
            conn.execute(
                "INSERT INTO players (id, display_name, language, skill, title, hands, wins, biggest_win, created_at)"
                " VALUES (7, 'Old Timer', 'en', 2500, '本科生', 3, 1, 100, '2026-01-01T00:00:00.000+00:00')"
            )
    db = await Database.open(old)
    try:
        if start >= 1:
            player = await db.players.require(7)
            assert (player.display_name, player.skill, player.hands) == ("Old Timer", 2500, 3)
    finally:
        await db.close()
    assert schema_of(old) == schema_of(fresh)


async def test_reopening_at_latest_changes_nothing(db_path: Path) -> None:
    await (await Database.open(db_path)).close()
    before = schema_of(db_path)
    await (await Database.open(db_path)).close()
    assert schema_of(db_path) == before


async def test_newer_database_is_refused_with_a_clear_message(db_path: Path) -> None:
    await (await Database.open(db_path)).close()
    with sqlite3.connect(db_path) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    with pytest.raises(SchemaTooNewError, match=rf"version {LATEST_VERSION + 1}.*only up to {LATEST_VERSION}"):
        await Database.open(db_path)
    with sqlite3.connect(db_path) as conn:  # and left untouched
        assert conn.execute("PRAGMA user_version").fetchone()[0] == LATEST_VERSION + 1


async def test_a_failing_migration_leaves_the_previous_version(db_path: Path) -> None:
    broken = (
        *MIGRATIONS[:1],
        Migration(2, "0002_broken.sql", "CREATE TABLE half_done (x INTEGER);\nINSERT INTO nowhere VALUES (1);\n"),
    )
    conn = await connect(db_path)
    try:
        with pytest.raises(MigrationError, match=r"0002_broken\.sql failed.*nowhere"):
            await migrate(conn, migrations=broken)
        assert (await conn.execute_fetchall("PRAGMA user_version"))[0][0] == 1
        tables = {r[0] for r in await conn.execute_fetchall("SELECT name FROM sqlite_master")}
        assert "half_done" not in tables and "players" in tables
    finally:
        await conn.close()


def test_migration_files_must_be_numbered_without_gaps() -> None:
    with pytest.raises(MigrationError, match="should be number 0002"):
        load_migrations([("0001_a.sql", "SELECT 1;"), ("0003_c.sql", "SELECT 1;")])
    with pytest.raises(MigrationError, match=r"not named NNNN_name\.sql"):
        load_migrations([("1_a.sql", "SELECT 1;")])


def test_statements_split_where_sqlite_says() -> None:
    migration = Migration(
        1, "0001_x.sql", "-- head\nCREATE TABLE t (a TEXT DEFAULT 'x;y');\nINSERT INTO t VALUES (';');\n"
    )
    assert len(migration.statements()) == 2
    with pytest.raises(MigrationError, match="no closing"):
        Migration(1, "0001_x.sql", "CREATE TABLE t (a)\n").statements()


async def test_memory_databases_are_refused() -> None:
    with pytest.raises(StorageError, match="file path"):
        await Database.open(":memory:")


async def test_two_connections_migrating_one_file_at_once(db_path: Path) -> None:
    conns = [await connect(db_path) for _ in range(3)]
    try:
        versions = await asyncio.gather(*(migrate(c) for c in conns))
        assert versions == [LATEST_VERSION] * 3
    finally:
        for c in conns:
            await c.close()


async def test_postgresql_gets_the_same_schema_from_the_same_history(postgres_url: str, tmp_path: Path) -> None:
    import asyncpg

    # Two processes starting at once: one migrates, the other finds it done.
    first, second = await asyncio.gather(Database.open(postgres_url), Database.open(postgres_url))
    await second.close()
    async with await Database.open(tmp_path / "db.sqlite3") as lite:
        assert await first.tables() == await lite.tables()
        for table in await lite.tables():
            wanted = [tuple(r)[:1] for r in await lite.fetchall(f"SELECT name FROM pragma_table_info('{table}')")]
            found = await first.fetchall(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
                " AND table_name = ? ORDER BY ordinal_position",
                (table,),
            )
            assert [tuple(r) for r in found] == wanted, table
    await first.close()
    conn = await asyncpg.connect(postgres_url)
    try:
        assert await conn.fetchval("SELECT version FROM schema_version") == LATEST_VERSION
        await conn.execute("UPDATE schema_version SET version = $1", LATEST_VERSION + 1)
    finally:
        await conn.close()
    with pytest.raises(SchemaTooNewError, match=rf"version {LATEST_VERSION + 1}.*only up to {LATEST_VERSION}"):
        await Database.open(postgres_url)
