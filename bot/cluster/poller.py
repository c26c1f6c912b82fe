"""The one worker that polls Telegram (whoever holds the coordinator's "poller" lock) and stores what arrives in
the inbox (storage.inbox), committed, before Telegram is told: the next getUpdates' offset confirms a batch
only after ``store`` returned. A batch stored twice (the poller died between the two) is stored once.

    poller = Poller(bot, db, ownership)      # ownership: whose coordinator connection holds the lock
    await poller.run()                        # until cancelled; idle while another worker polls
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Final

from telegram import Bot, Update
from telegram.error import TelegramError

from bot.cluster.election import Election
from bot.cluster.ownership import Ownership
from bot.cluster.shards import update_shard
from storage.database import Database
from storage.errors import StorageError

log = logging.getLogger(__name__)

POLL_TIMEOUT_S: Final = 10  # getUpdates' long poll
IDLE_S: Final = 1.0  # between two tries at the poller's lock, or after a failure


class Poller:
    def __init__(self, bot: Bot, db: Database, ownership: Ownership) -> None:
        self.bot, self.db, self.ownership = bot, db, ownership
        self._election = Election(ownership, "poller", self._taken)
        self._offset: int | None = None

    async def run(self) -> None:
        while True:
            try:
                if await self._election.lead():
                    await self.poll_once()
                    continue
            except (TelegramError, StorageError) as e:
                log.warning("polling failed (%s); trying again", type(e).__name__)
            except Exception:  # whatever it is, the worker that holds the lock must go on polling
                log.exception("polling failed; trying again")
            await asyncio.sleep(IDLE_S)

    async def _taken(self) -> None:
        """This worker polls from now on."""
        await self.bot.delete_webhook()  # as run_polling does: a webhook left set would refuse getUpdates
        log.info("this worker polls Telegram now")
        self._offset = None  # from what Telegram has not had confirmed

    async def poll_once(self) -> int:
        """One getUpdates; its updates stored (committed) before the next one confirms them. How many."""
        updates = await self.bot.get_updates(
            offset=self._offset, timeout=POLL_TIMEOUT_S, allowed_updates=Update.ALL_TYPES
        )
        if not updates:
            return 0
        await self.db.inbox.store([(u.update_id, update_shard(u), json.dumps(u.to_dict())) for u in updates])
        self._offset = updates[-1].update_id + 1
        return len(updates)
