"""The matchmaker: every ``TICK_S`` it reads the stored queue, seats whom ``matching.groups`` matches at a new
quick table, and keeps each waiting person's one message up to date (edited, never repeated).

One process runs it as a task beside the polling; several workers run it on the one elected through the
database (``bot.cluster.election``). Its state is the queue in storage, so a restart or another worker taking
over goes on from there: the waiting messages are taken up (``adopt``) and edited again.

    matchmaker = Matchmaker(config, db, tables, outbox)
    opened = await matchmaker.round()       # the quick tables opened in this round
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Final

from bot.config import Config
from bot.host.one_table import seated_elsewhere
from bot.host.registry import Tables
from bot.i18n import t
from bot.live.links import group_link
from bot.outbox import Content, Outbox
from bot.quick.matching import Group, groups
from bot.table import messages as msg
from bot.table.key import TableKey
from bot.table.state import Seat
from bot.views.quick_views import SLOT, waiting_content
from game.rules import Rules
from storage.database import Database
from storage.errors import StorageError
from storage.quick import Waiting

log = logging.getLogger(__name__)

TICK_S: Final = 0.5  # how often the queue is looked at
SHARD_TRIES: Final = 256  # numbers drawn for a table on a shard this worker holds (64 shards: enough)


async def _always() -> bool:
    return True


class Matchmaker:
    def __init__(
        self,
        config: Config,
        db: Database,
        tables: Tables,
        outbox: Outbox,
        lead: Callable[[], Awaitable[bool]] = _always,
        ours: Callable[[TableKey], bool] = lambda key: True,
        bot_username: str = "",
    ) -> None:
        self.config, self.db, self.tables, self.outbox = config, db, tables, outbox
        self.lead = lead  # whether this process matches now (bot.cluster.election with workers)
        self.ours = ours  # a table key this process may open (a worker's shards)
        self.bot_username = bot_username  # for the spectators' link (the Mini App's t.me link)
        self._shown: dict[int, tuple[str, int, int]] = {}  # the waiting message each person last saw
        self._adopted = False
        self._resumed: set[int] = set()  # people whose message from before a restart is shown again, saying so

    async def run(self) -> None:
        while True:
            try:
                if await self.lead():
                    await self.round()
                else:
                    self._shown.clear()  # another process edits them: shown again if this one leads later
                    self._adopted = False
            except StorageError as e:
                log.warning("matchmaking failed (%s); trying again", type(e).__name__)
            except Exception:  # a bug: logged, and the queue is looked at again next tick
                log.exception("matchmaking failed")
            await asyncio.sleep(TICK_S)

    async def round(self) -> list[TableKey]:
        """Look at the queue once: drop whom the bot cannot write to, seat the groups, show the counts."""
        waiting = await self.db.quick.waiting()
        if not self._adopted:  # after a restart or a takeover: the waiting messages sent before are edited
            await self._adopt(waiting)
        for w in [w for w in waiting if w.player_id in self.outbox.unreachable]:
            await self.db.quick.leave(w.player_id)  # they blocked the bot (403): nobody waits for them
            self._shown.pop(w.player_id, None)
        waiting = [w for w in waiting if w.player_id not in self.outbox.unreachable]
        opened = []
        for group in groups(waiting, self.db.now()):
            key = await self._seat(group)
            if key is not None:
                opened.append(key)
        self._show_counts(await self.db.quick.waiting() if opened else waiting)
        return opened

    async def _adopt(self, waiting: list[Waiting]) -> None:
        for m in await self.db.live_messages.of_chats(w.player_id for w in waiting):
            if m.slot == SLOT:
                self.outbox.adopt(m.chat_id, SLOT, m.message_id, is_photo=m.is_photo)
                self._resumed.add(m.chat_id)
        self._adopted = True

    def _show_counts(self, waiting: list[Waiting]) -> None:
        counts = Counter(w.preset for w in waiting)
        for w in waiting:
            seen = (w.preset, counts[w.preset], w.wait_s)
            if self._shown.get(w.player_id) != seen:
                self._shown[w.player_id] = seen
                resumed = w.player_id in self._resumed
                self._resumed.discard(w.player_id)
                waits = self.config.quick_waits
                content = waiting_content(w.language, w.preset, counts[w.preset], w.wait_s, waits, resumed=resumed)
                self.outbox.show(w.player_id, SLOT, content)
        for gone in set(self._shown) - {w.player_id for w in waiting}:
            del self._shown[gone]

    async def _seat(self, group: Group) -> TableKey | None:
        """Open the group's table; None when one of them sits elsewhere or left the queue meanwhile."""
        for w in group.people:
            elsewhere = seated_elsewhere(self.tables.all(), TableKey(0), w.player_id)
            elsewhere = elsewhere or await self.db.quick.seated(w.player_id)
            if elsewhere is not None:  # they sat down at another table since: out of the queue, told why
                await self.db.quick.leave(w.player_id)
                self._done(w, t("quick_elsewhere", w.language, table=elsewhere))
                return None
        number = await self.db.quick.seat([w.player_id for w in group.people])
        if number is None:
            return None
        key = TableKey.quick(number)
        for _ in range(SHARD_TRIES):
            if self.ours(key):
                break
            key = TableKey.quick(await self.db.quick.number())
        seats: list[Seat | None] = []
        for w in group.people:
            seat = Seat(w.player_id, w.name)
            seat.lang = w.language
            seats.append(seat)
        seats += [None] * (4 - len(seats))
        random.shuffle(seats)  # who deals first is chance's, not who waited longest
        first = group.people[0]
        title = t("quick_title", first.language, n=number)
        rules = Rules.preset_named(group.preset)
        opening = msg.OpenQuick(tuple(seats), rules, self.config.quick_hands, first.language)
        await self.tables.open_quick(key, title, opening)
        watch = group_link(self.config, self.bot_username, key)
        for w in group.people:
            said = t("quick_matched", w.language, people=len(group.people))
            if watch is not None:  # anyone may watch a quick table live: they may share it
                said += "\n" + t("quick_watch", w.language, link=watch)
            self._done(w, said)
        log.info("quick table %s: %d people, preset %s", key.token, len(group.people), group.preset)
        return key

    def _done(self, w: Waiting, text: str) -> None:
        """Their waiting message says how it ended (no buttons) and is done with."""
        self._shown.pop(w.player_id, None)
        self.outbox.show(w.player_id, SLOT, Content(text), urgent=True)
        self.outbox.forget(w.player_id, SLOT)
