"""Copy an operator's SQLite database into PostgreSQL, every table and row, and check the copy.

    python -m storage.copy_to_postgres data/mahjong.sqlite3 postgresql://bot@db.example/mahjong

The SQLite file is first brought to the latest schema (as starting the bot would) and PostgreSQL is given the
same schema; the copy then reads one snapshot of the file (a bot still writing to it does not tear the copy,
though what it writes afterwards is not copied: stop the bot first) and writes every table in one PostgreSQL
transaction with COPY, so a failed copy leaves the target as empty as it was. The target must hold no rows.

Then it checks what PostgreSQL holds: the same number of rows in every table as the snapshot, every hand's
action log replaying from its seed (each action legal, and a hand played to its end won by the stored
winner), and every settled hand's payments summing to zero. It prints each table's count and exits 0, or
says what differs and exits 1.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import asyncpg

from game.actions import Action
from game.table import Hand
from storage.codec import load_rules
from storage.database import Database
from storage.dialect import is_postgres
from storage.errors import StorageError

BATCH_ROWS = 5_000


@dataclass(frozen=True)
class CopyReport:
    rows: dict[str, int]  # per table, in the order copied: as many in PostgreSQL as in the snapshot
    hands_replayed: int


async def copy_to_postgres(source: Path, target: str) -> CopyReport:
    """Copy the SQLite database at source into the empty PostgreSQL database at target, then check it;
    StorageError says what went wrong or what differs."""
    if not source.is_file():
        raise StorageError(f"no SQLite database at {source}")
    if not is_postgres(target):
        raise StorageError("the target must be a postgresql:// URL")
    for where in (str(source), target):  # both at the latest schema, as the bot opens them
        await (await Database.open(where)).close()
    conn = await asyncpg.connect(target)
    try:
        with contextlib.closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src:
            src.execute("BEGIN")  # one snapshot for the copy and its counts
            tables = _tables_in_order(src)
            expected = {t: src.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in tables}
            columns = await _target_columns(conn, tables)
            async with conn.transaction():
                await _refuse_rows(conn, tables)
                for table in tables:
                    await _copy_table(src, conn, table, columns[table])
                await _reset_identities(conn, tables)
        found = {t: int(await conn.fetchval(f"SELECT COUNT(*) FROM {t}")) for t in tables}
        differ = [f"{t}: {expected[t]} in SQLite, {found[t]} in PostgreSQL" for t in tables if found[t] != expected[t]]
        if differ:
            raise StorageError("the copy differs: " + "; ".join(differ))
        return CopyReport(found, await check_hands(conn))
    finally:
        await conn.close()


def _tables_in_order(src: sqlite3.Connection) -> list[str]:
    """Every table, each after the tables its foreign keys refer to."""
    names = [
        r[0] for r in src.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    ]
    refers = {t: {r[2] for r in src.execute(f"PRAGMA foreign_key_list({t})")} - {t} for t in names}
    ordered: list[str] = []
    while len(ordered) < len(names):
        ready = sorted(t for t in names if t not in ordered and refers[t] <= set(ordered))
        if not ready:
            raise StorageError("the tables' foreign keys go round in a circle")
        ordered += ready
    return ordered


async def _target_columns(conn: asyncpg.Connection, tables: Sequence[str]) -> dict[str, dict[str, str]]:
    """Per table, its columns in PostgreSQL and their types ('bigint', 'text')."""
    rows = await conn.fetch(
        """SELECT table_name, column_name, data_type FROM information_schema.columns
           WHERE table_schema = current_schema()"""
    )
    columns: dict[str, dict[str, str]] = {}
    for r in rows:
        columns.setdefault(r["table_name"], {})[r["column_name"]] = r["data_type"]
    missing = [t for t in tables if t not in columns]
    if missing:
        raise StorageError(f"PostgreSQL has no table {', '.join(missing)}")
    return columns


async def _refuse_rows(conn: asyncpg.Connection, tables: Sequence[str]) -> None:
    full = [t for t in tables if await conn.fetchval(f"SELECT EXISTS (SELECT 1 FROM {t})")]
    if full:
        raise StorageError(f"the PostgreSQL database already holds rows (in {', '.join(full)}): copy into an empty one")


async def _copy_table(src: sqlite3.Connection, conn: asyncpg.Connection, table: str, types: dict[str, str]) -> None:
    names = [r[1] for r in src.execute(f"PRAGMA table_info({table})")]
    if set(names) != set(types):
        raise StorageError(f"{table} has other columns in SQLite ({', '.join(names)}) than in PostgreSQL")
    convert: list[Callable[[Any], Any]] = [_CONVERT.get(types[n], _as_text) for n in names]
    cursor = src.execute(f"SELECT {', '.join(names)} FROM {table}")

    def records() -> Iterator[tuple[Any, ...]]:
        while batch := cursor.fetchmany(BATCH_ROWS):
            for row in batch:
                yield tuple(c(v) for c, v in zip(convert, row, strict=True))

    await conn.copy_records_to_table(table, records=records(), columns=names)


def _as_bigint(value: Any) -> int | None:
    """SQLite keeps what it is given: a number stored as text (never by this bot, but by hand) is still one."""
    return None if value is None else int(value)


def _as_text(value: Any) -> str | None:
    return None if value is None else str(value)


def _as_double(value: Any) -> float | None:
    return None if value is None else float(value)


_CONVERT: Final[dict[str, Callable[[Any], Any]]] = {"bigint": _as_bigint, "double precision": _as_double}


async def _reset_identities(conn: asyncpg.Connection, tables: Sequence[str]) -> None:
    """New rows get ids after the copied ones."""
    for table in tables:
        sequence = await conn.fetchval(
            """SELECT pg_get_serial_sequence($1, 'id') FROM information_schema.columns
               WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'id'""",
            table,
        )
        if sequence is not None:
            await conn.execute(f"SELECT setval($1, GREATEST((SELECT MAX(id) FROM {table}), 0) + 1, false)", sequence)


async def check_hands(conn: asyncpg.Connection) -> int:
    """Replay every stored hand from its seed and check every settlement is zero-sum; how many hands replayed.
    StorageError lists the hands that do not (the first few)."""
    problems: list[str] = []
    unbalanced = await conn.fetch("SELECT hand_id FROM settlements GROUP BY hand_id HAVING SUM(points) != 0")
    problems += [f"hand {r['hand_id']}: its payments do not sum to zero" for r in unbalanced]
    actions_of = await conn.prepare("SELECT action FROM actions WHERE hand_id = $1 ORDER BY seq")
    hands = await conn.fetch("SELECT id, seed, dealer, rules, status, winner FROM hands ORDER BY id")
    for row in hands:
        actions = [json.loads(r["action"]) for r in await actions_of.fetch(row["id"])]
        problem = replay_problem(row, actions)
        if problem is not None:
            problems.append(f"hand {row['id']}: {problem}")
    if problems:
        raise StorageError(f"{len(problems)} problems: " + "; ".join(problems[:5]))
    return len(hands)


def replay_problem(row: Any, actions: Sequence[Any]) -> str | None:
    """Why this stored hand does not replay (None: it does): an action its seed makes illegal, or a hand
    played to its end whose stored winner is not the replay's."""
    try:
        hand = Hand(load_rules(row["rules"], f"hand {row['id']}"), row["seed"], row["dealer"])
        for n, action in enumerate(actions):
            try:
                hand.apply(Action.from_json(action))
            except (ValueError, KeyError, TypeError) as exc:
                return f"action #{n} does not replay ({exc})"
    except StorageError as exc:
        return str(exc)
    if row["status"] == "done" and hand.finished:
        winner = hand.result.winner if hand.result is not None else None
        if winner != row["winner"]:
            return f"stored winner {row['winner']}, but the replay's is {winner}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m storage.copy_to_postgres", description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path, help="the bot's SQLite database file")
    parser.add_argument("target", help="postgresql://user@host/database (empty; its schema is created)")
    args = parser.parse_args(argv)
    try:
        report = asyncio.run(copy_to_postgres(args.source, args.target))
    except (StorageError, sqlite3.Error, asyncpg.PostgresError, OSError) as exc:
        print(f"copy failed: {exc}", file=sys.stderr)
        return 1
    for table, count in report.rows.items():
        print(f"{table:<16} {count:>10} rows")
    print(f"copied {sum(report.rows.values())} rows of {len(report.rows)} tables; {report.hands_replayed} hands replay")
    return 0


if __name__ == "__main__":
    sys.exit(main())
