"""The /settings menu: a main page (table settings), a page of every RULES.md §9 option, one page per setting.

menu(settings, "main")      # -> Content: the text and the buttons (``callback_data.settings_data``)
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import settings_data
from bot.i18n import t
from bot.outbox import Content
from bot.settings_options import OPTIONS, RULE_OPTIONS, TABLE_OPTIONS, Option, choice_shown, current, marked, shown
from bot.views.rows import rows_by_width
from storage.chats import ChatSettings


def _button(label: str, *parts: str) -> InlineKeyboardButton:
    return InlineKeyboardButton(label, callback_data=settings_data(*parts))


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
    ticks = marked(option, value)
    buttons = [
        _button(("✓ " if ticks[c] else "") + choice_shown(option, c, lang), "s", option.key, c) for c in option.choices
    ]
    rows = rows_by_width(buttons)
    rows.append([_button(t("settings_back", lang), "p", "rules" if option.rule else "main")])
    text = t(
        "settings_pick",
        lang,
        setting=t(f"set_{option.key}", lang),
        value=shown(option, value, lang),
        about=t(f"about_{option.key}", lang),
    )
    return Content(text, InlineKeyboardMarkup(rows))
