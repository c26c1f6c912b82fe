"""What a repository needs of the database: transactions, reads, single writes and the clock.

``storage.database.Database`` is the one implementation; the repositories are typed against this protocol, so
they never import the database module that builds them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from contextlib import AbstractAsyncContextManager
from typing import Any, Protocol

import aiosqlite

from storage.codec import Clock


class Gateway(Protocol):
    now: Clock

    def transaction(self, write: bool = True) -> AbstractAsyncContextManager[aiosqlite.Connection]: ...

    async def fetchall(self, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]: ...

    async def execute(self, sql: str, params: Iterable[Any] = ()) -> int: ...
