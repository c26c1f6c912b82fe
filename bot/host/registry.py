"""Every open table, by its ``TableKey``: the registry routes messages to each table's runner, and one scheduler
wakes the runners when their tables fall due.

Handlers post a message and, for a command or a press, wait for the answer (``ask``); the outbox's refusals
(a group migrated, a chat that answers 403, a forum topic gone) arrive on its ``refusals`` queue, which
``follow`` turns into messages for the tables concerned: nothing calls back into a table.

    tables = Tables(config, edge)
    answer = await tables.ask(key, Press(user_id, stamp, code, lang))       # Answer(text, markup)
    tables.follow(outbox.refusals)
    opened = await tables.open_session(key, title, seats, rules, hands, session, night_id)
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.config import Config
from bot.host.edge import Edge, table_options
from bot.host.one_table import seated_elsewhere
from bot.host.runner import Hooks, Session, StepFailed, TableRunner
from bot.outbox_state import Refusal
from bot.table import messages as msg
from bot.table.core import absent
from bot.table.key import TableKey
from bot.table.state import Seat, Table
from bot.waits import set_or_timeout
from game.rules import Rules

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """What a command or a press is answered with (None text: nothing to say)."""

    text: str | None
    markup: Any = None  # telegram.InlineKeyboardMarkup


class Scheduler:
    """The tables' timers: each table's next due time; one task posts ``Due`` to a table when its time comes."""

    def __init__(self, wake: Callable[[TableKey], None], clock: Callable[[], float]) -> None:
        self._wake, self._clock = wake, clock
        self._due: dict[TableKey, float] = {}
        self._heap: list[tuple[float, int, TableKey]] = []
        self._count = 0
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def arm(self, key: TableKey, when: float | None) -> None:
        if when is None:
            self._due.pop(key, None)
            return
        if self._due.get(key) == when:
            return
        self._due[key] = when
        self._count += 1
        heapq.heappush(self._heap, (when, self._count, key))
        self._changed.set()
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="table timers")

    def due(self, key: TableKey) -> float | None:
        return self._due.get(key)

    async def _run(self) -> None:
        while self._heap:
            when, _, key = self._heap[0]
            if self._due.get(key) != when:  # re-armed or disarmed since: a stale entry
                heapq.heappop(self._heap)
                continue
            delay = when - self._clock()
            if delay > 0:
                self._changed.clear()
                await set_or_timeout(self._changed, delay)
                continue
            heapq.heappop(self._heap)
            del self._due[key]
            self._wake(key)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


class Tables:
    def __init__(
        self,
        config: Config,
        edge: Edge,
        clock: Callable[[], float] = time.monotonic,
        claim: Callable[[int, TableKey, str], Awaitable[str | None]] | None = None,
    ) -> None:
        self.edge, self.clock = edge, clock
        self.options = table_options(config)  # what each table's core follows
        self._runners: dict[TableKey, TableRunner] = {}
        self.scheduler = Scheduler(lambda key: self.post(key, msg.Due()), clock)
        self._hooks = Hooks(rekey=self._rekey, closed=self._closed, arm=self.scheduler.arm)
        self._following: asyncio.Task[None] | None = None
        # With several workers: a person sits down here, unless the database has them at another table (its name).
        self.claim = claim

    # --- what is open -----------------------------------------------------------------------------------------
    def get(self, key: TableKey) -> Table | None:
        runner = self._runners.get(key)
        return runner.table if runner is not None else None

    def all(self) -> list[Table]:
        return [r.table for r in self._runners.values()]

    def of_group(self, chat_id: int) -> list[Table]:
        """The group's tables: one, or in a forum group one per topic."""
        return [r.table for key, r in self._runners.items() if key.chat_id == chat_id]

    def state_size(self) -> dict[str, int]:
        """How much per-id state is kept (logged at shutdown; the tests and the bench read it)."""
        return {"tables": len(self._runners), "outbox_chats": self.edge.outbox.chats()}

    # --- messages -----------------------------------------------------------------------------------------------
    async def ask(self, key: TableKey, message: msg.Message) -> Answer:
        """Hand ``message`` to the table and wait until it is taken; what to answer its sender."""
        runner = self._runners.get(key)
        if isinstance(message, msg.Open | msg.Join):  # one table a person: the others are known here
            elsewhere = seated_elsewhere(self.all(), key, message.user_id)
            if elsewhere is None and self.claim is not None:  # or, with workers, by the database
                title = message.title if isinstance(message, msg.Open) else runner.table.title if runner else ""
                elsewhere = await self.claim(message.user_id, key, title)
            message = replace(message, elsewhere=elsewhere)
        if runner is not None and runner.dead:  # taken up again from storage (bot.cluster): nothing taken now
            raise StepFailed("the table's runner died")
        if runner is None and isinstance(message, msg.Open):
            runner = self._runner(Table(key=key, title=message.title, creator_id=0, creator_name="", state="new"))
        if runner is None:
            return Answer(absent(message, self.options))
        reply = await runner.ask(message)
        if reply is None:
            return Answer(None)
        return Answer(reply.text, self.edge.reply_markup(runner.table, reply))

    def post(self, key: TableKey, message: msg.Message) -> None:
        """Hand ``message`` to the table, if it is open; nobody waits for an answer."""
        runner = self._runners.get(key)
        if runner is not None:
            runner.post(message)

    async def open_session(
        self,
        key: TableKey,
        title: str,
        seats: Sequence[Seat | None],
        rules: Rules,
        hands_planned: int,
        session: Session,
        league_night_id: int | None = None,
    ) -> bool:
        """Open a table with these seats (None: an automatic player) and deal at once; False if one is open there.

        Every human must be a stored player the bot can write to privately. The session is asked for the seats
        before each hand and whether to stop after each, and told when the table has finished."""
        if key in self._runners:
            return False
        runner = self._runner(Table(key=key, title=title, creator_id=0, creator_name=""), session)
        await runner.ask(msg.OpenSession(tuple(seats), rules, hands_planned, league_night_id))
        return True

    async def open_quick(self, key: TableKey, title: str, opening: msg.OpenQuick) -> bool:
        """Open a quick match's table (``bot.quick``) with its seats and deal at once; False if it is open."""
        if key in self._runners:
            return False
        runner = self._runner(Table(key=key, title=title, creator_id=0, creator_name=""))
        await runner.ask(opening)
        return True

    def adopt(self, table: Table, session: Session | None = None) -> None:
        """Run a table rebuilt from storage at start-up; it is told ``Resumed`` to show where it stands."""
        self._runner(table, session).post(msg.Resumed())

    def attach(self, key: TableKey, session: Session) -> None:
        """A league night takes up its table resumed at start-up."""
        runner = self._runners.get(key)
        if runner is not None:
            runner.attach(session)

    async def release(self, which: Callable[[TableKey], bool]) -> int:
        """Stop the runners of these tables without closing them, and drop what waits to be written to their
        groups and to their players' messages (another worker takes them up from storage: bot.cluster); what they
        stored stays; how many.
        Every one of them, whatever one of them raises: a table left running here would run on two workers."""
        keys = [key for key in self._runners if which(key)]
        for key in keys:
            runner = self._runners.pop(key)
            try:
                self.scheduler.arm(key, None)
                await runner.stop()
                self.edge.outbox.drop(key.chat_id, for_good=False)
                for _, seat in runner.table.humans():
                    self.edge.outbox.drop(seat.user_id or 0, for_good=False, slot=key.private_slot("hand"))
            except Exception:
                log.exception("table %s: releasing it failed; going on with the others", key.token)
        return len(keys)

    def running(self, key: TableKey) -> bool:
        """A live runner has the table (not one that died: ``dead``)."""
        runner = self._runners.get(key)
        return runner is not None and not runner.dead

    def dead(self) -> list[TableKey]:
        """The tables whose runner died (a bug got past its guards): resumed from storage again (bot.cluster)."""
        return [key for key, runner in self._runners.items() if runner.dead]

    def _runner(self, table: Table, session: Session | None = None) -> TableRunner:
        runner = TableRunner(table, self.edge, self.options, self.clock, self._hooks, session)
        self._runners[table.key] = runner
        runner.start()
        return runner

    def _rekey(self, old: TableKey, new: TableKey) -> None:
        runner = self._runners.pop(old, None)
        if runner is not None:
            self._runners[new] = runner
            self.scheduler.arm(old, None)
            self.edge.rekeyed(old, new)

    def _closed(self, key: TableKey) -> None:
        self._runners.pop(key, None)
        self.scheduler.arm(key, None)
        self.edge.closed(key)

    # --- what the chats did ---------------------------------------------------------------------------------------
    async def migrated(self, old: int, new: int) -> None:
        """The group ``old`` is the supergroup ``new``: its table follows (storage first, by the table's core);
        with no table there, storage and the outbox follow here."""
        before, after = TableKey(old), TableKey(new)
        if after in self._runners:  # already followed (Telegram tells both chats): late writes follow too
            self.edge.outbox.move(old, new, {})
        elif before in self._runners:
            await self._runners[before].ask(msg.Migrated(new))
        else:
            moved = await self.edge.db.chats.migrate(old, new)
            self.edge.outbox.move(old, new, {})
            log.info("chat %s migrated to %s (stored: %s, no table)", old, new, moved)

    def removed(self, chat_id: int) -> None:
        """The bot was removed from the group or may no longer write there: nothing more is written to it, and
        its tables close cleanly (a running hand stored as abandoned, without payments)."""
        self.edge.outbox.drop(chat_id)
        for table in self.of_group(chat_id):
            self.post(table.key, msg.Unwritable())

    def unreachable(self, user_id: int) -> None:
        """A player who blocked the bot: 托管 at each of their running tables."""
        for runner in list(self._runners.values()):
            if runner.table.seat_of(user_id) is not None:
                runner.post(msg.Unreachable(user_id))

    def follow(self, refusals: asyncio.Queue[Refusal]) -> None:
        """Turn the outbox's refusals into messages for the tables concerned, until ``close``."""
        self._following = asyncio.create_task(self._follow(refusals), name="outbox refusals")

    async def _follow(self, refusals: asyncio.Queue[Refusal]) -> None:
        while True:
            refusal = await refusals.get()
            try:
                await self._refused(refusal)
            except Exception:  # one refusal handled badly must not stop the next ones from being heard
                log.exception("could not follow %s", refusal)

    async def _refused(self, refusal: Refusal) -> None:
        if refusal.new_chat_id is not None:
            await self.migrated(refusal.chat_id, refusal.new_chat_id)
        elif refusal.thread is not None:
            log.info("table %s: its topic is gone; closing it", TableKey(refusal.chat_id, refusal.thread).token)
            self.post(TableKey(refusal.chat_id, refusal.thread), msg.Unwritable(topic=True))
        elif refusal.chat_id < 0:
            self.removed(refusal.chat_id)
        else:
            self.unreachable(refusal.chat_id)

    async def close(self) -> None:
        if self._following is not None:
            self._following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._following
        await self.scheduler.close()
        for runner in list(self._runners.values()):
            await runner.stop()
