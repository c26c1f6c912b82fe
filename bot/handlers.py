"""The Telegram handlers: small ``async def``s that read an update and hand it to the TableManager.

Every write to a chat goes through the manager's outbox (paced and coalesced); only the answers to button
presses are sent here directly. ``add_handlers(application)`` registers them all.
"""

from __future__ import annotations

import logging
from typing import Any

from telegram import Chat, Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError
from telegram.ext import Application, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.callbacks import BadCallback, decode
from bot.i18n import language_for, private_language
from bot.manager import Reply, TableManager
from bot.texts import text

log = logging.getLogger(__name__)

JOIN_PREFIX = "join_"
COMMANDS = ("newgame", "join", "leave", "begin", "flee", "stop")


def manager_of(context: ContextTypes.DEFAULT_TYPE) -> TableManager:
    manager = context.application.bot_data["manager"]
    assert isinstance(manager, TableManager)
    return manager


def _in_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def _say(context: ContextTypes.DEFAULT_TYPE, chat_id: int, reply: Reply) -> None:
    if reply.text:
        manager_of(context).outbox.announce(chat_id, reply.text, reply.markup)


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/start in private: a plain hello, or ``join_<chat>`` from the lobby's Join button."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    payload = context.args[0] if context.args else ""
    if payload.startswith(JOIN_PREFIX) and chat.type == Chat.PRIVATE:
        try:
            group_id = int(payload[len(JOIN_PREFIX) :])
        except ValueError:
            group_id = 0
        await private_language(manager.db, user)  # someone new sits down speaking their Telegram language
        reply = await manager.join(group_id, user.id, user.full_name, from_private=True)
        _say(context, chat.id, reply)
        return
    key = "start_hello" if chat.type == Chat.PRIVATE else "help"
    lang = await language_for(manager.db, chat.id, user)  # in private: the player's own language
    manager.outbox.announce(chat.id, text(key, lang) + "\n\n" + text("help", lang))


async def group_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/newgame, /join, /leave, /begin, /flee and /stop: group commands for the group's table."""
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None or message is None or not message.text:
        return
    manager = manager_of(context)
    if not _in_group(update):
        manager.outbox.announce(chat.id, text("group_only", manager.config.lang))
        return
    command = message.text.split()[0].lstrip("/").split("@")[0].lower()
    name = user.full_name
    if command in ("newgame", "join"):
        await private_language(manager.db, user)  # someone new sits down speaking their Telegram language
    if command == "newgame":
        reply = await manager.new_table(chat.id, chat.title or "", user.id, name)
    elif command == "join":
        reply = await manager.join(chat.id, user.id, name)
    elif command == "leave":
        reply = await manager.leave(chat.id, user.id)
    elif command == "begin":
        reply = await manager.begin(chat.id, user.id)
    elif command == "flee":
        reply = await manager.flee(chat.id, user.id)
    else:
        table = manager.tables.get(chat.id)
        is_admin = table is not None and table.creator_id != user.id and await _is_admin(context, chat.id, user.id)
        reply = await manager.stop(chat.id, user.id, is_admin)
    _say(context, chat.id, reply)


async def _is_admin(context: ContextTypes.DEFAULT_TYPE, chat_id: int, user_id: int) -> bool:
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError as e:
        log.warning("cannot check whether %s is an admin of %s: %s", user_id, chat_id, e)
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A button press: decoded, checked and played by the manager; always answered, with a notice if refused."""
    query = update.callback_query
    if query is None:
        return
    manager = manager_of(context)
    try:
        data = decode(query.data)
    except BadCallback:
        notice: str | None = text("press_stale", manager.config.lang)
    else:
        notice = await manager.press(data.table, query.from_user.id, data.stamp, data.code)
    try:
        await query.answer(notice)
    except TelegramError as e:  # an answer too late or lost changes nothing in the game
        log.info("could not answer a press: %s", e)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    log.error("error while handling %s", update, exc_info=context.error)


def add_handlers(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    application.add_handler(CommandHandler("start", start))
    application.add_handler(CommandHandler(list(COMMANDS), group_command))
    application.add_handler(CallbackQueryHandler(press))
    application.add_error_handler(on_error)
