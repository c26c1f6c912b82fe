"""One table's runner: a task with an inbox, so a table takes one message at a time by construction (no locks).

For each message it drives the core (``bot.table.drive``: ``bot.table.core.step``'s effects carried out in the
order they come by ``bot.host.edge``, each answer sent back in): a store refused is thrown back into the core,
which decides what it means (a press answered "try again", a timer tried again later). After each message the
table's next due time goes to the scheduler (``bot.host.registry.Scheduler``), which posts ``Due`` when it comes;
when that is an automatic player's turn at the searched level, its decision (``bot.table.hand.foreseen``) is
thought out meanwhile, and the ``Decide`` the ``Due`` asks is answered by it when it is the same question (the
same view, level and seed).

    runner = TableRunner(table, edge, options, clock, hooks, session)  # hooks: what the registry hears (Hooks)
    reply = await runner.ask(Press(...))       # from a handler: the answer to give
    runner.post(Due())                        # from the registry (its scheduler, the outbox's refusals): no answer
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bot.host.edge import Edge
from bot.search_pool import SEARCHED
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.core import absent, step
from bot.table.drive import drive
from bot.table.hand import RETRY_SECONDS, SLACK, due_at, foreseen
from bot.table.key import TableKey
from bot.table.options import Options
from bot.table.state import Seat, Table
from storage.errors import StorageError

log = logging.getLogger(__name__)

# Between hands a table waits for its group to have been shown the hand before (``Outbox.behind``), at most this
# long past its due time (a group paused by a 429 for longer is dealt to anyway), looking again this often.
CATCH_UP_SECONDS = 60.0
CATCH_UP_POLL = 0.25


class Session(Protocol):
    """A league night at the table (``bot.league.nights.NightSession``): who sits each hand, when it ends."""

    def seating(self, table: Table) -> Sequence[Seat | None]: ...

    def over(self, table: Table) -> bool: ...

    async def closed(self, table: Table, status: str) -> None: ...


class StepFailed(RuntimeError):
    """A message the table could not take (logged; what it had stored stays): its sender is apologised to."""


class TableMoved(StepFailed):
    """The table stopped in this process while the message waited or was being taken (another worker takes it up,
    or the process stops): what it had stored, if anything, the next owner shows, so nobody is told it failed."""


@dataclass
class Envelope:
    message: msg.Message
    answer: asyncio.Future[fx.Reply | None] | None = None


@dataclass
class Hooks:
    """What the registry hears from a runner: its table's key changed, it closed, its next due time."""

    rekey: Callable[[TableKey, TableKey], None]
    closed: Callable[[TableKey], None]
    arm: Callable[[TableKey, float | None], None]


