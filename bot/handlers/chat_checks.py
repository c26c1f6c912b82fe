"""Who is asking, and where: the checks every command family shares."""

from __future__ import annotations

import logging

from telegram import Chat, InlineKeyboardMarkup, Update
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from bot.context import BotContext

log = logging.getLogger(__name__)


def in_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def in_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == Chat.PRIVATE


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    """Whether the user administers the group (asked of Telegram; no answer counts as no)."""
    try:
        member = await context.bot.get_chat_member(chat_id, user_id)
    except TelegramError as e:
        log.warning("cannot check whether %s is an admin of %s: %s", user_id, chat_id, e)
        return False
    return member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def command_id(update: Update) -> int | None:
    """In a group, the id of the command's message (the bot's answer replies to it); None elsewhere."""
    message = update.effective_message
    return message.message_id if message is not None and in_group(update) else None


def reply(update: Update, context: BotContext, text: str, markup: InlineKeyboardMarkup | None = None) -> None:
    """Answer a command: in a group, as a reply to the command's message, never merged with other texts."""
    chat = update.effective_chat
    if chat is not None:
        context.outbox.announce(chat.id, text, markup, reply_to=command_id(update))
