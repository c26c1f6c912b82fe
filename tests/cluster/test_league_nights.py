"""League nights with several workers (bot.cluster, bot.league.nights) against the real PostgreSQL: two workers
in-process (each the application as `python -m bot` builds it, served by bot.cluster.serve.work), a clock the test
moves. The night of a group runs on the worker that holds the group's shard, alone (the other's timeline does
nothing with it); that worker stops mid-night, and the other, taking its shards over, resumes the night's table
and finishes the night: its results and season table shown once, every hand settled."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

from telegram.ext import Application

import bot.app as bot_main
from bot.cluster.serve import work
from bot.config import Config
from sandbox import FakeTelegram
from tests.league.conftest import Clock, db_of, nights_of
from tests.league.test_nights import FRIDAY, create, group_text, night_of, wait_night_over, world

App = Application[Any, Any, Any, Any, Any, Any]
SHARDS_HELD = """SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted
AND classid = hashtext('mahjong shard ' || current_schema())::oid GROUP BY pid"""


@contextlib.asynccontextmanager
async def worker(tg: FakeTelegram, url: str, clock: Clock) -> AsyncIterator[tuple[App, asyncio.Task[None]]]:
    """One worker in this process, with fast timers; its serving task (cancel it: the worker stops)."""
    config = Config(token=tg.token, db_path=url, api_base_url=tg.base_url, file_base_url=tg.base_file_url,
                    claim_seconds=0.05, turn_seconds=0.05, bot_delay=0.0, next_hand_seconds=0.05,
                    group_interval=0.0, private_interval=0.0, passive_interval=0.1, global_rate=1000.0,
                    match_seed=7, workers=True)  # fmt: skip
    app = bot_main.build_application(config)
    app.bot_data.clock = clock
    await app.initialize()
    assert app.post_init is not None
    await app.post_init(app)
    await app.start()
    serving = asyncio.create_task(work(app, config, asyncio.Event()))
    try:
        yield app, serving
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
        await app.stop()
        assert app.post_shutdown is not None
        await app.post_shutdown(app)
        await app.shutdown()


async def _until(check: Any, what: str, timeout: float = 20) -> None:
    for _ in range(int(timeout / 0.05)):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise TimeoutError(what)


async def test_a_groups_night_runs_on_its_shards_worker_and_goes_on_where_it_moves(
    fake_telegram: FakeTelegram, postgres_url: str
) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob", "Cai", "Dee"])
    clock = Clock(FRIDAY - timedelta(hours=3))
    async with contextlib.AsyncExitStack() as stack:
        (a, a_serving), (b, b_serving) = [
            await stack.enter_async_context(worker(tg, postgres_url, clock)) for _ in "ab"
        ]

        async def shared() -> bool:  # 32 shards each (no more moving), the league nights taken up, and the group's
            # nights on exactly one worker (a shard's lock is held a moment before its fence, which ``owns`` reads)
            held = [r["n"] for r in await db_of(a).fetchall(SHARDS_HELD)]
            ready = all(nights_of(app).ready.is_set() for app in (a, b))
            return held == [32, 32] and ready and sum(nights_of(app).owns(group.id) for app in (a, b)) == 1

        await _until(shared, "both workers own their shards, one of them the group's")
        (owner, serving), other = ((a, a_serving), b) if nights_of(a).owns(group.id) else ((b, b_serving), a)
        league_id = await create(owner, group, "Friday | fri 20:00 | Asia/Shanghai | 3 hands | kaikoufan")
        night = await night_of(owner, league_id)
        for user in users:
            await nights_of(owner).sign(night.id, user.id, user.first_name, True)

        clock.now = FRIDAY + timedelta(seconds=1)
        await nights_of(other).run_due()  # not its group's night: nothing happens
        assert (await db_of(other).leagues.night(night.id)).status != "running"
        await nights_of(owner).run_due()
        assert (await db_of(owner).leagues.night(night.id)).status == "running"

        async def a_hand_settled() -> bool:
            return bool(await db_of(owner).fetchall("SELECT 1 FROM hands WHERE status = 'done'"))

        await _until(a_hand_settled, "the night's first hand settled")
        serving.cancel()  # the owner stops mid-night: its tables stop, its locks go; the other takes its shards
        await wait_night_over(tg, group, 1)
        survivor_db = db_of(other)
        assert (await survivor_db.leagues.night(night.id)).status == "done"
        assert len(await survivor_db.leagues.night_results(night.id)) == 4
        settled = await survivor_db.fetchall("SELECT status FROM hands")
        assert [r["status"] for r in settled] == ["done"] * 3
    text = group_text(tg, group)
    assert text.count("联赛「Friday」开始! 今晚: Ann, Bob, Cai, Dee") == 1
    captions = [m.caption or "" for m in tg.messages(group.id) if m.photo is not None]
    assert sum("战绩" in c for c in captions) == 1 and sum("积分榜" in c for c in captions) == 1
