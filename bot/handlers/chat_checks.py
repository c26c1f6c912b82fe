"""Who is asking, and where: the checks every command family shares."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from typing import Final

from telegram import CallbackQuery, Chat, ChatMember, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatMemberStatus
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.context import BotContext
from bot.i18n import t
from bot.outbox import Content
from bot.table.key import TableKey

log = logging.getLogger(__name__)

MEMBER_SECONDS: Final = 600.0  # how long an answer of getChatMember is trusted
MAX_MEMBERS: Final = 10_000  # answers kept (the oldest go first)
_INSIDE: Final = (ChatMemberStatus.MEMBER, ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


def in_group(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type in (Chat.GROUP, Chat.SUPERGROUP)


def in_private(update: Update) -> bool:
    chat = update.effective_chat
    return chat is not None and chat.type == Chat.PRIVATE


class Unanswered(Exception):
    """Telegram cannot say now who is in a group (its chat paused by a 429, a timeout, a lost connection): the
    person is asked to try again in a moment (``table_commands.on_error``), never told they are not a member."""


async def _chat_member(context: BotContext, chat_id: int, user_id: int) -> ChatMember | None:
    """getChatMember; None when Telegram says no such member or chat (a refusal that will not change), and
    ``Unanswered`` when it gave no answer now."""
    try:
        return await context.bot.get_chat_member(chat_id, user_id)
    except (RetryAfter, TimedOut) as e:
        raise Unanswered(f"getChatMember {chat_id}: {e}") from e
    except (BadRequest, Forbidden) as e:
        log.info("cannot check %s in %s: %s", user_id, chat_id, e)
        return None
    except NetworkError as e:
        raise Unanswered(f"getChatMember {chat_id}: {e}") from e


async def is_admin(context: BotContext, chat_id: int, user_id: int) -> bool:
    """Whether the user administers the group (asked of Telegram; a chat the bot is not in: no)."""
    member = await _chat_member(context, chat_id, user_id)
    return member is not None and member.status in (ChatMemberStatus.ADMINISTRATOR, ChatMemberStatus.OWNER)


async def is_owner(context: BotContext, chat_id: int, user_id: int) -> bool:
    """Whether the user created the group (Telegram's "creator")."""
    member = await _chat_member(context, chat_id, user_id)
    return member is not None and member.status == ChatMemberStatus.OWNER


def topic_of(update: Update) -> int | None:
    """The forum topic a command was sent in, or the message a button was pressed on is in; None in a forum's
    General topic and in every group without topics (a reply thread there is no topic)."""
    message, chat = update.effective_message, update.effective_chat
    if not isinstance(message, Message) or chat is None or not chat.is_forum or not message.is_topic_message:
        return None
    return message.message_thread_id


def table_title(update: Update) -> str:
    """What a table is called in its players' private messages: the group's title and, in a forum topic, the
    topic's name too (a player may sit at the tables of two topics)."""
    message, chat = update.effective_message, update.effective_chat
    title = chat.title or "" if chat is not None else ""
    opening = message.reply_to_message if isinstance(message, Message) and topic_of(update) is not None else None
    created = opening.forum_topic_created if opening is not None else None
    return f"{title} · {created.name}" if created is not None else title


def table_key(update: Update) -> TableKey:
    """The table a group command is for: the group's, or its forum topic's."""
    assert update.effective_chat is not None
    return TableKey(update.effective_chat.id, topic_of(update))


def command_id(update: Update) -> int | None:
    """In a group, the id of the command's message (the bot's answer replies to it); None elsewhere."""
    message = update.effective_message
    return message.message_id if message is not None and in_group(update) else None


def reply(
    update: Update,
    context: BotContext,
    text: str,
    markup: InlineKeyboardMarkup | None = None,
    *,
    in_order: bool = False,
) -> None:
    """Answer a command: in a group, as a reply to the command's message, never merged with other texts. An
    answer waits aside of the table's messages (``bot.fair_replies``) unless it is the table's own (``in_order``:
    "X sits down" is read before the deal)."""
    chat, user = update.effective_chat, update.effective_user
    if chat is not None:
        asker = user.id if user is not None else None
        context.outbox.announce(
            chat.id, text, markup, reply_to=command_id(update), thread=topic_of(update), asker=asker, in_order=in_order
        )


def here(update: Update, slot: str) -> str:
    """The name of a slot of the chat the update came from: one per forum topic, so a menu's buttons in one topic
    edit that topic's message."""
    return table_key(update).slot(slot)


def show_here(update: Update, context: BotContext, slot: str, content: Content, *, fresh: bool = False) -> None:
    """Show ``content`` in a slot (``here``) of the chat the update came from, a new message in its forum topic;
    urgent: a person asked for it and waits (a replay step, a card), so it never waits the passive interval."""
    chat = update.effective_chat
    if chat is not None:
        shown = replace(content, thread=topic_of(update))
        context.outbox.show(chat.id, here(update, slot), shown, urgent=True, fresh=fresh)


async def answer(query: CallbackQuery, notice: str | None = None) -> None:
    """Answer a press. An answer too late (over 15 s) or a second one changes nothing: logged, never raised."""
    try:
        await query.answer(notice)
    except TelegramError as e:
        log.info("could not answer a press: %s", e)


async def is_member(context: BotContext, chat_id: int, user_id: int) -> bool:
    """Whether the user is in the group now: asked of Telegram (getChatMember) and remembered for ten minutes;
    a refusal (a chat the bot is not in, a made-up id) counts as no and is not remembered; no answer now raises
    ``Unanswered``."""
    cache = context.bot_data.members
    now = time.monotonic()
    known = cache.get((chat_id, user_id))
    if known is not None and now - known[0] < MEMBER_SECONDS:
        return known[1]
    member = await _chat_member(context, chat_id, user_id)
    if member is None:
        return False
    inside = member.status in _INSIDE or (
        member.status == ChatMemberStatus.RESTRICTED and bool(getattr(member, "is_member", False))
    )
    cache.pop((chat_id, user_id), None)
    cache[(chat_id, user_id)] = (now, inside)
    while len(cache) > MAX_MEMBERS:
        del cache[next(iter(cache))]
    return inside


async def may_see_hand(context: BotContext, hand_id: int, user_id: int) -> bool:
    """A stored hand's replay is for its players and the members of its group."""
    record = await context.db.hands.get(hand_id)
    if any(s.player_id == user_id for s in record.seats):
        return True
    return await is_member(context, record.chat_id, user_id)


async def came_back(update: Update, context: BotContext) -> None:
    """Runs first on every update: a person the bot hears from again in private, or who presses its button,
    may be written to again (the outbox stops writing to a chat that answered 403). A group is written to
    again when the bot is added back (``table_commands.bot_membership``)."""
    outbox = context.outbox
    chat, user = update.effective_chat, update.effective_user
    if not outbox.unreachable or chat is None:
        return
    if chat.id > 0:
        outbox.came_back(chat.id)
    if user is not None and update.callback_query is not None:
        outbox.came_back(user.id)


async def ignore(update: Update, context: BotContext) -> None:
    """A linked channel's post forwarded into its discussion group: never a command."""


async def sent_as_chat(update: Update, context: BotContext) -> None:
    """A command sent as a chat (an anonymous admin, or a member posting as a channel): no one to seat or
    to remember, so they are told to use their own account."""
    chat = update.effective_chat
    if chat is not None:
        settings = await context.db.chats.get(chat.id)
        context.outbox.announce(chat.id, t("sent_as_chat", settings.language), thread=topic_of(update))
