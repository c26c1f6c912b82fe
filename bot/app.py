"""Run the bot: ``python -m bot`` or ``mahjong-bot`` (long polling, or a webhook: bot.webhook). Configuration:
see bot.config; ``python -m bot --check-config`` checks it without connecting.

``build_application(config)`` makes the PTB Application (used by the tests and the bench as well): every
handler is registered from the one list ``HANDLERS`` below; ``main()`` reads the configuration (and ``.env``),
sets up logging and serves until interrupted. Start-up (``_start``), in this order: open the database, make
the outbox and the tables' registry (which follows the outbox's refusals), publish the command menu (in the
background, retried: ``bot.startup``), resume every unfinished table (from storage alone), then start the league
nights (as the job queue's first job). Telegram failing for a moment at start-up (getMe, the menu, the webhook's
registration) is retried with backoff, never the end of the process.
"""

from __future__ import annotations

import asyncio
import faulthandler
import logging
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from telegram import Update
from telegram.ext import (
    Application,
    BaseHandler,
    CallbackQueryHandler,
    ChatMemberHandler,
    CommandHandler,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import HTTPXRequest

from bot import i18n
from bot.callbacks import (
    FLEE_PATTERN,
    LANGUAGE_PATTERN,
    LEAGUE_PATTERN,
    PLAY_PATTERN,
    QUICK_PATTERN,
    REPLAY_PATTERN,
    REVIEW_PATTERN,
    SETTINGS_PATTERN,
    STANDINGS_PATTERN,
)
from bot.cluster.seating import claimer as seated_claim
from bot.cluster.shards import shard_of
from bot.commands import COMMANDS, Callback
from bot.config import Config, ConfigError, check_config, load_dotenv
from bot.context import CONTEXT_TYPES, BotApplication, BotContext, BotData
from bot.handlers import (
    chat_checks,
    info_commands,
    league_commands,
    quick_commands,
    replay_commands,
    review_commands,
    settings_commands,
    standings_commands,
    table_commands,
)
from bot.host.edge import Edge
from bot.host.registry import Tables
from bot.host.resume import fill_titles, resume_tables
from bot.league.nights import LeagueNights
from bot.leased_request import LeasedRequest
from bot.limits import CONNECTIONS, SharedRate
from bot.live.hub import Hub
from bot.live.start import start_live, watching
from bot.local_sandbox import banner, follow_seats, open_sandbox
from bot.logs import setup_logging
from bot.outbox import Outbox
from bot.quick.matchmaker import Matchmaker
from bot.ratelimit import ChatRateLimiter
from bot.review_queue import Reviews
from bot.search_pool import SearchPool
from bot.startup import StartingApplication, cancel_all, in_background, publish_commands, stop_once
from bot.table.key import TableKey
from bot.updates import UpdatesRequest, once, tls_context
from bot.webhook import serve
from rendering import warm_up
from storage.database import Database
from storage.dialect import sqlite_file
from storage.fencing import Fences, worker_number

if TYPE_CHECKING:
    from storage.cluster import Lease

log = logging.getLogger("bot")

# Commands run from new messages only: an edited message never runs its command again, a channel post none.
SWITCH_INTERVAL = 0.001  # seconds a thread holds the interpreter before the others may run (Python: 0.005)
NEW_MESSAGE = filters.UpdateType.MESSAGE


def _command(name: str, callback: Callback) -> CommandHandler[Any, None]:
    return CommandHandler(name, callback, filters=NEW_MESSAGE)


# Every handler of the bot. A button press goes to the first pattern it matches; one that matches none is stale.
# The first that matches an update handles it: a channel's automatic forward or a command sent as a chat
# (an anonymous admin) goes no further.
HANDLERS: list[BaseHandler[Any, BotContext, Any]] = [
    MessageHandler(filters.StatusUpdate.MIGRATE, table_commands.migrated),
    ChatMemberHandler(table_commands.bot_membership, ChatMemberHandler.MY_CHAT_MEMBER),
    MessageHandler(filters.IS_AUTOMATIC_FORWARD, chat_checks.ignore),
    MessageHandler(NEW_MESSAGE & filters.SenderChat.ALL & filters.COMMAND, chat_checks.sent_as_chat),
    *(_command(c.name, c.handler) for c in COMMANDS),  # bot.commands: the one list of commands
    MessageHandler(NEW_MESSAGE & filters.ChatType.PRIVATE & filters.Regex(r"^\s*\{"), info_commands.calc_message),
    # Anything else said privately (plain text, an unknown /command): a pointer to /help.
    MessageHandler(NEW_MESSAGE & filters.ChatType.PRIVATE & filters.TEXT, info_commands.private_fallback),
    CallbackQueryHandler(table_commands.press, pattern=PLAY_PATTERN),
    CallbackQueryHandler(settings_commands.settings_press, pattern=SETTINGS_PATTERN),
    CallbackQueryHandler(standings_commands.standings_press, pattern=STANDINGS_PATTERN),
    CallbackQueryHandler(league_commands.signup_press, pattern=LEAGUE_PATTERN),
    CallbackQueryHandler(info_commands.lang_press, pattern=LANGUAGE_PATTERN),
    CallbackQueryHandler(replay_commands.replay_press, pattern=REPLAY_PATTERN),
    CallbackQueryHandler(review_commands.review_press, pattern=REVIEW_PATTERN),
    CallbackQueryHandler(table_commands.flee_press, pattern=FLEE_PATTERN),
    CallbackQueryHandler(quick_commands.quick_press, pattern=QUICK_PATTERN),
    CallbackQueryHandler(table_commands.stale_press),
]


def _request(lease: Lease | None) -> HTTPXRequest:
    """Every request but getUpdates: a worker's only while its lease holds (bot.leased_request)."""
    options: dict[str, Any] = {"pool_timeout": 30, "httpx_kwargs": {"verify": tls_context()}}
    return HTTPXRequest(CONNECTIONS, **options) if lease is None else LeasedRequest(lease.holds, CONNECTIONS, **options)


def build_application(config: Config) -> BotApplication:
    lease = worker_lease(config)
    application: BotApplication = (
        Application.builder()
        .application_class(StartingApplication)  # getMe retried while Telegram fails for a moment
        .token(config.token)
        .base_url(config.api_base_url)
        .base_file_url(config.file_base_url)
        .context_types(CONTEXT_TYPES)
        # The outbox paces every write; the limiter is the safety net: a 429 pauses its own chat, never the bot.
        .rate_limiter(ChatRateLimiter())
        .concurrent_updates(256)  # a slow table never holds another table's updates
        .request(_request(lease))
        .get_updates_request(UpdatesRequest())  # an update it cannot read is skipped, not asked for forever
        .post_init(_start)
        .post_shutdown(_stop)
        .build()
    )
    application.bot_data.config = config
    application.bot_data.lease = lease
    # Before anything: an update Telegram sent again (already handled, maybe before a restart) goes no further.
    application.add_handler(TypeHandler(Update, once), group=-3)
    # Then, for every update: the first time the bot meets someone, their Telegram language is stored.
    application.add_handler(TypeHandler(Update, chat_checks.came_back), group=-2)
    application.add_handler(TypeHandler(Update, info_commands.remember_language), group=-1)
    application.add_handlers(HANDLERS)
    application.add_error_handler(table_commands.on_error)
    return application


async def _start(application: BotApplication) -> None:
    data = application.bot_data
    config: Config = data.require("config")
    database_file = sqlite_file(config.db_path)
    if database_file is not None:
        database_file.parent.mkdir(parents=True, exist_ok=True)
    data.member = worker_number() if config.workers else None
    data.db = db = await Database.open(config.db_path, member=data.member)
    data.outbox = outbox = Outbox(
        application.bot,
        group_interval=config.group_interval,
        idle_interval=config.group_idle_interval,
        private_interval=config.private_interval,
        passive_interval=config.passive_interval,
        global_rate=config.global_rate if config.redis_url else config.worker_rate,
        remember=lambda chat, slot, message, photo: db.live_messages.remember(chat, slot, message, is_photo=photo),
        shared_rate=shared_rate(data, config),
    )
    jobs = application.job_queue
    assert jobs is not None, "install python-telegram-bot[job-queue]"
    # The search runs in other processes (spawned: no copy of this one's threads), by default one core left to the loop.
    data.pool = pool = SearchPool(config.search_workers)  # replaced whenever a worker dies
    hub = Hub(config, time.monotonic) if config.webapp_url else None  # the Mini App's live pages
    fences = Fences(shard_of) if config.workers else None  # a worker's shards' fences (bot.cluster.ownership)
    data.quick = quick = SearchPool(config.search_workers, quick=True)  # the other levels, once tables overlap
    edge = Edge(config, db, outbox, application.bot, pool, hub, fences, quick)
    data.tables = tables = Tables(config, edge, claim=seated_claim(db) if config.workers else None)  # 1 table a person
    data.live = start_live(application, hub, watching(application)) if hub and not config.workers else None  # serve
    data.reviews = Reviews(db, outbox, pool, config.review_samples)
    # A group migrated, a chat that answers 403, a forum topic gone: the tables concerned are told.
    tables.follow(outbox.refusals)
    in_background(data, publish_commands(application.bot), "the command menu")  # retried, never in the way
    in_background(data, asyncio.to_thread(warm_up), "the pictures' fonts")  # the first picture comes sooner
    if config.workers:  # each worker resumes the tables, and runs the league nights, of the shards it takes
        assert fences is not None
        data.nights = LeagueNights(db, tables, jobs, data.clock, owns=lambda chat: fences.holds(TableKey(chat)))
        log.info("bot @%s started as one of the workers (%d search processes)", application.bot.username, pool.workers)
        return
    stop_once(asyncio.get_running_loop())  # PTB's own loop (bot.cluster.serve has its own stop)
    resumed = await resume_tables(tables, db)  # from storage alone: no request to Telegram before polling
    matchmaker = Matchmaker(config, db, tables, outbox, bot_username=application.bot.username)
    in_background(data, matchmaker.run(), "the quick-match queue")  # the one matchmaker
    in_background(data, fill_titles(tables, db, application.bot), "the titles of older tables")
    log.info("bot @%s started; %d unfinished hand(s) resumed", application.bot.username, resumed)
    data.nights = nights = LeagueNights(db, tables, jobs, data.clock)

    async def catch_up(context: BotContext) -> None:
        await nights.start()

    jobs.run_once(catch_up, 0, name="league start-up", job_kwargs={"misfire_grace_time": None})


def worker_lease(config: Config) -> Lease | None:
    """A worker's lease on its shards, renewed by its coordinator (bot.cluster.serve), read by its requests."""
    if not config.workers:
        return None
    from storage.cluster import Lease  # asyncpg (the `workers` extra) is needed only here

    return Lease()


def shared_rate(data: BotData, config: Config) -> SharedRate | None:
    """Several workers with Redis: the overall write rate is one bucket there (bot.cluster.shared_rate); without
    Redis each worker keeps its share (global_rate / MAHJONG_WORKERS_EXPECTED); one process: its own Throttle."""
    if not config.workers or config.redis_url is None:
        return None
    from bot.cluster.shared_rate import RedisRate  # redis is needed only here

    key = f"mahjong:writes:{config.token.split(':')[0]}"  # the bot's own bucket (its id, never its secret)
    data.shared_rate = RedisRate.connect(config.redis_url, key, config.global_rate, config.worker_rate)
    return data.shared_rate


async def _stop(application: BotApplication) -> None:
    data = application.bot_data
    await cancel_all(data)
    if data.live is not None:
        data.live.stop()
    if data.tables is not None:  # what per-id state is left (bounded by the real tables, not by junk)
        log.info("stopping; state %s", " ".join(f"{k}={v}" for k, v in data.tables.state_size().items()))
        await data.tables.close()
    if data.outbox is not None:
        await data.outbox.close()
    if data.shared_rate is not None:
        await data.shared_rate.close()
    if data.db is not None:
        await data.db.close()
    # Waited for (the jobs queued cancelled, a running one ends within its budget): a pool left closing as the
    # interpreter exits races Python's own exit hook on its wake-up pipe, a stack in the log at the stop.
    for pool in (data.pool, data.quick):
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


def main() -> None:
    if sys.argv[1:] == ["--check-config"]:  # validate without connecting: exit 0, or 2 with the reason
        status, message = check_config()
        print(message, file=sys.stderr if status else sys.stdout)
        sys.exit(status)
    load_dotenv(".env")
    try:
        local = open_sandbox(os.environ)  # no token: the local sandbox stands in for Telegram
        config = Config.from_env(local[1] if local else None)
    except ConfigError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    setup_logging(config.log_level, secrets=[config.token, config.webhook_secret or ""])
    # The automatic players and the pictures run in threads: the event loop (presses, the live table's frames)
    # gets the interpreter back every millisecond rather than every five (bench/live.py).
    sys.setswitchinterval(SWITCH_INTERVAL)
    # A process that stops answering can be asked where it is stuck, even with its event loop blocked:
    # `kill -USR1 <pid>` writes every thread's stack to stderr (the tests do so before killing a bot that hung);
    # one that crashes in C code (a segfault, an abort) leaves them there too instead of vanishing without a word.
    faulthandler.enable(all_threads=True)
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    if local:
        print(banner(local[0]), flush=True)
    i18n.load()
    application = build_application(config)
    if local:
        follow_seats(application, local[0].world)  # "Play against the bot" knows where its person sits
    if config.workers:
        from bot.cluster.serve import serve_workers  # asyncpg (the `workers` extra) is needed only here

        serve_workers(application, config)  # one of several sharing PostgreSQL: bot.cluster
    else:
        serve(application, config)
