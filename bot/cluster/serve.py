"""Run one worker of several (MAHJONG_WORKERS=1): the application started without PTB's own polling, the shards'
owner (bot.cluster.ownership), the inbox's consumer, and how updates come in: the poller (whichever worker holds
its lock), or with MAHJONG_WEBHOOK_URL the webhook on every worker (bot.cluster.hook). With the Mini App, its
pages on this worker reach tables on the others through the relay (bot.cluster.live_relay). One table a person
is the database's (bot.cluster.seating).

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
from typing import TYPE_CHECKING, Any

from telegram.ext import Application

from bot.cluster.consumer import Consumer
from bot.cluster.election import Election
from bot.cluster.hook import HookServer, register
from bot.cluster.ownership import Ownership
from bot.cluster.poller import Poller
from bot.cluster.seating import keep
from bot.cluster.shards import shard_of
from bot.config import Config
from bot.live.start import start_live, watching
from bot.quick.matchmaker import Matchmaker
from bot.table.key import TableKey
from storage.cluster import Coordinator
from storage.dialect import parse_target

if TYPE_CHECKING:
    from bot.cluster.live_relay import Relay

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


def _live(application: App, config: Config, ownership: Ownership) -> Relay | None:
    """The live table on this worker, its pages reaching any worker's tables through the relay (None: no Mini App)."""
    tables = application.bot_data.require("tables")
    hub = tables.edge.hub
    if hub is None or config.redis_url is None:
        return None
    from bot.cluster.live_relay import Relay  # redis is needed only here

    may_watch = watching(application)
    relay = Relay.connect(config.redis_url, config.token.split(":")[0], tables, hub, may_watch)
    application.bot_data.live = start_live(application, hub, may_watch, relay, healthy=lambda: ownership.joined)
    return relay


def _intake(
    application: App, config: Config, ownership: Ownership, tasks: list[asyncio.Task[Any]]
) -> HookServer | None:
    """How updates come in: the webhook on every worker (its listener, returned), or the poller (one worker's)."""
    db = application.bot_data.require("db")
    if config.webhook_url is None:
        tasks.append(asyncio.create_task(Poller(application.bot, db, ownership).run(), name="poller"))
        return None
    hook = HookServer(config, application.bot, db, lambda: ownership.joined)
    hook.start()
    tasks.append(asyncio.create_task(register(application.bot, config), name="setWebhook"))
    return hook


async def work(application: App, config: Config, stop: asyncio.Event) -> None:
    """Own shards, take updates in (the webhook, or polling when it falls to this worker), and handle the owned
    shards' updates, until ``stop``."""
    data = application.bot_data
    db, tables, nights = data.require("db"), data.require("tables"), data.require("nights")
    dsn = parse_target(config.db_path)[1]
    wake = asyncio.Event()

    async def connect() -> Coordinator:
        return await Coordinator.connect(dsn, lambda _payload: wake.set(), member=data.member, lease=data.lease)

    async def take_up(shards: frozenset[int]) -> None:  # the league nights of the groups of the shards taken
        await nights.start(which=lambda chat: shard_of(TableKey(chat)) in shards)

    # The fences are the edge's: the tables' writes carry them.
    ownership = Ownership(connect, tables, db, wake, fences=tables.edge.fences, taken_up=take_up, rate=data.shared_rate)
    relay = _live(application, config, ownership)
    consumer = Consumer(application, db, ownership, wake, pressed=relay.pressed if relay is not None else None)
    fences = tables.edge.fences

    async def matchmaking() -> None:
        log.info("this worker matches the quick-match queue now")

    # One matchmaker among the workers (bot.cluster.election); its tables on shards this worker holds.
    election = Election(ownership, "matchmaker", matchmaking)
    matchmaker = Matchmaker(
        config, db, tables, tables.edge.outbox, election.lead, fences.holds, application.bot.username
    )
    tasks = [
        asyncio.create_task(ownership.run(), name="shards"),
        asyncio.create_task(consumer.run(), name="inbox"),
        asyncio.create_task(keep(db, tables, ownership), name="seated"),
        asyncio.create_task(matchmaker.run(), name="matchmaker"),
    ]
    if relay is not None:
        tasks.append(asyncio.create_task(relay.run(), name="live relay"))
    hook = _intake(application, config, ownership, tasks)
    log.info("worker started")
    try:
        await stop.wait()
    finally:
        if hook is not None:
            hook.stop()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await ownership.close()
