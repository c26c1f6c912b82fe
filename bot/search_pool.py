"""The processes the search runs in (the ``hard`` level, reviews, replay animations), kept alive.

A ``ProcessPoolExecutor`` whose worker dies abruptly (the kernel's OOM killer, a crash in a C extension, an
operator's kill) is broken for good: every later submit raises ``BrokenProcessPool``. ``SearchPool`` is an
``Executor`` that owns one and replaces it the moment it breaks (seen by a job's future or by a submit), so only
the jobs that were in the dead pool fail. ``automatic_choice`` is the table's side: a decision the search cannot
make (its pool broke under it, or the bot is stopping) is made at ``normal`` at once, so no table waits on the
pool or stops playing. A search process whose bot process died (SIGKILL: no shutdown) ends on its own within
``ORPHAN_CHECK_S``: nothing else would end it, since it holds both ends of its own task pipe.

The lighter levels (``easy``, ``normal``) are quick, but many tables make many of them, and in this process's
threads they hold the interpreter's lock the event loop needs (measured: a third of the bot's time at 100 tables,
every press and frame waiting behind it). So once decisions of several tables overlap, they run in processes of
their own (``SearchPool(..., quick=True)``, started then: a bot of a table or two never starts them), at a lower
priority than the bot's process (``QUICK_NICE``): a person's press and the page's frames first, the automatic
players' next moves (made after a delay of their own anyway) with the time left. Only while those processes are
behind (a decision there unanswered for ``QUICK_LAG_S``: their cores busy with other work, or more decisions than
they make) are the next ones played in this process's threads meanwhile, and one not answered within it is played
in a thread too (the same decision: the first answer is taken), so the tables never wait on them. Not in a
process confined to one core (a worker given a core of its own): there a thread takes the very core the quick
process is behind on, and the loop's interpreter lock, so the process is waited for.

    pool = SearchPool(workers=1)
    action = await automatic_choice(pool, view, "hard", seed, quick=SearchPool(1, quick=True))
    pool.shutdown(wait=True, cancel_futures=True)
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing import get_context
from typing import Any, Final, TypeVar

from game.actions import Action
from game.automatic import choose
from game.policy import network
from game.view import SeatView

log = logging.getLogger(__name__)

T = TypeVar("T")

FALLBACK_LEVEL = "normal"  # what a decision the search cannot make is played at
SEARCHED: Final = "hard"  # the level the search plays, in its own processes, for a time budget
# A quick process's decision unanswered this long: the processes are behind, and the next decisions are played in
# this process's threads meanwhile, so that a machine whose cores are busy with other work slows the tables no more
# than before (measured: a quick process on a shared machine, given every decision, made 100 tables wait for it,
# presses unanswered behind their tables' decisions). Not shorter: a burst of a hundred tables' decisions (a few
# milliseconds each) waits there a moment, and each one sent to a thread too is made twice (at 0.1 s, 100 tables
# with a quiet machine: 40 % of the bot process's interpreter time was decisions in its threads again).
QUICK_LAG_S = 0.5
# How much less of a core the quick processes are given than the bot's process when both want one (os.nice): the
# event loop answers people, the automatic players move after their delay (bench/live.py, bench/RESULTS.md).
QUICK_NICE = 5
ORPHAN_CHECK_S = 1.0  # how often a search process looks whether its bot process is still there


def _start(parent: int) -> None:
    """A search process's initializer: it follows ``parent``, and reads the learned network (``game.policy``,
    the reviews' move order) once, before its first job rather than during it."""
    _follow(parent)
    network()


def _start_quick(parent: int) -> None:
    """A quick process's initializer: it follows ``parent`` at a lower priority."""
    os.nice(QUICK_NICE)
    _follow(parent)


