"""The updates the bot has taken up (Telegram's ``update_id``), so one sent again is handled at most once.

if not await db.updates.claim(update.update_id):   # False: taken up before (now or before a restart)
    ...skip it...
"""

from __future__ import annotations

from datetime import timedelta
from typing import Final

from storage.codec import check_int, timestamp
from storage.gateway import Gateway

KEEP: Final = timedelta(days=2)  # an update is sent again within a day at most; ids may restart after a week
PRUNE_EVERY: Final = 1000  # claims between two clean-ups of the ids older than KEEP (and at the first)


class HandledUpdates:
    def __init__(self, db: Gateway) -> None:
        self._db = db
        self._claims = 0

    async def claim(self, update_id: int) -> bool:
        """Mark the update as taken up, durably (committed before this returns); False when it already was."""
        check_int(update_id, "update id", 0)
        now = self._db.now()
        if self._claims % PRUNE_EVERY == 0:
            await self._db.execute("DELETE FROM handled_updates WHERE handled_at < ?", (timestamp(now - KEEP),))
        self._claims += 1
        inserted = await self._db.execute(
            "INSERT INTO handled_updates (update_id, handled_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (update_id, timestamp(now)),
        )
        return inserted == 1
