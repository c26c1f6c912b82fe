"""A worker's appends of many tables in one statement: one commit, one wait for the disk, one pooled connection.

Every action a worker's table stores is a fenced append (storage.hands): stored only while the worker holds the
table's shard, the press's inbox update marked done with it. One statement each, they were one commit each: with
200 tables on two workers (bench/workers.py's live phase) each worker's eight pooled connections were all waiting
for the server's WAL (``LWLock:WALWrite``) and an append waited p95 0.5-1.1 s for a connection, for 56-87 ms of
its own (issue 41). Here the appends asked while one batch is on its way wait for it and go together in the next
statement: each row is checked on its own (its shard's fence, its hand's next number, its hand still playing),
and each caller hears its own row's outcome only once the statement that stored it has committed, so a table's
effects still follow its own action's commit ("nothing lost"). A hand appends one action at a time (its table
awaits each), so a batch holds one row a hand; another of the same hand waits for the next batch.

    appends = GroupAppends(db)
    owned, stored = await appends.append(hand_id, seq, text, fence, done)
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

from storage.codec import timestamp
from storage.gateway import Fence, Gateway
from storage.inbox import DONE

MAX_ROWS: Final = 256  # rows in one statement

# The inbox updates of the presses whose actions were stored (their inbox rows marked done with them).
_STORED_PRESSES = """IN (
    SELECT r.done FROM req r JOIN stored s ON s.hand_id = r.hand_id AND s.seq = r.seq WHERE r.done IS NOT NULL)"""
_GROUP_APPEND = f"""
WITH req AS (
  SELECT * FROM unnest(CAST(?1 AS BIGINT[]), CAST(?2 AS BIGINT[]), CAST(?3 AS TEXT[]), CAST(?4 AS BIGINT[]),
                       CAST(?5 AS BIGINT[]), CAST(?6 AS BIGINT[])) AS r(hand_id, seq, action, shard, epoch, done)
),
owner AS (
  SELECT o.shard, o.epoch FROM shard_owners o WHERE (o.shard, o.epoch) IN (SELECT shard, epoch FROM req) FOR SHARE
),
stored AS (
  INSERT INTO actions (hand_id, seq, action)
  SELECT r.hand_id, r.seq, r.action FROM req r
  JOIN owner o ON o.shard = r.shard AND o.epoch = r.epoch
  JOIN hands h ON h.id = r.hand_id AND h.status = 'playing'
  WHERE r.seq = 1 + COALESCE((SELECT MAX(a.seq) FROM actions a WHERE a.hand_id = r.hand_id), -1)
  ON CONFLICT DO NOTHING
  RETURNING hand_id, seq
),
done AS ({DONE.format(at="?7", which=_STORED_PRESSES)})
SELECT r.hand_id, r.seq,
  EXISTS (SELECT 1 FROM owner o WHERE o.shard = r.shard AND o.epoch = r.epoch) AS owned,
  EXISTS (SELECT 1 FROM stored s WHERE s.hand_id = r.hand_id AND s.seq = r.seq) AS stored
FROM req r
"""

_Row = tuple[int, int, str, int, int, int | None]  # hand, seq, action, shard, epoch, inbox update (or None)
_Asked = tuple[_Row, "asyncio.Future[tuple[bool, bool]]"]


class GroupAppends:
    """The fenced appends of one process, a statement at a time, each carrying every append asked meanwhile."""

    def __init__(self, db: Gateway) -> None:
        self._db = db
        self._pending: list[_Asked] = []
        self._sending: asyncio.Task[None] | None = None
        self.statements = 0  # sent so far (for the tests)

    async def append(self, hand_id: int, seq: int, text: str, fence: Fence, done: int | None) -> tuple[bool, bool]:
        """(owned, stored): whether the fence held, and whether the row was stored (committed) by this append."""
        answer: asyncio.Future[tuple[bool, bool]] = asyncio.get_running_loop().create_future()
        self._pending.append(((hand_id, seq, text, fence.shard, fence.epoch, done), answer))
        if self._sending is None or self._sending.done():
            self._sending = asyncio.create_task(self._send())
        return await answer

    async def _send(self) -> None:
        while self._pending:
            batch: list[_Asked] = []
            later: list[_Asked] = []
            hands: set[int] = set()
            for row, answer in self._pending:
                if answer.done():  # its caller gave up before it was sent (its table stopped here): not stored
                    continue
                if row[0] in hands or len(batch) >= MAX_ROWS:
                    later.append((row, answer))
                else:
                    hands.add(row[0])
                    batch.append((row, answer))
            self._pending = later
            if batch:
                await self._store(batch)

    async def _store(self, batch: list[_Asked]) -> None:
        columns = [list(column) for column in zip(*(row for row, _ in batch), strict=True)]
        try:
            self.statements += 1
            rows = await self._db.fetchall(_GROUP_APPEND, (*columns, timestamp(self._db.now())))
        except BaseException as e:  # every caller hears it, as from a statement of its own
            for _, answer in batch:
                if answer.done():
                    continue
                if isinstance(e, Exception):
                    answer.set_exception(e)
                else:
                    answer.cancel()
            if not isinstance(e, Exception):
                raise
            return
        outcome = {(int(r["hand_id"]), int(r["seq"])): (bool(r["owned"]), bool(r["stored"])) for r in rows}
        for row, answer in batch:
            with contextlib.suppress(asyncio.InvalidStateError):  # cancelled meanwhile: its row is stored anyway
                answer.set_result(outcome[(row[0], row[1])])
