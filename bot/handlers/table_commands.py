"""The table's commands and buttons: /newgame, /join, /leave, /begin, /flee (and its Flee/Stay, ``fl1|…``),
/stop, the join deep link, and every play button (``v1|…``). Each is a thin ``async def`` that posts a message
(``bot.table.messages``) to the table through the registry (``context.tables``) and says the answer.

Every write to a chat goes through the outbox (paced and coalesced); only the answers to button presses are
sent here directly. A press that no handler claims gets ``stale_press``: a short notice, nothing changes.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Final

from telegram import ChatMember, InlineKeyboardMarkup, Update

from bot.callbacks import BadCallback, FleeButton, PlayButton
from bot.context import BotContext
from bot.handlers.chat_checks import (
    Unanswered,
    answer,
    command_id,
    in_group,
    in_private,
    is_admin,
    is_member,
    is_owner,
    reply,
    show_here,
    table_key,
    table_title,
    topic_of,
)
from bot.handlers.quick_commands import play_command
from bot.host.registry import Answer
from bot.host.runner import TableMoved
from bot.i18n import language_for, private_language, t
from bot.outbox import Content
from bot.table import messages as msg
from bot.table.key import TableKey
from bot.views.game_views import flee_question
from bot.views.quick_views import play_button
from storage.chats import ChatSettings

log = logging.getLogger(__name__)

JOIN_PREFIX: Final = "join_"
PLAY_PAYLOAD: Final = "play"


def _say(update: Update, context: BotContext, said: Answer) -> None:
    """The table's answer to a command, replying to it in a group, in its place among the table's messages."""
    if said.text:
        reply(update, context, said.text, said.markup, in_order=True)


async def start(update: Update, context: BotContext) -> None:
    """/start in private: a plain hello, or ``join_<table>`` from the lobby's Join button."""
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    payload = context.args[0] if context.args else ""
    if payload == PLAY_PAYLOAD and in_private(update):  # t.me/<bot>?start=play: a quick match (the live page's)
        await play_command(update, context)
        return
    if payload.startswith(JOIN_PREFIX) and in_private(update):
        try:
            key = TableKey.parse(payload[len(JOIN_PREFIX) :])
        except ValueError:
            key = TableKey(0)
        lang = await private_language(context.db, user)  # someone new sits down speaking their Telegram language
        table = context.tables.get(key)
        if table is not None and not await is_member(context, key.chat_id, user.id):  # a link forwarded outside
            reply(update, context, t("join_not_member", lang, group=table.title))
            return
        _say(update, context, await context.tables.ask(key, msg.Join(user.id, user.full_name, True, lang)))
        return
    hello = "start_hello" if in_private(update) else "help"
    lang = await language_for(context.db, chat.id, user)  # in private: the player's own language
    quick = InlineKeyboardMarkup([[play_button(lang)]]) if in_private(update) else None  # a quick match from here
    reply(update, context, t(hello, lang) + "\n\n" + t("help", lang), quick)


async def _group_only(update: Update, context: BotContext) -> bool:
    """True in a group the bot may write to; elsewhere says the command is for groups."""
    chat = update.effective_chat
    if chat is not None and not in_group(update):
        reply(update, context, t("group_only", await language_for(context.db, chat.id, update.effective_user)))
    usable = chat is not None and chat.id not in context.outbox.unreachable  # not a group that removed the bot
    return usable and update.effective_user is not None and in_group(update)


def _extra_words(update: Update, context: BotContext, lang: str) -> bool:
    """A table command takes no words: with some (``/join abc``), it says so and does nothing."""
    if not context.args:
        return False
    message = update.effective_message
    command = (message.text or "").split(maxsplit=1)[0].split("@")[0] if message is not None else ""
    reply(update, context, t("no_words", lang, command=command, word=" ".join(context.args)[:40]))
    return True


