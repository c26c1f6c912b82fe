"""Information commands: /help, /rules, /calc and /lang, each answered in the asker's language.

    register(application)        # in bot.__main__.build_application

- /help: what the bot does and its commands.
- /rules: the rules, short, with the group's own options and timers (in a private chat: the defaults).
- /calc (private chat): the settlement calculator of RULES.md §11, as ``python -m game.calc``. The §11 JSON
  goes after /calc or as a message of its own; the answer is the verdict, the breakdown and the payments;
  malformed input gets the calculator's error message.
- /lang (private chat): the player's language, ``/lang en`` or buttons (callback data ``ln1|<lang>``).
  A group's language is a /settings choice.

Also registered here: the first time the bot meets a user, their Telegram language becomes their language
(``bot.i18n.private_language``) until they choose with /lang.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from telegram import Bot, BotCommand, Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    TypeHandler,
    filters,
)

from bot.handlers import manager_of
from bot.i18n import LANGUAGES, commands, language_for, private_language, t
from bot.settings_menu import OPTIONS, shown
from game.calc import CalcError, calculate
from game.scoring import Settlement
from storage.chats import ChatSettings

if TYPE_CHECKING:
    pass

LANG_PREFIX: Final = "ln1"
MAX_ERROR: Final = 300  # characters of a calculator error shown back


def _private(update: Update) -> bool:
    return update.effective_chat is not None and update.effective_chat.type == Chat.PRIVATE


# --- /rules -------------------------------------------------------------------------------------------------
def rules_text(settings: ChatSettings, lang: str) -> str:
    """The rules in a few lines, with every option of the group filled in."""
    rules = settings.rules

    def show(key: str) -> str:
        option = OPTIONS[key]
        return shown(option, getattr(rules if option.rule else settings, key), lang)

    bright = t("rules_bright", lang, amount=rules.bright_cap) if rules.bright_cap is not None else ""
    return t(
        "rules_text", lang,
        preset=show("preset"),
        opening=t("rules_opening_per_meld" if rules.per_meld_opening else "rules_opening_once", lang),
        order=show("multi_win_order"), hard=show("hard_factor"), self_small=show("self_draw_small"),
        self_big=show("self_draw_big"), discarder=show("discarder_factor"), dealer=show("dealer_factor"),
        cap=rules.cap, golden=rules.golden_cap, bright=bright, min_payment=rules.min_payment,
        liable=show("liable_yi_se"), flee=rules.flee_penalty, turn=show("turn_seconds"), claim=show("claim_seconds"),
        hands=settings.hands_per_game, unit=settings.base_unit, auto=show("auto_players"),
    )


async def rules_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, update.effective_user)
    settings = await manager.db.chats.get(chat.id) if chat.id < 0 else ChatSettings(chat.id)
    manager.outbox.announce(chat.id, rules_text(settings, lang))


# --- /calc --------------------------------------------------------------------------------------------------
def calc_answer(raw: str, lang: str) -> str:
    """What /calc answers to ``raw`` (the §11 JSON): the settlement explained, or the error, short."""
    try:
        try:
            obj = json.loads(raw)
        except (ValueError, RecursionError) as e:
            raise CalcError(f"not valid JSON: {e}") from None
        settlement = calculate(obj)
    except CalcError as e:
        return t("calc_error", lang, error=str(e)[:MAX_ERROR])
    return settlement_text(settlement, lang)


def settlement_text(s: Settlement, lang: str) -> str:
    """The verdict, then the calculator's own breakdown, which ends with the payments."""
    verdict = t("calc_valid", lang) if s.valid else t("calc_invalid", lang, reason=t(f"reason_{s.reason}", lang))
    return "\n".join([verdict, *(s.breakdown.zh if lang == "zh" else s.breakdown.en)])


async def calc_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, update.effective_user)
    if not _private(update):
        manager.outbox.announce(chat.id, t("calc_private_only", lang))
        return
    _, *rest = message.text.split(maxsplit=1)  # the JSON may follow on the same line or the next
    manager.outbox.announce(chat.id, calc_answer(rest[0], lang) if rest else t("calc_usage", lang))


async def calc_message(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A private message that is a JSON object: the calculator's input without /calc."""
    chat, message = update.effective_chat, update.effective_message
    if chat is None or message is None or not message.text:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, update.effective_user)
    manager.outbox.announce(chat.id, calc_answer(message.text, lang))


# --- /help and /lang ------------------------------------------------------------------------------------------
async def help_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, update.effective_user)
    manager.outbox.announce(chat.id, t("help", lang))


def _lang_markup() -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(f"value_language_{code}", code), callback_data=f"{LANG_PREFIX}|{code}")
          for code in LANGUAGES]]
    )


async def lang_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, user)
    if not _private(update):
        manager.outbox.announce(chat.id, t("lang_group", lang))
        return
    wanted = (context.args or [""])[0].lower()
    if wanted in LANGUAGES:
        await manager.db.players.set_language(user.id, wanted)
        manager.outbox.announce(chat.id, t("lang_set", wanted))
    elif wanted:
        manager.outbox.announce(chat.id, t("lang_unknown", lang, choices=" · ".join(LANGUAGES)))
    else:
        manager.outbox.announce(chat.id, t("lang_choose", lang), _lang_markup())


async def lang_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None:
        return
    manager = manager_of(context)
    wanted = (query.data or "").split("|")[-1]
    await private_language(manager.db, query.from_user)  # registers someone the bot has not met yet
    await manager.db.players.set_language(query.from_user.id, wanted)
    await query.answer(t("lang_set", wanted))
    raise ApplicationHandlerStop  # the table's own button handler must not see this press


# --- first meeting ------------------------------------------------------------------------------------------
async def remember_language(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """The first update from a user stores their Telegram language as theirs (once per user and process)."""
    user = update.effective_user
    if user is None or user.is_bot:
        return
    met: set[int] = context.application.bot_data.setdefault("languages_met", set())
    if user.id not in met:
        await private_language(manager_of(context).db, user)
        met.add(user.id)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    application.add_handler(TypeHandler(Update, remember_language), group=-2)
    application.add_handler(CommandHandler("help", help_command), group=-1)
    application.add_handler(CommandHandler("rules", rules_command))
    application.add_handler(CommandHandler("calc", calc_command))
    application.add_handler(MessageHandler(filters.ChatType.PRIVATE & filters.Regex(r"^\s*\{"), calc_message))
    application.add_handler(CommandHandler("lang", lang_command))
    application.add_handler(
        CallbackQueryHandler(lang_press, pattern=rf"^{LANG_PREFIX}\|({'|'.join(LANGUAGES)})$"), group=-1
    )


async def publish_commands(bot: Bot) -> None:
    """The command menu: Chinese for everyone, English for Telegram clients set to English."""
    await bot.set_my_commands([BotCommand(name, about) for name, about in commands("zh")])
    await bot.set_my_commands([BotCommand(name, about) for name, about in commands("en")], language_code="en")
