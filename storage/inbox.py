"""The update inbox that workers share (bot.cluster; PostgreSQL only: its SQL is PostgreSQL's).

    stored = await db.inbox.store([(update_id, shard, body_json), ...])  # committed; the owners are woken
    await db.inbox.store([...], wake=False)               # left to the owners' next look (POLL_S)
    rows = await db.inbox.waiting([3, 17], limit=100)     # a worker's shards' undone updates, oldest first
    rows = await db.inbox.claim_unowned(limit=20)         # updates of no table, taken up by this worker alone
    await db.inbox.done(update_id)

``store`` is one statement: the new updates inserted (an update_id stored before is left as it is: Telegram
sending one again stores it once) and a NOTIFY on ``CHANNEL`` + the schema, delivered when it commits, whose
payload names the shards (``-`` for no table). An update of no table is claimed with FOR UPDATE SKIP LOCKED,
so two workers never take the same; a claim older than ``CLAIM_S`` (its worker died) may be taken again.
Handling an update twice is still prevented by its handled mark (storage.handled_updates, bot.updates.once).
A live page's press, which its owner is handed straight (bot.cluster.live_relay), is stored without waking them:
the inbox is its fallback, and a round of every worker's consumer for each press only repeats the direct route.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Final

from storage.codec import timestamp
from storage.gateway import Gateway

CHANNEL: Final = "mahjong_inbox"  # + "_" + the schema: one database's workers only
CLAIM_S: Final = 30.0
KEEP: Final = timedelta(days=2)
PRUNE_EVERY: Final = 1000  # updates marked done between two clean-ups of the rows older than KEEP

_STORED = """
WITH stored AS (
    INSERT INTO inbox (update_id, shard, received_at, body)
    SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[], ?::text[])
    ON CONFLICT DO NOTHING
    RETURNING shard
)
"""
_STORE = (
    _STORED + "SELECT count(*) AS n, "
    "pg_notify(? || current_schema(), coalesce(string_agg(DISTINCT coalesce(shard::text, '-'), ','), '')) FROM stored"
)
_STORE_QUIETLY = _STORED + "SELECT count(*) AS n FROM stored"
# Updates marked done (their body dropped: nobody reads it again); where their two values come from is the
# caller's (storage.group_append marks a press's update in the statement that stores its action).
DONE = "UPDATE inbox SET done_at = {at}, body = '' WHERE done_at IS NULL AND update_id {which}"
_DONE = DONE.format(at="?", which="= ?")
_CLAIM = """
UPDATE inbox SET claimed_at = ?1 WHERE update_id IN (
    SELECT update_id FROM inbox
    WHERE shard IS NULL AND done_at IS NULL AND (claimed_at IS NULL OR claimed_at < ?2)
    ORDER BY update_id LIMIT ?3 FOR UPDATE SKIP LOCKED
)
RETURNING update_id, shard, body
"""


@dataclass(frozen=True)
class Waiting:
    update_id: int
    shard: int | None
    body: str  # the update as JSON


class Inbox:
    def __init__(self, db: Gateway) -> None:
        self._db = db
        self._done = 0

    async def store(self, updates: Sequence[tuple[int, int | None, str]], wake: bool = True) -> int:
        """Store (update_id, shard, body) for each update, committed when this returns; how many were new.
        ``wake``: the owners told at once (else they meet them in their next look)."""
        if not updates:
            return 0
        now = timestamp(self._db.now())
        ids, shards, bodies = zip(*updates, strict=True)
        values = (list(ids), list(shards), [now] * len(ids), list(bodies))
        sql, params = (_STORE, (*values, f"{CHANNEL}_")) if wake else (_STORE_QUIETLY, values)
        rows = await self._db.fetchall(sql, params)
        return int(rows[0]["n"])

    async def waiting(self, shards: Sequence[int], limit: int) -> list[Waiting]:
        """The undone updates of these shards, in update_id order."""
        rows = await self._db.fetchall(
            """SELECT update_id, shard, body FROM inbox WHERE done_at IS NULL AND shard = ANY(?::bigint[])
               ORDER BY update_id LIMIT ?""",
            (list(shards), limit),
        )
        return [Waiting(r["update_id"], r["shard"], r["body"]) for r in rows]

    async def claim_unowned(self, limit: int) -> list[Waiting]:
        """Undone updates of no table, claimed by this worker (no other takes them for CLAIM_S)."""
        now = self._db.now()
        stale = timestamp(now - timedelta(seconds=CLAIM_S))
        rows = await self._db.fetchall(_CLAIM, (timestamp(now), stale, limit))
        return sorted((Waiting(r["update_id"], r["shard"], r["body"]) for r in rows), key=lambda w: w.update_id)

    async def done(self, update_id: int) -> None:
        """The update was handled: marked done, its body emptied."""
        now = self._db.now()
        if self._done % PRUNE_EVERY == 0:
            await self._db.execute("DELETE FROM inbox WHERE done_at < ?", (timestamp(now - KEEP),))
        self._done += 1
        await self._db.execute(_DONE, (timestamp(now), update_id))
