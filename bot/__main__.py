"""Run the bot: ``python -m bot`` or ``mahjong-bot`` (long polling). Configuration: see bot.config.

``build_application(config)`` makes the PTB Application (used by the tests and the bench as well);
``main()`` reads the configuration (and ``.env``), sets up logging and polls until interrupted.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from telegram import BotCommand, Update
from telegram.ext import AIORateLimiter, Application

from bot.config import Config, ConfigError, load_dotenv
from bot.handlers import add_handlers
from bot.league_handlers import register as register_leagues
from bot.manager import TableManager
from bot.outbox import Outbox
from storage.database import Database

log = logging.getLogger("bot")

BOT_COMMANDS = (
    ("newgame", "开桌 · open a table"),
    ("join", "入座 · sit down"),
    ("leave", "离座 · stand up"),
    ("begin", "开局 · deal"),
    ("flee", "逃跑 · flee (penalty)"),
    ("stop", "结束 · end the game"),
    ("help", "帮助 · help"),
)


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
    await application.bot.set_my_commands([BotCommand(name, about) for name, about in BOT_COMMANDS])
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
    load_dotenv(".env")
    try:
        config = Config.from_env()
    except ConfigError as e:
        print(e, file=sys.stderr)
        sys.exit(2)
    logging.basicConfig(level=config.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("httpx").setLevel(logging.WARNING)
    build_application(config).run_polling(allowed_updates=Update.ALL_TYPES)


if __name__ == "__main__":
    main()
