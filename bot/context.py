"""The application's typed context: what every handler and timer reaches through ``context``.

PTB keeps one ``bot_data`` object per application; here it is ``BotData``, whose fields are filled once by the
start-up sequence (``bot.app``). Handlers are typed ``async def h(update: Update, context: BotContext)`` and read
``context.tables``, ``context.db``, ``context.outbox``, ``context.nights`` and ``context.config``: no string
keys, no casts.

    application = Application.builder().context_types(CONTEXT_TYPES)...build()
    application.bot_data.config = config          # before run; the rest is set by bot.app's start-up
"""

from __future__ import annotations

import asyncio
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeAlias

from telegram.ext import Application, CallbackContext, ContextTypes, ExtBot, JobQueue

from bot.config import Config
from storage.codec import Clock, utc_now
from storage.database import Database

if TYPE_CHECKING:
    from bot.cluster.shared_rate import RedisRate
    from bot.host.registry import Tables
    from bot.league.nights import LeagueNights
    from bot.live.web import LiveServer
    from bot.outbox import Outbox
    from bot.review_queue import Reviews
    from storage.cluster import Lease


class NotStarted(RuntimeError):
    """A service read before the application's start-up made it."""


@dataclass
class BotData:
    """The application's services; each is set once by the start-up sequence."""

    config: Config | None = None
    db: Database | None = None
    outbox: Outbox | None = None
    tables: Tables | None = None
    nights: LeagueNights | None = None
    reviews: Reviews | None = None
    pool: Executor | None = None  # processes for the search (hard level, reviews)
    quick: Executor | None = None  # processes for the other levels once several tables' decisions overlap
    live: LiveServer | None = None  # the Mini App's web server (bot.live), when configured
    shared_rate: RedisRate | None = None  # several workers' write rate in Redis (bot.cluster), when configured
    member: int | None = None  # this worker's number among several (storage.fencing.worker_number), when so
    lease: Lease | None = None  # a worker's lease on its shards (storage.cluster): it writes to chats while it holds
    clock: Clock = utc_now  # the league nights' clock (UTC); tests set a controlled one
    languages_met: set[int] = field(default_factory=set)  # users whose Telegram language is stored
    # (group, user) → (when asked, monotonic; whether a member): bot.handlers.chat_checks.is_member's answers
    members: dict[tuple[int, int], tuple[float, bool]] = field(default_factory=dict)
    tasks: set[asyncio.Task[None]] = field(default_factory=set)  # start-up's work beside the polling (bot.startup)
    # (chat, slot) → the step its replay message shows: bot.handlers.replay_commands moves from there
    replay_steps: dict[tuple[int, str], int] = field(default_factory=dict)

    def require(self, name: str) -> Any:
        value = getattr(self, name)
        if value is None:
            raise NotStarted(f"{name} is not ready: the application has not started")
        return value


class BotContext(CallbackContext[ExtBot[Any], dict[Any, Any], dict[Any, Any], BotData]):
    """``CallbackContext`` with the application's services as typed properties."""

    @property
    def config(self) -> Config:
        config: Config = self.bot_data.require("config")
        return config

    @property
    def db(self) -> Database:
        db: Database = self.bot_data.require("db")
        return db

    @property
    def outbox(self) -> Outbox:
        outbox: Outbox = self.bot_data.require("outbox")
        return outbox

    @property
    def tables(self) -> Tables:
        tables: Tables = self.bot_data.require("tables")
        return tables

    @property
    def reviews(self) -> Reviews:
        reviews: Reviews = self.bot_data.require("reviews")
        return reviews

    @property
    def nights(self) -> LeagueNights:
        nights: LeagueNights = self.bot_data.require("nights")
        return nights


CONTEXT_TYPES: ContextTypes[BotContext, dict[Any, Any], dict[Any, Any], BotData] = ContextTypes(
    context=BotContext, bot_data=BotData
)
BotApplication: TypeAlias = Application[ExtBot[Any], BotContext, dict[Any, Any], dict[Any, Any], BotData, JobQueue[Any]]
