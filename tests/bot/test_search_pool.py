"""The search's process pool survives its worker's death: the pool is replaced, the jobs that were in the dead
one fail (a table's decision is then played at ``normal`` at once) and every later job runs."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from bot import app as bot_app
from bot import search_pool
from bot.context import BotApplication, BotData
from bot.search_pool import FALLBACK_LEVEL, PoolClosed, SearchPool, automatic_choice
from game.automatic import choose
from game.policy import network
from game.rules import Rules
from game.table import Hand


def _pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def _wait(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.01)


def _kill_worker(pool: SearchPool) -> None:
    """SIGKILL the pool's worker once it runs a job (as the kernel's OOM killer would)."""
    pid = pool.submit(os.getpid).result(timeout=60)
    os.kill(pid, signal.SIGKILL)


def test_a_killed_worker_breaks_only_its_own_jobs_and_the_pool_is_replaced() -> None:
    pool = SearchPool(1)
    try:
        first = pool.submit(os.getpid).result(timeout=60)
        slow = pool.submit(_pid_after, 30)
        time.sleep(0.5)
        os.kill(first, signal.SIGKILL)
        with pytest.raises(BrokenProcessPool):
            slow.result(timeout=30)
        _wait(lambda: pool.replaced == 1)  # the future's callbacks run just after its waiters wake
        # Every later job runs, in a new worker.
        assert pool.submit(os.getpid).result(timeout=60) not in (first, None)
        assert pool.submit(sum, [1, 2, 3]).result(timeout=60) == 6
    finally:
        pool.shutdown(wait=True)


def test_a_submit_to_a_pool_broken_unnoticed_goes_to_a_new_one() -> None:
    pool = SearchPool(1)
    try:
        _kill_worker(pool)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # whichever notices first (a job's future or this submit) replaces it
            try:
                assert pool.submit(sum, [2, 2]).result(timeout=60) == 4
                break
            except BrokenProcessPool:  # submitted in the instant before the dead worker was noticed
                continue
        assert pool.replaced == 1
    finally:
        pool.shutdown(wait=True)


def test_a_decision_whose_worker_dies_is_played_at_normal_at_once() -> None:
    view, seed = Hand(Rules(), 852, dealer=0).view(0), 7  # the dealer's first discard

    async def scenario() -> None:
        pool = SearchPool(1)
        try:
            await asyncio.wrap_future(pool.submit(os.getpid))  # the worker is up
            pid = await asyncio.wrap_future(pool.submit(os.getpid))
            decided = asyncio.create_task(automatic_choice(pool, view, "hard", seed))
            await asyncio.sleep(0.05)
            started = time.monotonic()
            os.kill(pid, signal.SIGKILL)
            action = await asyncio.wait_for(decided, 10)
            assert time.monotonic() - started < 5  # not a wait for a new worker
            assert action == choose(view, FALLBACK_LEVEL, seed)
            # The next decision is searched again, in the new pool.
            assert await automatic_choice(pool, view, "hard", seed) in view.legal
            assert pool.replaced == 1
            pool.shutdown(wait=True)
            assert await automatic_choice(pool, view, "hard", seed) == choose(view, FALLBACK_LEVEL, seed)
            with pytest.raises(PoolClosed):
                pool.submit(os.getpid)
        finally:
            pool.shutdown(wait=True)

    asyncio.run(scenario())


def test_a_search_process_ends_when_its_bot_process_is_killed() -> None:
    """SIGKILL leaves the bot no chance to stop its pool: the search process sees its parent gone and ends."""
    script = (
        "import os, sys, time\n"
        "from bot.search_pool import SearchPool\n"
        "pool = SearchPool(1)\n"
        "print(pool.submit(os.getpid).result(timeout=60), flush=True)\n"
        "time.sleep(60)\n"
    )
    bot = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert bot.stdout is not None
    child = int(bot.stdout.readline())
    os.kill(child, 0)  # running
    bot.send_signal(signal.SIGKILL)
    bot.wait()

    def gone() -> bool:
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            return True
        # A zombie until init reaps it: ended all the same.
        return Path(f"/proc/{child}/stat").read_text().split(") ")[1].startswith("Z")

    _wait(gone)


def _network_loaded() -> int:
    return network.cache_info().currsize


def test_a_search_process_has_the_network_read_before_its_first_job() -> None:
    pool = SearchPool(workers=1)
    try:
        assert pool.submit(_network_loaded).result(timeout=60) == 1
    finally:
        pool.shutdown()


def test_the_lighter_levels_move_to_processes_of_their_own_once_tables_overlap(monkeypatch: pytest.MonkeyPatch) -> None:
    """One table's decisions come one at a time: played in a thread, no process started. Decisions that overlap
    (several tables) start the quick processes, and once they are up every decision is played there, the same."""
    view = Hand(Rules(), 852, dealer=0).view(0)  # the dealer's first discard
    expected = {seed: choose(view, "normal", seed) for seed in range(8)}

    # QUICK_LAG_S: a minute while the process is to keep up (however busy the machine running the tests), 0.3 s
    # where it is to fall behind.
    patient, lag = 60.0, 0.3
    monkeypatch.setattr(search_pool, "QUICK_LAG_S", patient)

    async def scenario() -> None:
        quick = SearchPool(1, quick=True)
        try:
            for seed in range(3):
                assert await automatic_choice(None, view, "normal", seed, quick) == expected[seed]
            assert not quick.up(start=False)  # never started
            together = [automatic_choice(None, view, "normal", seed, quick) for seed in range(8)]
            assert await asyncio.gather(*together) == list(expected.values())
            deadline = time.monotonic() + 60
            while not quick.up(start=False):
                assert time.monotonic() < deadline
                await asyncio.sleep(0.05)

            def no_thread(*args: object) -> None:
                raise AssertionError("played in a thread")

            with monkeypatch.context() as m:
                m.setattr(asyncio, "to_thread", no_thread)
                assert await automatic_choice(None, view, "normal", 5, quick) == expected[5]
                assert await automatic_choice(None, view, "easy", 5, quick) == choose(view, "easy", 5)
            # Many at once, the process keeping up: every one played there.
            threads: list[object] = []

            async def counted(fn: Callable[..., object], *args: object) -> object:
                threads.append(args)
                return fn(*args)

            with monkeypatch.context() as m:
                m.setattr(asyncio, "to_thread", counted)
                together = [automatic_choice(None, view, "normal", seed, quick) for seed in range(8)]
                assert await asyncio.gather(*together) == list(expected.values())
                assert threads == []
                # The process behind (a job there unanswered for longer than the lag): the decisions are
                # played here meanwhile, the same; once it has caught up, there again.
                m.setattr(search_pool, "QUICK_LAG_S", lag)
                slow = asyncio.wrap_future(quick.submit(time.sleep, 4 * lag))
                await asyncio.sleep(2 * lag)
                assert quick.behind() >= lag
                together = [automatic_choice(None, view, "normal", seed, quick) for seed in range(8)]
                assert await asyncio.gather(*together) == list(expected.values())
                assert len(threads) == 8
                await slow
                assert quick.behind() == 0
                m.setattr(search_pool, "QUICK_LAG_S", patient)
                assert await automatic_choice(None, view, "normal", 5, quick) == expected[5]
                assert len(threads) == 8
                m.setattr(search_pool, "QUICK_LAG_S", lag)
                # A decision sent there just before the process fell behind: not answered within the lag, it
                # is played here too, and the first answer taken (the same).
                slow = asyncio.wrap_future(quick.submit(time.sleep, 10 * lag))
                started = time.monotonic()
                assert await automatic_choice(None, view, "normal", 6, quick) == expected[6]
                assert time.monotonic() - started < 5 * lag  # long before the slow job ends
                assert len(threads) == 9
                await slow
                # Confined to one core, the process behind is waited for: a thread would take the same core.
                m.setattr(os, "sched_getaffinity", lambda pid: {0})
                slow = asyncio.wrap_future(quick.submit(time.sleep, 4 * lag))
                await asyncio.sleep(2 * lag)
                assert quick.behind() >= lag
                assert await automatic_choice(None, view, "normal", 7, quick) == expected[7]
                assert slow.done() and len(threads) == 9
            quick.shutdown(wait=True)  # the bot stopping: played in a thread again
            assert await automatic_choice(None, view, "normal", 6, quick) == expected[6]
        finally:
            quick.shutdown(wait=True)

    asyncio.run(scenario())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # a process not yet reaped (a zombie) counts: its pool has not finished with it
    except ProcessLookupError:
        return False
    return True


async def test_the_bots_stop_ends_its_search_processes_before_it_returns() -> None:
    """The bot's stop waits for its pools to end their processes: left closing while the interpreter exits, a pool's
    manager thread and Python's own exit hook raced on its wake-up pipe ("Bad file descriptor" and a stack in
    the log, seen when a worker stopped in the suite)."""
    data = BotData(pool=SearchPool(1), quick=SearchPool(1, quick=True))
    pids = [pool.submit(os.getpid).result(timeout=60) for pool in (data.pool, data.quick)]
    assert all(_alive(pid) for pid in pids)
    await bot_app._stop(cast(BotApplication, SimpleNamespace(bot_data=data)))
    assert not any(_alive(pid) for pid in pids)