async def newgame(update: Update, context: BotContext) -> None:
    if not (caller := await _group_caller(update, context)):  # someone new sits down speaking their own language
        return
    key, user_id, lang = caller
    user, chat = update.effective_user, update.effective_chat
    assert user is not None and chat is not None
    await _first_language(context, chat.id, user_id, lang)
    opening = msg.Open(user_id, user.full_name, table_title(update), command_id(update), lang=lang)
    _say(update, context, await context.tables.ask(key, opening))


async def _first_language(context: BotContext, chat_id: int, user_id: int, lang: str) -> None:
    """A group that never chose its settings takes the language of its creator when they open a table there: a
    group made for a game (the sandbox's "Play against the bot") opens in its maker's language, no /settings."""
    untouched = ChatSettings(chat_id)
    if lang == untouched.language:  # nothing to ask: the /newgame goes on at once
        return
    if await context.db.chats.get(chat_id) == untouched and await is_owner(context, chat_id, user_id):
        await context.db.chats.update(chat_id, language=lang)


async def join(update: Update, context: BotContext) -> None:
    if caller := await _group_caller(update, context):
        key, user_id, lang = caller
        assert update.effective_user is not None
        name = update.effective_user.full_name
        _say(update, context, await context.tables.ask(key, msg.Join(user_id, name, lang=lang)))


async def _group_caller(update: Update, context: BotContext) -> tuple[TableKey, int, str] | None:
    """(table, user id, their language) of a group command; None (and the reason said) anywhere else, or when
    words follow a command that takes none."""
    if not await _group_only(update, context):
        return None
    user = update.effective_user
    assert user is not None
    lang = await private_language(context.db, user)
    return None if _extra_words(update, context, lang) else (table_key(update), user.id, lang)


async def leave(update: Update, context: BotContext) -> None:
    if caller := await _group_caller(update, context):
        key, user_id, lang = caller
        _say(update, context, await context.tables.ask(key, msg.Leave(user_id, lang=lang)))


def _flee_slot(user_id: int) -> str:
    return f"flee{user_id}"


async def flee(update: Update, context: BotContext) -> None:
    """/flee during a hand asks first (Flee / Stay: ``flee_press``); anywhere else the table answers at once (no
    penalty to charge: not seated, or no hand running, when it frees the seat as /leave does)."""
    if not (caller := await _group_caller(update, context)):
        return
    key, user_id, lang = caller
    table = context.tables.get(key)
    if table is None or table.seat_of(user_id) is None or table.state != "playing" or table.hand_id is None:
        _say(update, context, await context.tables.ask(key, msg.Leave(user_id, flee=True, lang=lang)))
        return
    question = replace(flee_question(table, user_id, lang), reply_to=command_id(update))
    show_here(update, context, _flee_slot(user_id), question, fresh=True)


async def flee_press(update: Update, context: BotContext) -> None:
    """Flee or Stay under /flee's question: only its asker's press counts; Flee charges the penalty only while
    they still sit in the hand it was asked in (the table checks: ``Leave.hand_id``)."""
    query = update.callback_query
    if query is None:
        return
    lang = await private_language(context.db, query.from_user)  # the answer speaks the presser's language
    button = FleeButton.decode(query.data)
    if query.from_user.id != button.user_id:
        await _answer(update, t("press_foreign", lang))
        return
    if button.confirm:
        leaving = msg.Leave(button.user_id, flee=True, lang=lang, hand_id=button.hand_id)
        notice = (await context.tables.ask(button.table, leaving)).text
    else:
        notice = t("flee_cancelled", lang)
    # The question loses its buttons and says what happened (the group is told of a flight by the table).
    show_here(update, context, _flee_slot(button.user_id), Content(notice or t("flee_done", lang)))
    await _answer(update, notice)


async def begin(update: Update, context: BotContext) -> None:
    if caller := await _group_caller(update, context):
        key, user_id, lang = caller
        _say(update, context, await context.tables.ask(key, msg.Begin(user_id, lang)))


