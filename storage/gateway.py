"""What a repository needs of the database: transactions, reads, single writes and the clock.

``storage.database.Database`` is the one implementation; the repositories are typed against this protocol, so
they never import the database module that builds them. Inside a transaction they see a ``Tx``: aiosqlite's
connection in ``transaction()``, or in ``write()`` one whose statements have run by the time they are awaited.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable, Coroutine, Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol, TypeVar

from storage.codec import Clock

T = TypeVar("T")


class Cursor(Protocol):
    @property
    def lastrowid(self) -> int | None: ...

    @property
    def rowcount(self) -> int: ...


class Tx(Protocol):
    def execute(self, sql: str, parameters: Iterable[Any] = ...) -> Awaitable[Cursor]: ...

    def execute_fetchall(self, sql: str, parameters: Iterable[Any] = ...) -> Awaitable[Iterable[sqlite3.Row]]: ...

    def executemany(self, sql: str, parameters: Iterable[Iterable[Any]]) -> Awaitable[Cursor]: ...


class Gateway(Protocol):
    now: Clock

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[Tx]: ...

    async def write(self, body: Callable[[Tx], Coroutine[Any, Any, T]]) -> T: ...

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]: ...

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int: ...