@dataclass
class TableRunner:
    table: Table
    edge: Edge
    options: Options
    clock: Callable[[], float]
    hooks: Hooks
    session: Session | None = None
    inbox: asyncio.Queue[Envelope] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    closed: bool = False
    # The next automatic decision, thought out during its player's delay: (what it answers, its answer to come).
    foreseen: tuple[fx.Decide, asyncio.Future[object]] | None = None

    def attach(self, session: Session) -> None:
        """A session takes up this table (a league night's, resumed at start-up before its night was)."""
        self.session = session

    def start(self) -> None:
        self.task = asyncio.create_task(self._run(), name=f"table {self.table.key.token}")

    def post(self, message: msg.Message) -> None:
        self.inbox.put_nowait(Envelope(message))

    async def ask(self, message: msg.Message) -> fx.Reply | None:
        """Post ``message`` and wait for the table to have taken it; the answer for its sender."""
        answer: asyncio.Future[fx.Reply | None] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait(Envelope(message, answer))
        return await answer

    @property
    def dead(self) -> bool:
        """Its task ended without its table closing (what nothing should do: the registry replaces it)."""
        return self.task is not None and self.task.done() and not self.closed

    async def stop(self) -> None:
        """Stop taking messages; whoever still waits for an answer hears StepFailed (the table is gone from this
        process: another worker takes it up, bot.cluster), never waits for ever."""
        self._foresee(None)
        if self.task is not None:
            self.task.cancel()
            # A task that had died is not raised again here: stopping it must not stop the caller's loop.
            await asyncio.gather(self.task, return_exceptions=True)
        while not self.inbox.empty():
            _stopped(self.inbox.get_nowait().answer)

    async def _run(self) -> None:
        while not (self.closed and self.inbox.empty()):
            envelope = await self.inbox.get()
            answer = envelope.answer
            try:
                if self.closed:  # the table closed while this waited: answered as for no table
                    text = absent(envelope.message, self.options)
                    reply = fx.Reply(text) if text else None
                else:
                    reply = await self._handle(envelope.message)
            except StepFailed as e:  # whoever asked hears of it (the handler apologises), the table goes on
                if answer is not None and not answer.done():
                    answer.set_exception(e)
                continue
            except asyncio.CancelledError:
                _stopped(answer)
                raise
            except Exception as e:  # a bug outside the core's steps: logged, its sender apologised to, tried again
                log.exception("table %s: %s failed", self.table.key.token, type(envelope.message).__name__)
                if answer is not None and not answer.done():
                    answer.set_exception(StepFailed(f"{type(envelope.message).__name__} failed: {e}"))
                if not self.closed:
                    self.hooks.arm(self.table.key, self.clock() + RETRY_SECONDS)
                continue
            if answer is not None and not answer.done():
                answer.set_result(reply)

    async def _handle(self, message: msg.Message) -> fx.Reply | None:
        """Take one message: drive the core through its effects; the reply to its sender."""
        now = self.clock()
        if isinstance(message, msg.Due) and self._group_behind(now):
            self.hooks.arm(self.table.key, now + CATCH_UP_POLL)
            return None
        failed: StepFailed | None = None
        try:
            reply = await drive(step(self.table, message, now, self.options), self._carry_out)
        except StepFailed as e:  # an effect could not be carried out (logged): tried again later
            failed = e
        except Exception as e:  # a bug, or a store refused where nothing else was to be done: tried again later
            self._failed(message, e)
            failed = StepFailed(f"{type(message).__name__} failed: {e}")
        if failed is not None:
            self.table.not_before = now + RETRY_SECONDS
        # Armed after a message taken or failed; not when the runner is cancelled mid-step.
        if not self.closed:
            self.hooks.arm(self.table.key, due_at(self.table, self.options))
        # Only a search is worth thinking ahead: the other levels answer in milliseconds, and asked early they would
        # count against the quick processes' lag (bot.search_pool.QUICK_LAG_S) and be played again in a thread.
        searched = not self.closed and failed is None and self.table.auto_level == SEARCHED
        self._foresee(foreseen(self.table, self.options) if searched else None)
        if failed is not None:
            raise failed
        return reply

    def _failed(self, message: msg.Message, error: Exception) -> None:
        """Say that the message failed: a store refused (said above, in one line: what a database gone for a
        moment or a worker's shard moved away does) without a stack; a bug with its stack."""
        if isinstance(error, fx.Refused):
            log.warning("table %s: %s not taken; trying again in %.0f s", self.table.key.token,
                        type(message).__name__, RETRY_SECONDS)  # fmt: skip
        else:
            log.exception("table %s: %s failed; trying again in %.0f s", self.table.key.token,
                          type(message).__name__, RETRY_SECONDS, exc_info=error)  # fmt: skip

    def _group_behind(self, now: float) -> bool:
        """The next hand is due but the group has not been shown the last one yet (and has not kept the table
        waiting for ``CATCH_UP_SECONDS``)."""
        table = self.table
        due = due_at(table, self.options)
        return (
            table.state == "between"
            and due is not None
            and due - SLACK <= now < due + CATCH_UP_SECONDS  # (a Due before its time changes nothing anyway)
            and self.edge.outbox.behind(table.chat_id, table.thread_id)
        )

    def _foresee(self, decide: fx.Decide | None) -> None:
        """Think ``decide`` out from now on (None: nothing); one asked before that is not this one is let go (its
        answer, when it comes, is dropped)."""
        if self.foreseen is not None and self.foreseen[0] == decide:
            return
        if self.foreseen is not None:
            self.foreseen[1].cancel()
        self.foreseen = None
        if decide is not None:
            answer = asyncio.ensure_future(self.edge.carry_out(self.table, decide))
            answer.add_done_callback(_taken)
            self.foreseen = (decide, answer)

    async def _carry_out(self, effect: fx.Effect) -> object:
        """One effect: a store storage refuses is ``Refused`` (thrown back into the core), any other failure
        fails the message."""
        try:
            return await self._do(effect)
        except (StorageError, OSError) as e:
            log.error("table %s: storage refused %s (%s)", self.table.key.token, type(effect).__name__, e)
            raise fx.Refused(str(e)) from e
        except Exception as e:  # a bug carrying it out: the message fails as one the core could not take
            log.exception("table %s: %s failed; trying again in %.0f s", self.table.key.token,
                          type(effect).__name__, RETRY_SECONDS)  # fmt: skip
            raise StepFailed(f"{type(effect).__name__} failed: {e}") from e

    async def _do(self, effect: fx.Effect) -> object:
        if isinstance(effect, fx.Decide) and self.foreseen is not None and self.foreseen[0] == effect:
            answer, self.foreseen = self.foreseen[1], None
            return await answer
        match effect:
            case fx.Reply():  # the sender's answer: drive returns it
                return None
            case fx.AskSeating():  # a night's table resumed before its night was taken up plays on as it is
                return tuple(self.table.seats if self.session is None else self.session.seating(self.table))
            case fx.AskOver():
                return self.session is not None and self.session.over(self.table)
            case fx.SessionClosed(status):
                if self.session is not None:
                    await self.session.closed(self.table, status)
                return None
            case fx.Rekey(old, new):
                self.hooks.rekey(old, new)
                return None
            case fx.Closed():
                self.closed = True
                self.hooks.closed(self.table.key)
                return None
        return await self.edge.carry_out(self.table, effect)


def _taken(answer: asyncio.Future[object]) -> None:
    """A foreseen decision's failure is raised where it is asked for; one never asked for is not logged again."""
    if not answer.cancelled():
        answer.exception()


def _stopped(answer: asyncio.Future[fx.Reply | None] | None) -> None:
    if answer is not None and not answer.done():
        answer.set_exception(TableMoved("the table stopped in this process"))