async def stop(update: Update, context: BotContext) -> None:
    if caller := await _group_caller(update, context):
        key, user_id, lang = caller
        table = context.tables.get(key)
        admin = table is not None and table.creator_id != user_id and await is_admin(context, key.chat_id, user_id)
        _say(update, context, await context.tables.ask(key, msg.Stop(user_id, admin, lang)))


async def _answer(update: Update, notice: str | None) -> None:
    assert update.callback_query is not None
    await answer(update.callback_query, notice)


async def press(update: Update, context: BotContext) -> None:
    """A play button: decoded here, checked and played by the table; always answered, with a notice if refused."""
    query = update.callback_query
    if query is None:
        return
    lang = await private_language(context.db, query.from_user)  # the answer speaks the presser's language
    if query.message is None:  # an inline message's button: the bot sends none, so it is none of the bot's
        await _answer(update, t("press_inline", lang))
        return
    try:
        button = PlayButton.decode(query.data)
    except BadCallback:
        notice: str | None = t("press_stale", lang)
    else:
        press = msg.Press(query.from_user.id, button.stamp, button.code, lang, update.update_id)
        try:
            notice = (await context.tables.ask(button.table, press)).text
        except TableMoved:  # perhaps stored before it stopped here: not "not done"; the next owner shows which
            notice = t("press_moved", lang)
    await _answer(update, notice)


async def stale_press(update: Update, context: BotContext) -> None:
    """A press no handler claims: an old version's button, or forged data."""
    if update.callback_query is not None:
        await _answer(update, t("press_stale", await private_language(context.db, update.callback_query.from_user)))


async def migrated(update: Update, context: BotContext) -> None:
    """The group became a supergroup (Telegram says so in both chats): its table and stored data follow."""
    message = update.effective_message
    if message is None:
        return
    if message.migrate_to_chat_id:
        await context.tables.migrated(message.chat.id, message.migrate_to_chat_id)
    elif message.migrate_from_chat_id:
        await context.tables.migrated(message.migrate_from_chat_id, message.chat.id)


async def bot_membership(update: Update, context: BotContext) -> None:
    """The bot's own membership changed: removed from a group, or its right to write there taken away, the
    group's table closes; added back, it may write there again."""
    change = update.my_chat_member
    if change is None or change.chat.id > 0:
        return
    member = change.new_chat_member
    gone = member.status in (ChatMember.LEFT, ChatMember.BANNED) or (
        member.status == ChatMember.RESTRICTED and not getattr(member, "can_send_messages", True)
    )
    if gone:
        context.tables.removed(change.chat.id)
    else:
        context.outbox.came_back(change.chat.id)


async def on_error(update: object, context: BotContext) -> None:
    """Every handler answers: a check Telegram cannot answer now asks the person to try again in a moment; an
    unexpected error is logged (the update's id and kind, never its content: names, texts) and the person gets
    a short apology in their language (a press: as its answer)."""
    error, unanswered = context.error, isinstance(context.error, Unanswered)
    described = _described(update)
    if unanswered:
        log.info("update %s: no answer now (%s); asked to try again", described, error)
    else:
        log.error("error while handling update %s", described, exc_info=error)
    if not isinstance(update, Update) or update.effective_chat is None:
        return
    chat = update.effective_chat
    try:
        lang = await language_for(context.db, chat.id, update.effective_user)
    except Exception:  # the database may be what failed
        lang = context.config.lang
    text = t("check_later" if unanswered else "error_apology", lang)
    if update.callback_query is not None:
        await _answer(update, text)
    elif unanswered:
        reply(update, context, text)
    else:
        context.outbox.announce(chat.id, text, thread=topic_of(update))


def _described(update: object) -> str:
    if not isinstance(update, Update):
        return type(update).__name__
    kind = next((k for k in Update.ALL_TYPES if getattr(update, k, None) is not None), "unknown")
    return f"{update.update_id} ({kind})"
