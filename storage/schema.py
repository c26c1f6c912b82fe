"""Migrations: ordered SQL files storage/migrations/NNNN_name.sql, tracked by PRAGMA user_version.

Version N means files 0001…N are applied. Each file is applied in its own transaction together with the
version bump, so a crash leaves the database at the version before that file or after it, never between.
A database newer than this code (user_version above the last file) is refused with SchemaTooNewError.

The same files are PostgreSQL's history too (storage.postgres.migrate, through storage.dialect.postgres_ddl):
write a new one in SQLite's words that the dialect translates, and mark ``-- sqlite only`` a statement that
only rewrites rows SQLite databases held before; tests/storage/test_migrations.py checks that both databases
end with the same tables and columns.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from importlib import resources

import aiosqlite

from storage.errors import MigrationError, SchemaTooNewError

_FILE_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    def statements(self) -> list[str]:
        """The file split into complete statements (sqlite3 decides where one ends, so ';' in text is safe)."""
        out: list[str] = []
        pending = ""
        for line in self.sql.splitlines(keepends=True):
            pending += line
            if sqlite3.complete_statement(pending):
                out.append(pending.strip())
                pending = ""
        leftover = [ln for ln in pending.splitlines() if ln.strip() and not ln.strip().startswith("--")]
        if leftover:
            raise MigrationError(f"{self.name}: the last statement has no closing ';'")
        return out


def load_migrations(names_and_sql: list[tuple[str, str]]) -> tuple[Migration, ...]:
    """Migrations numbered 1…N without gaps; anything else is a packaging mistake worth stopping for."""
    migrations = []
    for name, sql in sorted(names_and_sql):
        match = _FILE_NAME.match(name)
        if match is None:
            raise MigrationError(f"migration file {name!r} is not named NNNN_name.sql")
        migrations.append(Migration(int(match.group(1)), name, sql))
    for expected, migration in enumerate(migrations, start=1):
        if migration.version != expected:
            raise MigrationError(f"migration {migration.name} should be number {expected:04d}")
    return tuple(migrations)


def _packaged_files() -> list[tuple[str, str]]:
    folder = resources.files("storage.migrations")
    return [(f.name, f.read_text(encoding="utf-8")) for f in folder.iterdir() if f.name.endswith(".sql")]


MIGRATIONS = load_migrations(_packaged_files())
LATEST_VERSION = len(MIGRATIONS)


async def schema_version(conn: aiosqlite.Connection) -> int:
    rows = list(await conn.execute_fetchall("PRAGMA user_version"))
    return int(rows[0][0])


def refuse_newer(version: int, latest: int) -> None:
    if version > latest:
        raise SchemaTooNewError(
            f"the database is at schema version {version} but this code knows only up to {latest}: "
            "it was written by a newer version of the bot; run that version or restore a backup"
        )


async def migrate(
    conn: aiosqlite.Connection,
    target: int = LATEST_VERSION,
    migrations: tuple[Migration, ...] = MIGRATIONS,
) -> int:
    """Apply the migrations after the database's version up to target; returns the version reached.

    conn must be in autocommit mode (isolation_level=None). Safe when several processes open one file
    at once: each step re-reads the version inside its write transaction.
    """
    refuse_newer(await schema_version(conn), len(migrations))
    for migration in migrations[:target]:
        await conn.execute("BEGIN IMMEDIATE")
        try:
            version = await schema_version(conn)
            refuse_newer(version, len(migrations))
            if version < migration.version:
                for statement in migration.statements():
                    await conn.execute(statement)
                # PRAGMA takes no parameters; the version is an int we produced.
                await conn.execute(f"PRAGMA user_version = {migration.version:d}")
            await conn.execute("COMMIT")
        except sqlite3.Error as exc:
            await conn.execute("ROLLBACK")
            raise MigrationError(f"migration {migration.name} failed: {exc}") from exc
        except BaseException:
            await conn.execute("ROLLBACK")
            raise
    return await schema_version(conn)
