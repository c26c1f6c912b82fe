"""One table's runner: a task with an inbox, so a table takes one message at a time by construction (no locks).

For each message it steps the core (``bot.table.core.step``) and carries out the effects in the order they come
(``bot.host.edge``), sending each answer back in: a store refused is thrown back into the core, which decides
what it means (a press answered "try again", a timer tried again later). After each message the table's next
due time goes to the scheduler (``bot.host.registry.Scheduler``), which posts ``Due`` when it comes.

    runner = TableRunner(table, edge, config, clock, hooks, session)  # hooks: what the registry hears (Hooks)
    reply = await runner.ask(Press(...))       # from a handler: the answer to give
    runner.post(Due())                        # from the registry (its scheduler, the outbox's refusals): no answer
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from bot.config import Config
from bot.host.edge import Edge
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.core import absent, step
from bot.table.hand import RETRY_SECONDS, SLACK, due_at
from bot.table.key import TableKey
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
    config: Config
    clock: Callable[[], float]
    hooks: Hooks
    session: Session | None = None
    inbox: asyncio.Queue[Envelope] = field(default_factory=asyncio.Queue)
    task: asyncio.Task[None] | None = None
    closed: bool = False

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
                    text = absent(envelope.message, self.config)
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
        """Take one message: step the core, carry out its effects in order; the reply to its sender."""
        now = self.clock()
        if isinstance(message, msg.Due) and self._group_behind(now):
            self.hooks.arm(self.table.key, now + CATCH_UP_POLL)
            return None
        steps = step(self.table, message, now, self.config)
        reply: fx.Reply | None = None
        answer: Any = None
        refused: BaseException | None = None
        failed: StepFailed | None = None
        while True:
            try:
                effect = steps.send(answer) if refused is None else steps.throw(refused)
            except StopIteration:
                break
            except Exception as e:  # a bug, or a store refused where nothing else was to be done: tried again later
                failed = self._failed(message, e, e is refused, now)
                break
            answer, refused = None, None
            if isinstance(effect, fx.Reply):
                reply = effect
                continue
            try:
                answer = await self._carry_out(effect)
            except (StorageError, OSError) as e:
                log.error("table %s: storage refused %s (%s)", self.table.key.token, type(effect).__name__, e)
                refused = e
            except Exception as e:  # a bug carrying it out: the message fails as one the core could not take
                log.exception("table %s: %s failed; trying again in %.0f s", self.table.key.token,
                              type(effect).__name__, RETRY_SECONDS)  # fmt: skip
                self.table.not_before = now + RETRY_SECONDS
                failed = StepFailed(f"{type(effect).__name__} failed: {e}")
                break
        if not self.closed:
            self.hooks.arm(self.table.key, due_at(self.table, self.config))
        if failed is not None:
            raise failed
        return reply

    def _failed(self, message: msg.Message, error: Exception, refused: bool, now: float) -> StepFailed:
        """The message failed: said (a store refused, already said above, in one line; a bug with its stack), and
        the table tried again later."""
        if refused:  # what a database gone for a moment or a worker's shard moved away does: no stack
            log.warning("table %s: %s not taken; trying again in %.0f s", self.table.key.token,
                        type(message).__name__, RETRY_SECONDS)  # fmt: skip
        else:
            log.exception("table %s: %s failed; trying again in %.0f s", self.table.key.token,
                          type(message).__name__, RETRY_SECONDS, exc_info=error)  # fmt: skip
        self.table.not_before = now + RETRY_SECONDS
        return StepFailed(f"{type(message).__name__} failed: {error}")

    def _group_behind(self, now: float) -> bool:
        """The next hand is due but the group has not been shown the last one yet (and has not kept the table
        waiting for ``CATCH_UP_SECONDS``)."""
        table = self.table
        due = due_at(table, self.config)
        return (
            table.state == "between"
            and due is not None
            and due - SLACK <= now < due + CATCH_UP_SECONDS  # (a Due before its time changes nothing anyway)
            and self.edge.outbox.behind(table.chat_id, table.thread_id)
        )

    async def _carry_out(self, effect: fx.Effect) -> Any:
        match effect:
            case fx.AskSession(question):
                if self.session is None:  # a night's table resumed, its night not taken up yet: it plays on as it is
                    return list(self.table.seats) if question == "seating" else False
                return self.session.seating(self.table) if question == "seating" else self.session.over(self.table)
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


def _stopped(answer: asyncio.Future[fx.Reply | None] | None) -> None:
    if answer is not None and not answer.done():
        answer.set_exception(TableMoved("the table stopped in this process"))
