"""/status, for the bot's operators (the ids in ``MAHJONG_ADMIN_IDS``) only: tables running, hands started today
(UTC), errors logged since start-up, writes sent and waiting."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from telegram import Update

from bot.context import BotContext
from bot.handlers.chat_checks import reply
from bot.host.registry import Tables
from bot.i18n import language_for, t
from bot.logs import errors
from storage.database import Database


def start_of_today(now: datetime | None = None) -> datetime:
    now = now or datetime.now(UTC)
    return now.replace(hour=0, minute=0, second=0, microsecond=0)


async def status_text(tables: Tables, db: Database, lang: str) -> str:
    open_tables = tables.all()
    playing = sum(1 for table in open_tables if table.state == "playing")
    hands_today = await db.hands.count_since(start_of_today(db.now()))
    uptime_min = int((time.monotonic() - errors.started) // 60)
    return t(
        "status",
        lang,
        tables=len(open_tables),
        playing=playing,
        hands=hands_today,
        errors=errors.count,
        writes=tables.edge.outbox.writes,
        pending=tables.edge.outbox.pending(),
        uptime=uptime_min,
    )


async def status_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    if user.id not in context.config.admin_ids:
        reply(update, context, t("status_denied", lang))
        return
    reply(update, context, await status_text(context.tables, context.db, lang))