def _follow(parent: int) -> None:
    """A search process ends when ``parent`` does (then it is another process's child)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(ORPHAN_CHECK_S)
        os._exit(0)

    threading.Thread(target=watch, name="follow the bot process", daemon=True).start()


class PoolClosed(RuntimeError):
    """A job submitted after ``shutdown`` (the bot is stopping)."""


class SearchPool(Executor):
    def __init__(self, workers: int, *, quick: bool = False) -> None:
        self.workers = workers
        self.quick = quick  # the lighter levels' pool: no learned network to read
        self._lock = threading.Lock()  # submits come from the loop and from render threads
        self._closed = False
        self.replaced = 0  # pools replaced since start-up (for the logs and the tests)
        self._up: Future[int] | None = None  # its first job (``up``)
        self.thinking = 0  # decisions played in this process's threads meanwhile (``automatic_choice``)
        self._since: dict[Future[Any], float] = {}  # the jobs not yet answered, oldest first: when each was submitted
        self._since_lock = threading.Lock()  # not ``_lock``: a pool replaced under it cancels jobs (``_check``)
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        # Spawned, not forked: a fork would copy the bot's threads and locks mid-flight.
        start = _start_quick if self.quick else _start
        return ProcessPoolExecutor(
            self.workers, mp_context=get_context("spawn"), initializer=start, initargs=(os.getpid(),)
        )

    def up(self, *, start: bool) -> bool:
        """Whether its processes are running; ``start``: start them if not yet (that takes a second of a core: a
        job submitted meanwhile would wait for it)."""
        if self._up is None:
            if not start:
                return False
            try:
                self._up = self.submit(os.getpid)
            except PoolClosed:
                return False
        return self._up.done() and not self._up.cancelled() and self._up.exception() is None

    def behind(self) -> float:
        """Seconds the oldest job not yet answered has waited (0 when none waits)."""
        with self._since_lock:
            oldest = next(iter(self._since.values()), None)
        return 0.0 if oldest is None else time.monotonic() - oldest

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        with self._lock:
            if self._closed:
                raise PoolClosed("the search pool is shut down")
            pool = self._pool
            try:
                future = pool.submit(fn, *args, **kwargs)
            except BrokenProcessPool:  # broken before any job of ours noticed: replace it, submit there
                pool = self._replace_locked(pool)
                future = pool.submit(fn, *args, **kwargs)
        with self._since_lock:
            self._since[future] = time.monotonic()
        future.add_done_callback(lambda f: self._check(pool, f))
        return future

    def _check(self, pool: ProcessPoolExecutor, future: Future[Any]) -> None:
        with self._since_lock:
            self._since.pop(future, None)
        if not future.cancelled() and isinstance(future.exception(), BrokenProcessPool):
            with self._lock:
                if not self._closed:
                    self._replace_locked(pool)

    def _replace_locked(self, broken: ProcessPoolExecutor) -> ProcessPoolExecutor:
        """A new pool instead of ``broken`` (once: the other jobs that died with it find it replaced)."""
        if self._pool is broken:
            log.warning("a search process died; starting a new pool (the jobs it held are played without it)")
            broken.shutdown(wait=False, cancel_futures=True)
            self._pool = self._new()
            self.replaced += 1
        return self._pool

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closed = True
            pool = self._pool
        pool.shutdown(wait=wait, cancel_futures=cancel_futures)


async def automatic_choice(
    pool: Executor | None, view: SeatView, level: str, seed: int, quick: SearchPool | None = None
) -> Action:
    """The automatic player's action at ``level``: the search (``hard``) in ``pool``, the other levels in
    ``quick``'s processes once they are up (started when another decision is still being played in a thread) and
    not behind (``QUICK_LAG_S``), else in a thread (and in a thread too when the process has not answered within
    ``QUICK_LAG_S``: whichever answers first); a search the pool cannot run now is played at ``FALLBACK_LEVEL``
    at once."""
    if level == SEARCHED and pool is not None:
        try:
            return await asyncio.wrap_future(pool.submit(choose, view, level, seed))
        except (BrokenProcessPool, PoolClosed):  # logged once by the pool, not per table
            level = FALLBACK_LEVEL
    if quick is None:
        return await asyncio.to_thread(choose, view, level, seed)
    # Confined to one core, a thread here would take the very core the quick process is behind on, and the
    # interpreter's lock from the loop: there the process is waited for (bench/workers.py's live phase).
    alone = len(os.sched_getaffinity(0)) == 1
    if quick.up(start=quick.thinking > 0) and (alone or quick.behind() < QUICK_LAG_S):
        try:
            there = asyncio.wrap_future(quick.submit(choose, view, level, seed))
            if (await asyncio.wait({there}, timeout=None if alone else QUICK_LAG_S))[0]:
                return there.result()
        except (BrokenProcessPool, PoolClosed):  # played here instead (a new pool takes the next one)
            return await _in_thread(quick, view, level, seed)
        # Not answered in time (the processes are behind): played here too, the first answer taken (the same). The
        # job there is left to run: while it waits, the pool is behind and the next decisions go to threads at once.
        here = asyncio.ensure_future(_in_thread(quick, view, level, seed))
        first = next(iter((await asyncio.wait({there, here}, return_when=asyncio.FIRST_COMPLETED))[0]))
        if first is there and there.exception() is not None:
            return await here
        return first.result()
    return await _in_thread(quick, view, level, seed)


async def _in_thread(quick: SearchPool, view: SeatView, level: str, seed: int) -> Action:
    quick.thinking += 1
    try:
        return await asyncio.to_thread(choose, view, level, seed)
    finally:
        quick.thinking -= 1
