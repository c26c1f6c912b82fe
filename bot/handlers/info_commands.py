"""Information commands: /help, /rules, /calc and /lang, each answered in the asker's language.

- /help: what the bot does and its commands.
- /rules: the rules, short, with the group's own options and timers (in a private chat: the defaults);
  the whole rule book is docs/RULES.md.
- /calc (private chat): the settlement calculator of RULES.md §11, as ``python -m game.calc``. The §11 JSON
  goes after /calc or as a message of its own; the answer is the verdict, the breakdown and the payments;
  malformed input gets the calculator's error message.
- /lang (private chat): the player's language, ``/lang en`` or buttons (``callback_data.language_data``).
  A group's language is a /settings choice.
- ``remember_language`` runs first on every update: the first time the bot meets a user, their Telegram
  language becomes their language (``bot.i18n.private_language``) until they choose with /lang.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

from telegram import Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, in_private, reply
from bot.i18n import language_for, private_language, t
from bot.views.info_views import calc_answer, lang_markup, rules_text
from game.languages import LANGUAGES
from storage.chats import ChatSettings

MAX_QUOTE: Final = 40  # how much of an unknown message the answer quotes
log = logging.getLogger(__name__)

MAX_CALC_INPUT: Final = 4000  # characters of /calc JSON (the §11 example is about 330)
CALC_SECONDS: Final = 5.0  # the calculator's time limit


async def _calc(raw: str, lang: str) -> str:
    """The calculator's answer, worked out in a thread (never on the event loop) within CALC_SECONDS; its input
    is bounded here and every option's range by game.rules, so the thread itself ends soon too."""
    if len(raw) > MAX_CALC_INPUT:
        return t("calc_too_long", lang, limit=MAX_CALC_INPUT)
    try:
        return await asyncio.wait_for(asyncio.to_thread(calc_answer, raw, lang), CALC_SECONDS)
    except TimeoutError:
        log.warning("/calc gave up after %.0f s on %d characters", CALC_SECONDS, len(raw))
        return t("calc_timeout", lang)
    except ArithmeticError as e:  # a settlement out of any sensible range
        return t("calc_error", lang, error=type(e).__name__)


async def rules_command(update: Update, context: BotContext) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    settings = await context.db.chats.get(chat.id) if chat.id < 0 else ChatSettings(chat.id)
    reply(update, context, rules_text(settings, lang))


async def calc_command(update: Update, context: BotContext) -> None:
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    if not in_private(update):
        reply(update, context, t("calc_private_only", lang))
        return
    _, *rest = message.text.split(maxsplit=1)  # the JSON may follow on the same line or the next
    reply(update, context, await _calc(rest[0], lang) if rest else t("calc_usage", lang))


async def calc_message(update: Update, context: BotContext) -> None:
    """A private message that is a JSON object: the calculator's input without /calc."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    reply(update, context, await _calc(message.text, lang))


async def help_command(update: Update, context: BotContext) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    reply(update, context, t("help", lang))


async def lang_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    if not in_private(update):
        reply(update, context, t("lang_group", lang))
        return
    wanted = (context.args or [""])[0].lower()
    if wanted in LANGUAGES:
        await context.db.players.set_language(user.id, wanted)
        reply(update, context, t("lang_set", wanted))
    elif wanted:
        reply(update, context, t("lang_unknown", lang, choices=" · ".join(LANGUAGES)))
    else:
        reply(update, context, t("lang_choose", lang), lang_markup())


async def lang_press(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    wanted = fields(query.data)[0]
    await private_language(context.db, query.from_user)  # registers someone the bot has not met yet
    await context.db.players.set_language(query.from_user.id, wanted)
    await answer(query, t("lang_set", wanted))


async def private_fallback(update: Update, context: BotContext) -> None:
    """Plain text or an unknown /command in a private chat: a short pointer to /help, quoting what was said."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    said = message.text.strip().split("\n")[0][:MAX_QUOTE]
    reply(update, context, t("private_unknown", lang, said=said))


async def remember_language(update: Update, context: BotContext) -> None:
    """The first update from a user stores their Telegram language as theirs (once per user and process)."""
    user, message = update.effective_user, update.effective_message
    if user is None or user.is_bot or (message is not None and message.sender_chat is not None):
        return  # a message sent as a chat (an anonymous admin, a channel) names no person
    met = context.bot_data.languages_met
    if user.id not in met:
        await private_language(context.db, user)
        await context.db.players.set_username(user.id, user.username)  # for /stats @name
        met.add(user.id)
