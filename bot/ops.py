"""Operations: structured logs, the operators' /status, and ``python -m bot --check-config``.

Logs: ``setup_logging(level)`` writes one line per record, ``time level logger: message``; the game's own
lines (logger ``bot.play``) are ``key=value`` pairs, one per action, with the table, hand and seat and never a
hidden tile (an 暗杠's tile and the hand seeds are left out)::

    2026-11-29 12:00:01,234 INFO bot.play: event=action table=-1001000000001 hand=7 seq=12 seat=2 kind=peng tile=5m

``log_event("hand_start", table=..., hand=...)`` writes one such line. ``ErrorCounter`` (installed by
``setup_logging``) counts ERROR records since start-up for /status.

/status answers the ids listed in ``MAHJONG_ADMIN_IDS`` only: tables running, hands started today (UTC),
errors logged since start-up, writes sent. ``check_config(env)`` reads the configuration as ``python -m bot``
would and checks what can be checked without Telegram: exit status 0, or 2 with the reason.
"""

from __future__ import annotations

import logging
import os
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from telegram import Update
from telegram.ext import Application, CommandHandler, ContextTypes

from bot import i18n
from bot.config import Config, ConfigError, load_dotenv
from bot.i18n import t
from game.table import Action
from game.tiles import tile_name

if TYPE_CHECKING:
    from bot.manager import TableManager

play_log = logging.getLogger("bot.play")
_SAFE_VALUE = re.compile(r"^[^\s\"=]+$")
# A bot token as @BotFather issues them: the bot's id, a colon, a secret.
_TOKEN = re.compile(r"^[0-9]{1,20}:[A-Za-z0-9_-]{20,}$")
_HIDDEN_TILE_KINDS: Final = frozenset({"an_gang"})


def _value(v: object) -> str:
    s = str(v)
    return s if _SAFE_VALUE.match(s) else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def log_event(event: str, **fields: object) -> None:
    """One ``key=value`` line on the ``bot.play`` logger (None values are left out)."""
    if play_log.isEnabledFor(logging.INFO):
        pairs = " ".join(f"{k}={_value(v)}" for k, v in fields.items() if v is not None)
        play_log.info("event=%s %s", event, pairs)


def log_action(table: int, hand: int, seq: int, action: Action) -> None:
    """The line for one stored action; an 暗杠's tile is a secret and stays out."""
    tile = None if action.tile is None or action.kind in _HIDDEN_TILE_KINDS else tile_name(action.tile)
    log_event("action", table=table, hand=hand, seq=seq, seat=action.seat, kind=action.kind, tile=tile)


class ErrorCounter(logging.Handler):
    """Counts ERROR (and worse) records: /status shows how many since start-up."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0
        self.started = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


errors = ErrorCounter()


def setup_logging(level: str) -> None:
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("httpx", "apscheduler"):  # a line per request or timer would drown the game's lines
        logging.getLogger(chatty).setLevel(logging.WARNING)
    root = logging.getLogger()
    if errors not in root.handlers:
        root.addHandler(errors)


# --- /status ------------------------------------------------------------------------------------------------
def start_of_today(now: datetime | None = None) -> datetime:
    now = now or datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


async def status_text(manager: TableManager, lang: str) -> str:
    tables = manager.tables.values()
    playing = sum(1 for table in tables if table.state == "playing")
    hands_today = await manager.db.hands.count_since(start_of_today(manager.db.now()))
    uptime_min = int((time.monotonic() - errors.started) // 60)
    return t("status", lang, tables=len(manager.tables), playing=playing, hands=hands_today, errors=errors.count,
             writes=manager.outbox.writes, pending=manager.outbox.pending(), uptime=uptime_min)


async def status_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager: TableManager = context.application.bot_data["manager"]
    lang = await i18n.language_for(manager.db, chat.id, user)
    config: Config = manager.config
    if user.id not in config.admin_ids:
        manager.outbox.announce(chat.id, t("status_denied", lang))
        return
    manager.outbox.announce(chat.id, await status_text(manager, lang))


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    application.add_handler(CommandHandler("status", status_command))


# --- python -m bot --check-config -------------------------------------------------------------------------
def check_config(env: Mapping[str, str] | None = None, dotenv: str | Path = ".env") -> tuple[int, str]:
    """(exit status, message) for ``python -m bot --check-config``: 0 and a summary, or 2 and what is wrong."""
    if env is None:
        try:
            load_dotenv(dotenv)
        except ConfigError as e:
            return 2, f"configuration error: {e}"
        env = os.environ
    try:
        config = Config.from_env(env)
        if not _TOKEN.match(config.token):
            raise ConfigError("TELEGRAM_BOT_TOKEN does not look like a bot token (123456:ABC-...) from @BotFather")
        _check_writable_dir(Path(config.db_path).parent, "MAHJONG_DB")
        i18n.load()
    except (ConfigError, i18n.CatalogueError) as e:
        return 2, f"configuration error: {e}"
    mode = (
        f"webhook {config.webhook_url} (listening on {config.webhook_listen[0]}:{config.webhook_listen[1]})"
        if config.webhook_url
        else "long polling"
    )
    admins = ", ".join(str(i) for i in sorted(config.admin_ids)) or "none"
    return 0, f"configuration OK: {mode}; database {config.db_path}; language {config.lang}; /status admins: {admins}"


def _check_writable_dir(directory: Path, key: str) -> None:
    """The database's directory exists (or can be made) and is writable; nothing is created here."""
    existing = directory
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{key}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{key}: cannot write to {existing} (the database and its WAL files live there)")
