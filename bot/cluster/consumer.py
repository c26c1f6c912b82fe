"""Each worker handles the inbox's updates (storage.inbox) of the shards it owns, each shard's in update_id
order, through the application's own handlers (``Application.process_update``), and marks each done; updates of
no table go to whichever worker claims them first. Woken by the inbox's NOTIFY, and looking every ``POLL_S``
anyway (a notification lost with a connection).

    consumer = Consumer(application, db, ownership, wake)   # wake: set by the coordinator's LISTEN
    await consumer.run()

A press from a live page on another worker (bot.cluster.live_relay: a body ``{"live_press": …}``, its id below
zero) goes to ``pressed`` instead, in its shard's order like the rest; it is stored without a NOTIFY (its owner
had it straight through Redis), so this worker meets it in its next look and ``pressed`` answers at once when it
was taken already.

A shard's updates are handled one at a time, by one task per shard (a slow one holds only its shard); each
while the shard cannot be given up (``Ownership.handling``): a shard given up stops its task before the next
update, which waits in the inbox for the shard's new owner. An update that fails is logged and marked done
(it must not hold its shard for ever). One a worker died handling is handled again by the shard's next owner:
a play press whose action was stored was marked done with it (so it is not met again), any other is stopped
by its handled mark (bot.updates.once).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from typing import Any, Final

from telegram import Update
from telegram.ext import Application

from bot.cluster.ownership import Ownership
from bot.waits import set_or_timeout
from storage.database import Database
from storage.errors import StorageError
from storage.inbox import Waiting

log = logging.getLogger(__name__)

POLL_S: Final = 1.0
BATCH: Final = 200
UNOWNED: Final = -1  # the task of the updates of no table
PAGE_PRESS: Final = "live_press"  # an inbox body {"live_press": {...}}: a live page's press, not a Telegram update

Pressed = Callable[[int, dict[str, Any]], Awaitable[None]]


class Consumer:
    def __init__(
        self,
        application: Application[Any, Any, Any, Any, Any, Any],
        db: Database,
        ownership: Ownership,
        wake: asyncio.Event,
        pressed: Pressed | None = None,
    ) -> None:
        self.application, self.db, self.ownership, self.wake = application, db, ownership, wake
        self.pressed = pressed  # a live page's press (bot.cluster.live_relay.Relay.pressed)
        self._tasks: dict[int, asyncio.Task[None]] = {}
        self.handled = 0

    async def run(self) -> None:
        try:
            while True:
                await set_or_timeout(self.wake, POLL_S)
                self.wake.clear()
                try:
                    await self.round()
                except StorageError as e:
                    log.warning("the inbox cannot be read (%s); trying again", e)
                except Exception:  # whatever it is, the owned shards' updates must go on being handled
                    log.exception("the inbox's round failed; trying again")
        finally:
            for task in self._tasks.values():
                task.cancel()

    async def round(self) -> None:
        """Start a task for each shard (and for the updates of no table) with updates waiting and none running."""
        busy = {shard for shard, task in self._tasks.items() if not task.done()}
        free = sorted(self.ownership.owned - busy)
        by_shard: dict[int, list[Waiting]] = defaultdict(list)
        for row in await self.db.inbox.waiting(free, BATCH) if free else []:
            by_shard[row.shard if row.shard is not None else UNOWNED].append(row)
        if UNOWNED not in busy:
            by_shard[UNOWNED] = await self.db.inbox.claim_unowned(BATCH)
        for shard, rows in by_shard.items():
            if rows:
                self._tasks[shard] = asyncio.create_task(self._shard(shard, rows), name=f"inbox shard {shard}")

    async def _shard(self, shard: int, rows: list[Waiting]) -> None:
        try:
            if shard == UNOWNED:  # nothing orders them: each its own, together
                await asyncio.gather(*(self._handle(row) for row in rows))
                return
            for row in rows:
                async with self.ownership.handling(shard) as owned:
                    if not owned:
                        return
                    await self._handle(row)
        finally:
            self.wake.set()  # more may be waiting

    async def _handle(self, row: Waiting) -> None:
        try:
            if row.body.startswith(f'{{"{PAGE_PRESS}"'):
                if self.pressed is not None:
                    await self.pressed(row.update_id, json.loads(row.body)[PAGE_PRESS])
            else:
                update = Update.de_json(json.loads(row.body), self.application.bot)
                await self.application.process_update(update)
        except Exception:
            log.exception("update %s could not be handled; marked done", row.update_id)
        self.handled += 1
        # A table's update is marked done under its shard's fence: a worker that lost the shard meanwhile leaves
        # it to the new owner (a press whose action went in was marked done with it already).
        db = self.db if row.shard is None else self.db.fenced(self.ownership.fences.of(row.shard))
        try:
            await db.inbox.done(row.update_id)
        except StorageError as e:  # handled again later (by the shard's owner), where its handled mark stops it
            log.warning("update %s not marked done (%s)", row.update_id, e)
