"""The Mini App's server started in the bot's loop (bot.app for one process, bot.cluster.serve for a worker).

server = start_live(application, hub, watching(application))        # one process
server = start_live(application, hub, may_watch, relay, healthy)     # a worker: pages reach the others' tables
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from bot.config import Config
from bot.context import BotApplication, BotContext
from bot.handlers import chat_checks
from bot.host.registry import Tables
from bot.live.hub import Hub
from bot.live.web import LiveServer, MayWatch, Relaying, Services
from bot.table.key import TableKey

log = logging.getLogger(__name__)


def watching(application: BotApplication) -> MayWatch:
    """Who may watch a table: anyone in the group (getChatMember, cached as for the commands)."""

    async def may_watch(chat_id: int, user_id: int) -> bool | None:
        if TableKey(chat_id).is_quick:  # a quick match has no group to be a member of: anyone may watch it
            return True
        try:
            return await chat_checks.is_member(BotContext(application), chat_id, user_id)
        except chat_checks.Unanswered as e:  # the page is asked to try again (bot.live.web)
            log.info("live: %s", e)
            return None

    return may_watch


def start_live(
    application: BotApplication,
    hub: Hub,
    may_watch: MayWatch,
    relay: Relaying | None = None,
    healthy: Callable[[], bool] = lambda: True,
) -> LiveServer:
    """The Mini App's server in this loop: a page closed brings its person's picture up to date; with several
    workers, a page whose table is another worker's goes through ``relay``, and ``healthy`` is what /healthz says."""
    data = application.bot_data
    tables: Tables = data.require("tables")
    config: Config = data.require("config")
    username = application.bot.username
    server = LiveServer(Services(config, tables, hub, data.require("db"), may_watch, username, relay, healthy))
    try:
        server.start()
    except OSError as e:  # the bot plays on, without its page
        host, port = config.webapp_listen
        log.error("the Mini App cannot listen on %s:%s (%s): set MAHJONG_WEBAPP_LISTEN", host, port, e.strerror)
    return server
