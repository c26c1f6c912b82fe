"""What a repository needs of the database: transactions, reads, single writes and the clock.

``storage.database.Database`` is the one implementation, over a ``Backend``: ``storage.sqlite`` or
``storage.postgres``. The repositories are typed against this protocol, so they never import the database
modules that build them.
Inside a transaction they see a ``Tx``: in ``transaction()`` statements run as they are awaited; in ``write()``
on SQLite each has already run by the time it is awaited.

The repositories write one SQL text per query, in the dialect both backends speak (storage.dialect turns its
``?`` placeholders into PostgreSQL's ``$n``): ``GREATEST`` for the larger of two values, ``RETURNING id`` for
a new row's id, ``ON CONFLICT`` instead of ``INSERT OR …``, ``lower(x)`` for case-blind comparison.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Awaitable, Callable, Coroutine, Iterable, Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from storage.codec import Clock
from storage.errors import ConstraintError

T = TypeVar("T")
Trace = Callable[[str], object]  # given each statement's SQL before it runs (Database.open's trace)

# A statement refused by a UNIQUE, CHECK or foreign key constraint, as either backend raises it inside a
# transaction. On PostgreSQL the transaction cannot go on after it: catch it only to raise another error.
CONSTRAINT_ERRORS: tuple[type[Exception], ...] = (sqlite3.IntegrityError, ConstraintError)


async def to_its_end(work: Awaitable[T]) -> T:
    """``work`` run to its end even when its caller is cancelled: a cancelled caller waits for that end (a write
    transaction, once started, is wholly stored or not at all, and the caller knows which when it returns)."""
    done = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(done)
    except asyncio.CancelledError:
        await asyncio.wait([done])
        raise


class Row(Protocol):
    """A result row, by column name or position: sqlite3.Row or asyncpg.Record."""

    def __getitem__(self, key: Any, /) -> Any: ...

    def keys(self) -> Any: ...

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...


class Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...


class Tx(Protocol):
    def execute(self, sql: str, parameters: Iterable[Any] = ...) -> Awaitable[Cursor]: ...

    def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ...) -> Awaitable[Iterable[Row]]: ...

    def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> Awaitable[Cursor]: ...


class Backend(Protocol):
    """What a database backend (storage.sqlite, storage.postgres) gives storage.database.Database."""

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[Tx]: ...

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T: ...

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int: ...

    async def tables(self) -> list[str]: ...

    async def backup(self, dest: str | Path) -> Path: ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class Fence:
    """What a worker's writes for one shard's tables carry (storage.fencing): the shard, the epoch it took it at."""

    shard: int
    epoch: int


class Gateway(Protocol):
    now: Clock
    fence: Fence | None  # a worker's fenced view (Database.fenced): the fence its every write checks

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[Tx]: ...

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T: ...

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[Row]: ...

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int: ...
