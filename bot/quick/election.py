"""With several workers (bot.cluster) one matchmaker runs: on the worker whose coordinator connection holds the
advisory lock ``hashtext('mahjong matchmaker ' || schema)`` (``storage.cluster.Coordinator.lead``, as the
poller's). The lock is the connection's, a lease renewed every 1.3 s: a worker that dies or stops loses it with
its connection (at once, or within LEASE_S), and another worker's next look takes it. The queue is in storage,
so the new matchmaker goes on with it and edits the waiting messages again."""

from __future__ import annotations

import logging

from bot.cluster.ownership import Ownership
from storage.cluster import Coordinator

log = logging.getLogger(__name__)


class Election:
    def __init__(self, ownership: Ownership) -> None:
        self.ownership = ownership
        self._leading: Coordinator | None = None  # the connection that holds the lock

    async def lead(self) -> bool:
        """True while this worker's coordinator connection holds the matchmaker's lock (taken here if free)."""
        coordinator = self.ownership.coordinator
        if coordinator is None or coordinator.closed:
            self._leading = None
            return False
        if coordinator is not self._leading:
            if not await coordinator.lead("matchmaker"):
                return False
            log.info("this worker matches the quick-match queue now")
            self._leading = coordinator
        return True
