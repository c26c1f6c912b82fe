"""One table a person across workers: the database holds where each person sits (storage.seated), so a person
at a table on one worker cannot sit down at another's table on another worker (each registry knows only its own).

    Tables(config, edge, claim=claimer(db))   # the registry asks it before a person opens or joins a table
    await keep(db, tables, ownership)  # until cancelled: the owned shards' rows kept as their tables sit

A claim the database cannot take (it does not answer) lets the person sit: the table's own check still holds on
this worker, and its owner's next round puts the row back.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable
from datetime import timedelta
from typing import TYPE_CHECKING, Final

from bot.cluster.shards import shard_of
from bot.host.registry import Tables
from bot.table.key import TableKey
from bot.table.state import Table
from storage.database import Database
from storage.errors import StorageError
from storage.seated import Seat

if TYPE_CHECKING:  # asyncpg (the `workers` extra) only where workers run: claimer is made in bot.app
    from bot.cluster.ownership import Ownership

log = logging.getLogger(__name__)

KEEP_S: Final = 2.0  # the owned shards' rows brought in step this often
FRESH: Final = timedelta(seconds=10)  # a row claimed this recently stays (its Join may not have reached the table)


def claimer(db: Database) -> Callable[[int, TableKey, str], Awaitable[str | None]]:
    async def claim(user_id: int, key: TableKey, title: str) -> str | None:
        try:
            return await db.seated.claim(user_id, key.chat_id, key.thread_id or 0, shard_of(key), title)
        except StorageError as e:
            log.warning("one table a person: not asked of the database (%s)", e)
            return None

    return claim


def seats_of(tables: Iterable[Table], shards: frozenset[int]) -> list[Seat]:
    """Everyone seated at these tables of the shards (automatic players sit nowhere)."""
    return [
        (seat.user_id, table.key.chat_id, table.key.thread_id or 0, shard_of(table.key), table.title)
        for table in tables
        if shard_of(table.key) in shards
        for seat in table.seats
        if seat is not None and seat.user_id is not None
    ]


async def keep(db: Database, tables: Tables, ownership: Ownership) -> None:
    while True:
        await asyncio.sleep(KEEP_S)
        owned = ownership.owned
        try:
            await db.seated.keep(owned, seats_of(tables.all(), owned), db.now() - FRESH)
        except StorageError as e:
            log.warning("one table a person: the rows not kept (%s); trying again", e)
        except Exception:
            log.exception("one table a person: keeping the rows failed; trying again")
