"""The tables' timers: one JobQueue job per table, at the table's next deadline.

A deadline is an automatic player's move, a human's claim window or turn timer, or the next hand; the job
calls back the manager's ``tick(key, job)``, which plays whatever is due under the table's lock.

    timers = TableTimers(job_queue, config, manager.tick)
    timers.arm(table)                      # after every change of the table
    timers.cancel(table.key)               # when the table closes
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from telegram.ext import CallbackContext, Job, JobQueue

from bot.config import Config
from bot.play.table_key import TableKey
from bot.play.table_state import Table

Tick = Callable[[TableKey, "Job[Any] | None"], Awaitable[None]]


class TableTimers:
    def __init__(self, jobs: JobQueue[Any], config: Config, tick: Tick) -> None:
        self._queue = jobs
        self._config = config
        self._tick = tick
        self._jobs: dict[TableKey, Job[Any]] = {}

    def due_at(self, table: Table) -> float | None:
        """When the table next needs its timer (monotonic time), or None when it waits for nobody."""
        if table.state == "playing" and table.hand is not None and table.hand.finished:
            return time.monotonic()  # a settlement to try again
        if table.state == "playing":
            due = table.next_due(self._config.bot_delay)
            return None if due is None else due[0]
        if table.state == "between":
            return table.between_since + self._config.next_hand_seconds
        return None

    def arm(self, table: Table, not_before: float = 0.0) -> None:
        """(Re)schedule the table's one job at its next deadline (not before ``not_before``)."""
        self.cancel(table.key)
        when = self.due_at(table)
        if when is None:
            return
        now = time.monotonic()
        # A timer that fires late (a loaded machine, start-up) must still fire: APScheduler drops it by default.
        self._jobs[table.key] = self._queue.run_once(
            self._on_job,
            max(0.0, when - now, not_before - now),
            data=table.key,
            name=f"table {table.key.token}",
            job_kwargs={"misfire_grace_time": None},
        )

    def cancel(self, key: TableKey) -> None:
        job = self._jobs.pop(key, None)
        if job is not None:
            with contextlib.suppress(JobLookupError):  # it has just fired: its tick finds nothing due
                job.schedule_removal()

    def fired(self, key: TableKey, job: Job[Any] | None) -> None:
        """Forget the job that has just fired (a newer one armed meanwhile stays)."""
        if self._jobs.get(key) is job:
            self._jobs.pop(key, None)

    async def _on_job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        job = context.job
        assert job is not None and isinstance(job.data, TableKey)
        await self._tick(job.data, job)
