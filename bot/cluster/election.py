"""One worker of several for a role (``"poller"``: the one that polls Telegram, bot.cluster.poller;
``"matchmaker"``: the one that matches the quick-match queue, bot.quick.matchmaker): whoever's coordinator
connection holds the advisory lock ``hashtext('mahjong <role> ' || schema)`` (``storage.cluster.Coordinator.lead``).
The lock is the connection's, a lease renewed every 1.3 s: a worker that dies or stops loses it with its
connection (at once, or within LEASE_S), and another worker's next look takes it.

    election = Election(ownership, "matchmaker")   # taken: awaited once each time this worker wins the role
    if await election.lead(): ...                  # True while this worker holds it (taken here if free)
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.cluster.ownership import Ownership
from storage.cluster import Coordinator


async def _nothing() -> None:
    return None


class Election:
    def __init__(self, ownership: Ownership, role: str, taken: Callable[[], Awaitable[None]] = _nothing) -> None:
        self.ownership, self.role, self.taken = ownership, role, taken
        self._leading: Coordinator | None = None  # the connection that holds the lock

    async def lead(self) -> bool:
        """True while this worker's coordinator connection holds the role's lock (taken here if free)."""
        coordinator = self.ownership.coordinator
        if coordinator is None or coordinator.closed:
            self._leading = None
            return False
        if coordinator is not self._leading:
            if not await coordinator.lead(self.role):  # held already: taken again, harmless (the same session)
                return False
            await self.taken()  # raising: tried again at the next look (taking the lock again is harmless)
            self._leading = coordinator
        return True
