"""/settings: a group's admins set its table and rules from an inline menu; changes apply from the next hand.

    register(application)        # in bot.__main__.build_application

The menu has a main page (rule preset, claim and turn timers, automatic players and their level, base unit,
hands per game, language), a page of every RULES.md §9 option (``game.rules.Rules``), and one page per setting
with its choices. Every change is stored with ``storage.chats`` (checked there: a refused value changes
nothing) and announced in the group; the TableManager reads the settings before each hand of the group's own
table (``TableManager.follow_settings``), so a hand in play keeps the rules it was dealt with. A new preset
starts from that preset's own options. Hands per game applies from the next game.

Callback data (≤ 64 bytes): ``st1|p|<page>`` opens ``main``, ``rules`` or a setting's page; ``st1|s|<key>|<choice>``
sets a choice. Only group admins may open the menu or press its buttons; others get a short refusal.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ApplicationHandlerStop, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.handlers import _is_admin, manager_of
from bot.i18n import LANGUAGES, language_for, t
from bot.outbox import Content
from game.ai import LEVELS
from game.patterns import PATTERNS
from game.rules import YI_SE_PATTERNS, RulesError
from storage.chats import PRESETS, ChatSettings
from storage.errors import StorageError

if TYPE_CHECKING:
    from bot.manager import TableManager

log = logging.getLogger(__name__)

PREFIX: Final = "st1"
SLOT: Final = "settings"
ON, OFF = "on", "off"
# Factors are shown as ×n; timers in seconds.
_FACTORS: Final = frozenset({"self_draw_small", "self_draw_big", "discarder_factor", "dealer_factor", "hard_factor"})
_SECONDS: Final = frozenset({"claim_seconds", "turn_seconds"})


@dataclass(frozen=True)
class Option:
    key: str  # a ChatSettings field, or a Rules field when ``rule``
    choices: tuple[str, ...]  # as carried in the callback data
    rule: bool = False


TABLE_OPTIONS: Final = (
    Option("preset", PRESETS),
    Option("claim_seconds", ("5", "10", "15", "20", "30", "60")),
    Option("turn_seconds", ("15", "20", "30", "45", "60", "120")),
    Option("auto_players", (ON, OFF)),
    Option("auto_level", LEVELS),
    Option("base_unit", ("1", "2", "5", "10", "50", "100")),
    Option("hands_per_game", ("1", "4", "8", "12", "16")),
    Option("language", LANGUAGES),
)
RULE_OPTIONS: Final = (
    Option("per_meld_opening", (OFF, ON), rule=True),
    Option("cap", ("100", "200", "300", "500", "1000"), rule=True),
    Option("golden_cap", ("300", "400", "500", "600", "800"), rule=True),
    Option("bright_cap", (OFF, "500", "600", "800"), rule=True),
    Option("min_payment", ("0", "10", "20", "40"), rule=True),
    Option("self_draw_small", ("1", "1.5", "2", "3"), rule=True),
    Option("self_draw_big", ("1", "1.5", "2"), rule=True),
    Option("discarder_factor", ("1", "2", "3"), rule=True),
    Option("dealer_factor", ("1", "2", "3"), rule=True),
    Option("hard_factor", ("1", "2"), rule=True),
    Option("multi_win_order", ("dealer", "discarder"), rule=True),
    Option("liable_yi_se", YI_SE_PATTERNS, rule=True),  # each choice toggles one pattern
    Option("flee_penalty", ("0", "200", "400", "800"), rule=True),
)
OPTIONS: Final = {o.key: o for o in (*TABLE_OPTIONS, *RULE_OPTIONS)}


class SettingRefused(ValueError):
    """A choice that is not on the menu, or that storage refused."""


# --- values: stored <-> choice <-> shown --------------------------------------------------------------------
def _choice_of(value: Any) -> str:
    if isinstance(value, bool):
        return ON if value else OFF
    if value is None:
        return OFF
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else str(float(value))
    return str(value)


def current(settings: ChatSettings, option: Option) -> Any:
    """The stored value of a setting (a Rules field's value for a rule option)."""
    return getattr(settings.rules if option.rule else settings, option.key)


def shown(option: Option, value: Any, lang: str) -> str:
    """A value as people read it in ``lang``."""
    if option.key == "liable_yi_se":
        return " · ".join(_pattern(p, lang) for p in value) or t("value_none", lang)
    choice = _choice_of(value)
    if choice in (ON, OFF):
        return t(f"value_{choice}", lang)
    if option.key in ("preset", "auto_level", "language", "multi_win_order"):
        return t(f"value_{option.key}_{choice}", lang)
    if option.key in _SECONDS:
        return t("value_seconds", lang, n=choice)
    return f"×{choice}" if option.key in _FACTORS else choice


def _pattern(pattern_id: str, lang: str) -> str:
    p = PATTERNS[pattern_id]
    return p.zh if lang == "zh" else p.en


def changes_for(settings: ChatSettings, option: Option, choice: str) -> dict[str, Any]:
    """The ``storage.chats.update`` changes that set ``option`` to ``choice``; SettingRefused if not on offer."""
    if choice not in option.choices:
        raise SettingRefused(f"{choice!r} is not a choice of {option.key}")
    if not option.rule:
        if option.key == "preset":
            return {"preset": choice, "rule_options": {}}  # a preset is a fresh start
        if option.key == "auto_players":
            return {"auto_players": choice == ON}
        if option.key in ("auto_level", "language"):
            return {option.key: choice}
        return {option.key: int(choice)}
    value: Any
    if option.key == "liable_yi_se":
        held = set(settings.rules.liable_yi_se) ^ {choice}
        value = [p for p in YI_SE_PATTERNS if p in held]
    elif choice in (ON, OFF):
        value = None if option.key == "bright_cap" else choice == ON
    elif option.key == "multi_win_order":
        value = choice
    else:
        value = float(choice) if "." in choice else int(choice)
    try:
        rules = settings.rules.with_options({option.key: value})
    except RulesError as e:
        raise SettingRefused(str(e)) from None
    return {"rule_options": {k: v for k, v in rules.to_json().items() if k != "preset"}}


# --- the menu -----------------------------------------------------------------------------------------------
def _button(label: str, *parts: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(label, callback_data="|".join((PREFIX, *parts)))


def _option_row(settings: ChatSettings, option: Option, lang: str) -> list[InlineKeyboardButton]:
    label = f"{t(f'set_{option.key}', lang)}: {shown(option, current(settings, option), lang)}"
    return [_button(label, "p", option.key)]


def menu(settings: ChatSettings, page: str) -> Content:
    """The menu's ``page`` (main, rules, or a setting's key) for the group's current settings."""
    lang = settings.language
    if page == "main":
        rows = [_option_row(settings, o, lang) for o in TABLE_OPTIONS]
        rows.append([_button(t("settings_rules_page", lang), "p", "rules")])
        return Content(t("settings_main", lang), InlineKeyboardMarkup(rows))
    if page == "rules":
        rows = [_option_row(settings, o, lang) for o in RULE_OPTIONS]
        rows.append([_button(t("settings_back", lang), "p", "main")])
        preset = shown(OPTIONS["preset"], settings.preset, lang)
        return Content(t("settings_rules", lang, preset=preset), InlineKeyboardMarkup(rows))
    option = OPTIONS[page]
    value = current(settings, option)
    if option.key == "liable_yi_se":
        marked = {c: c in value for c in option.choices}
    else:
        marked = {c: c == _choice_of(value) for c in option.choices}
    buttons = [
        _button(("✓ " if marked[c] else "") + shown(option, _shown_choice(option, c), lang), "s", option.key, c)
        for c in option.choices
    ]
    rows = [buttons[i : i + 3] for i in range(0, len(buttons), 3)]
    rows.append([_button(t("settings_back", lang), "p", "rules" if option.rule else "main")])
    text = t("settings_pick", lang, setting=t(f"set_{option.key}", lang), value=shown(option, value, lang),
             about=t(f"about_{option.key}", lang))
    return Content(text, InlineKeyboardMarkup(rows))


def _shown_choice(option: Option, choice: str) -> Any:
    """A choice in the form ``shown`` reads (a tuple for the 一色 toggles)."""
    return (choice,) if option.key == "liable_yi_se" else choice


# --- handlers -----------------------------------------------------------------------------------------------
async def settings_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    if chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        manager.outbox.announce(chat.id, t("settings_group_only", await language_for(manager.db, chat.id, user)))
        return
    settings = await manager.db.chats.get(chat.id)
    if not await _is_admin(context, chat.id, user.id):
        manager.outbox.announce(chat.id, t("settings_admins_only", settings.language))
        return
    manager.outbox.show(chat.id, SLOT, menu(settings, "main"), fresh=True)


async def settings_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    manager = manager_of(context)
    chat_id = query.message.chat.id
    settings = await manager.db.chats.get(chat_id)
    parts = (query.data or "").split("|")
    notice: str | None = None
    if not await _is_admin(context, chat_id, query.from_user.id):
        notice = t("settings_admins_only", settings.language)
    elif len(parts) == 3 and parts[1] == "p" and (parts[2] in ("main", "rules") or parts[2] in OPTIONS):
        manager.outbox.show(chat_id, SLOT, menu(settings, parts[2]))
    elif len(parts) == 4 and parts[1] == "s" and parts[2] in OPTIONS:
        notice = await _set(manager, chat_id, settings, OPTIONS[parts[2]], parts[3], query.from_user.full_name)
    else:
        notice = t("settings_stale", settings.language)
    await query.answer(notice)
    raise ApplicationHandlerStop  # the table's own button handler must not see this press


async def _set(manager: TableManager, chat_id: int, settings: ChatSettings, option: Option, choice: str,
               who: str) -> str:
    """Store one change, announce it, refresh the menu; the press's short answer."""
    try:
        updated = await manager.db.chats.update(chat_id, **changes_for(settings, option, choice))
    except (SettingRefused, StorageError) as e:
        log.info("chat %s: setting %s=%s refused: %s", chat_id, option.key, choice, e)
        return t("settings_refused", settings.language)
    lang = updated.language
    if updated != settings:
        key = "settings_changed_next_game" if option.key == "hands_per_game" else "settings_changed"
        manager.outbox.announce(chat_id, t(key, lang, name=who, setting=t(f"set_{option.key}", lang),
                                           value=shown(option, current(updated, option), lang)))
        table = manager.tables.get(chat_id)
        if table is not None and table.state == "lobby":  # nothing dealt yet: the next hand is the first
            await manager.follow_settings(table)
    manager.outbox.show(chat_id, SLOT, menu(updated, option.key))
    return t("settings_saved", lang)


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    application.add_handler(CommandHandler("settings", settings_command))
    application.add_handler(CallbackQueryHandler(settings_press, pattern=rf"^{PREFIX}\|"), group=-1)

