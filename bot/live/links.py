"""The Mini App's buttons: in a player's private picture a ``web_app`` button (Telegram allows those only in
private chats), in the group's picture a link ``t.me/<bot>/<app>?startapp=<table token>`` that opens the same
page there. None of them when the Mini App is off (no ``MAHJONG_WEBAPP_URL``); no group link without the
app's short name (``MAHJONG_WEBAPP_NAME``).
"""

from __future__ import annotations

from dataclasses import replace
from urllib.parse import urlencode

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.config import Config
from bot.i18n import t
from bot.live.auth import table_token
from bot.outbox import Content
from bot.table.key import TableKey


def page_url(config: Config, key: TableKey) -> str | None:
    """The page of the table ``key``, for a ``web_app`` button; None when the Mini App is off."""
    if config.webapp_url is None:
        return None
    return f"{config.webapp_url}?{urlencode({'table': table_token(key, config.token)})}"


def group_link(config: Config, bot_username: str, key: TableKey) -> str | None:
    """The t.me link that opens the Mini App at the table from a group; None without its short name."""
    if config.webapp_url is None or config.webapp_name is None or not bot_username:
        return None
    return f"https://t.me/{bot_username}/{config.webapp_name}?startapp={table_token(key, config.token)}"


def _with_button(content: Content, button: InlineKeyboardButton) -> Content:
    rows = [list(row) for row in content.markup.inline_keyboard] if content.markup is not None else []
    return replace(content, markup=InlineKeyboardMarkup([*rows, [button]]))


def with_page_button(content: Content, config: Config, key: TableKey, lang: str) -> Content:
    """A player's picture with the button that opens the table's page (unchanged when the Mini App is off)."""
    url = page_url(config, key)
    if url is None:
        return content
    return _with_button(content, InlineKeyboardButton(t("btn_live", lang), web_app=WebAppInfo(url)))


def with_group_link(content: Content, config: Config, bot_username: str, key: TableKey, lang: str) -> Content:
    """The group's picture with the link that opens the table's page (unchanged without one)."""
    url = group_link(config, bot_username, key)
    if url is None:
        return content
    return _with_button(content, InlineKeyboardButton(t("btn_live_group", lang), url=url))
