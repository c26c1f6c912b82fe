"""Where each person sits, for workers sharing PostgreSQL (bot.cluster): one table a person, enforced by the
database rather than by one worker's memory (a person's two groups may be two workers' tables).

    other = await db.seated.claim(user_id, chat_id, thread_id, shard, title)   # None: theirs now; else the other's name
    await db.seated.keep(shards, seats, before)   # the shards' owner: the rows of its tables, as they sit now

``claim`` is one statement: the person's row (``user_id`` its key) is taken, or renewed when it names this table
already; a row naming another table is left as it is and that table's name returned. Nothing else writes a row
but ``keep``, run by the owner of the shards every few seconds: it puts back the rows of everyone seated at its
tables and deletes the others of its shards older than ``before`` (a person who left, a table that ended, a lobby
lost with a worker that died); a row claimed since ``before`` stays (its Join may not have reached the table yet).
``keep`` is PostgreSQL's SQL (arrays); ``claim`` both databases'.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from storage.codec import timestamp
from storage.gateway import Gateway

Seat = tuple[int, int, int, int, str]  # user_id, chat_id, thread_id (0: none), shard, the table's name

_CLAIM = """
INSERT INTO seated (user_id, chat_id, thread_id, shard, title, claimed_at) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (user_id) DO UPDATE SET claimed_at = excluded.claimed_at, title = excluded.title
WHERE seated.chat_id = excluded.chat_id AND seated.thread_id = excluded.thread_id
"""
_PUT_BACK = """
INSERT INTO seated (user_id, chat_id, thread_id, shard, title, claimed_at)
SELECT u, c, th, s, ti, ?
FROM unnest(?::bigint[], ?::bigint[], ?::bigint[], ?::bigint[], ?::text[]) AS x(u, c, th, s, ti)
ON CONFLICT DO NOTHING
"""
_FORGET = """
DELETE FROM seated WHERE shard = ANY(?::bigint[]) AND claimed_at < ? AND NOT (user_id = ANY(?::bigint[]))
"""


def name_of(title: str, thread_id: int) -> str:
    """A table's name as a person is told it ("group · #topic"; bot.table.one_table says it so too)."""
    return title if not thread_id else f"{title} · #{thread_id}"


class Seated:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def claim(self, user_id: int, chat_id: int, thread_id: int, shard: int, title: str) -> str | None:
        """The person sits at this table from now on (None), unless they sit at another: its name."""
        for _ in range(3):  # the other row deleted between the two statements: claimed again
            now = timestamp(self._db.now())
            if await self._db.execute(_CLAIM, (user_id, chat_id, thread_id, shard, title, now)):
                return None
            rows = await self._db.fetchall("SELECT title, thread_id FROM seated WHERE user_id = ?", (user_id,))
            if rows:
                return name_of(str(rows[0]["title"]), int(rows[0]["thread_id"]))
        return None

    async def keep(self, shards: Iterable[int], seats: Sequence[Seat], before: datetime) -> None:
        """The rows of ``shards`` are ``seats`` (put back if missing); the others claimed before ``before`` go."""
        now = timestamp(self._db.now())
        if seats:
            await self._db.execute(_PUT_BACK, (now, *(list(column) for column in zip(*seats, strict=True))))
        await self._db.execute(_FORGET, (sorted(shards), timestamp(before), [seat[0] for seat in seats]))
