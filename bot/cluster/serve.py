"""Run one worker of several (MAHJONG_WORKERS=1): the application started without PTB's own polling, the shards'
owner (bot.cluster.ownership), the poller (whichever worker holds its lock) and the inbox's consumer.

    serve_workers(application, config)     # blocks until SIGINT/SIGTERM (bot.app.main)

The application is started as ``run_polling`` starts it (``_start`` opens the database and the registry; in
this mode it resumes no table: the owner resumes its shards' as it takes them, then takes up their groups'
league nights). Stopping gives every shard up
at once (the other workers take them up in their next round), then stops the application.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from typing import Any

from telegram.ext import Application

from bot.cluster.consumer import Consumer
from bot.cluster.ownership import Ownership
from bot.cluster.poller import Poller
from bot.cluster.shards import shard_of
from bot.config import Config
from bot.table.key import TableKey
from storage.cluster import Coordinator
from storage.dialect import parse_target

log = logging.getLogger(__name__)

App = Application[Any, Any, Any, Any, Any, Any]


def serve_workers(application: App, config: Config) -> None:
    asyncio.run(_serve(application, config))


async def _serve(application: App, config: Config) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await application.initialize()
    if application.post_init is not None:
        await application.post_init(application)
    await application.start()
    try:
        await work(application, config, stop)
    finally:
        await application.stop()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)
        await application.shutdown()


async def work(application: App, config: Config, stop: asyncio.Event) -> None:
    """Own shards, poll when it falls to this worker, and handle the owned shards' updates, until ``stop``."""
    data = application.bot_data
    db, tables, nights = data.require("db"), data.require("tables"), data.require("nights")
    dsn = parse_target(config.db_path)[1]
    wake = asyncio.Event()

    async def connect() -> Coordinator:
        return await Coordinator.connect(dsn, lambda _payload: wake.set(), member=data.member)

    async def take_up(shards: frozenset[int]) -> None:  # the league nights of the groups of the shards taken
        await nights.start(which=lambda chat: shard_of(TableKey(chat)) in shards)

    # The fences are the edge's: the tables' writes carry them.
    ownership = Ownership(connect, tables, db, wake, fences=tables.edge.fences, taken_up=take_up, rate=data.shared_rate)
    consumer = Consumer(application, db, ownership, wake)
    poller = Poller(application.bot, db, ownership)
    tasks = [
        asyncio.create_task(ownership.run(), name="shards"),
        asyncio.create_task(consumer.run(), name="inbox"),
        asyncio.create_task(poller.run(), name="poller"),
    ]
    log.info("worker started")
    try:
        await stop.wait()
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await ownership.close()
