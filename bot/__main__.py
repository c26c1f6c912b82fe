"""Run the bot: ``python -m bot`` or ``mahjong-bot`` (long polling, or a webhook: bot.webhook). Configuration:
see bot.config; ``python -m bot --check-config`` checks it without connecting (bot.ops).

``build_application(config)`` makes the PTB Application (used by the tests and the bench as well);
``main()`` reads the configuration (and ``.env``), sets up logging and polls until interrupted.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from telegram.ext import AIORateLimiter, Application

from bot import i18n, info_cmds, ops, settings_menu, standings_cmds
from bot.config import Config, ConfigError, load_dotenv
from bot.handlers import add_handlers
from bot.info_cmds import publish_commands
from bot.league_handlers import register as register_leagues
from bot.manager import TableManager
from bot.outbox import Outbox
from bot.webhook import serve
from storage.database import Database

log = logging.getLogger("bot")


def build_application(config: Config) -> Application[Any, Any, Any, Any, Any, Any]:
    application = (
        Application.builder()
        .token(config.token)
        .base_url(config.api_base_url)
        .base_file_url(config.file_base_url)
        # The outbox paces every write; PTB's limiter is the safety net, retrying a 429 it meets.
        .rate_limiter(AIORateLimiter(max_retries=3))
        .concurrent_updates(256)  # a slow table never holds another table's updates
        .connection_pool_size(64)
        .pool_timeout(30)
        .post_init(_on_start)
        .post_shutdown(_on_stop)
        .build()
    )
    application.bot_data["config"] = config
    add_handlers(application)
    register_leagues(application)
    for module in (settings_menu, standings_cmds, info_cmds, ops):
        module.register(application)
    return application


async def _on_start(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    config: Config = application.bot_data["config"]
    Path(config.db_path).parent.mkdir(parents=True, exist_ok=True)
    db = await Database.open(config.db_path)
    outbox = Outbox(
        application.bot,
        group_interval=config.group_interval,
        private_interval=config.private_interval,
        passive_interval=config.passive_interval,
        global_rate=config.global_rate,
    )
    assert application.job_queue is not None, "install python-telegram-bot[job-queue]"
    manager = TableManager(config, db, outbox, application.job_queue, application.bot)
    application.bot_data.update(db=db, outbox=outbox, manager=manager)
    await publish_commands(application.bot)
    resumed = await manager.resume()
    log.info("bot @%s started; %d unfinished hand(s) resumed", application.bot.username, resumed)


async def _on_stop(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    outbox: Outbox | None = application.bot_data.get("outbox")
    if outbox is not None:
        await outbox.close()
    db: Database | None = application.bot_data.get("db")
    if db is not None:
        await db.close()


def main() -> None:
    if sys.argv[1:] == ["--check-config"]:  # validate without connecting: exit 0, or 2 with the reason
        status, message = ops.check_config()
        print(message, file=sys.stderr if status else sys.stdout)
        sys.exit(status)
    load_dotenv(".env")
    try:
        config = Config.from_env()
    except ConfigError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    ops.setup_logging(config.log_level)
    i18n.load()
    serve(build_application(config), config)


if __name__ == "__main__":
    main()
