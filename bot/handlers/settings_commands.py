"""/settings: a group's admins set its table and rules from an inline menu; changes apply from the next hand.

The menu is ``bot.views.menu_views``, the options and their choices ``bot.settings_options``. Every change is
stored with ``storage.chats`` and announced in the group; the table reads the settings before each hand
of the group's own table (``follow_settings``), so a hand in play keeps the rules it was dealt with. Hands per
game applies from the next game. Only group admins may open the menu or press its buttons.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from typing import Final

from telegram import Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, command_id, in_group, is_admin, reply, show_here, topic_of
from bot.i18n import language_for, private_language, t
from bot.settings_options import OPTIONS, Option, SettingRefused, changes_for, current, shown
from bot.table.messages import FollowSettings
from bot.views.menu_views import menu
from storage.chats import ChatSettings
from storage.errors import StorageError

log = logging.getLogger(__name__)

SLOT: Final = "settings"


async def settings_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    if not in_group(update):
        reply(update, context, t("settings_group_only", await language_for(context.db, chat.id, user)))
        return
    if not await is_admin(context, chat.id, user.id):
        reply(update, context, t("settings_admins_only", await language_for(context.db, chat.id, user)))
        return
    settings = await context.db.chats.get(chat.id)
    show_here(update, context, SLOT, replace(menu(settings, "main"), reply_to=command_id(update)), fresh=True)


async def settings_press(update: Update, context: BotContext) -> None:
    """``st1|p|<page>`` opens a page; ``st1|s|<key>|<choice>`` sets a choice."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    chat_id = query.message.chat.id
    settings = await context.db.chats.get(chat_id)
    presser = await private_language(context.db, query.from_user)  # the answer speaks the presser's language
    parts = fields(query.data)
    notice: str | None = None
    if not await is_admin(context, chat_id, query.from_user.id):
        notice = t("settings_admins_only", presser)
    elif len(parts) == 2 and parts[0] == "p" and (parts[1] in ("main", "rules") or parts[1] in OPTIONS):
        show_here(update, context, SLOT, menu(settings, parts[1]))
    elif len(parts) == 3 and parts[0] == "s" and parts[1] in OPTIONS:
        change = Change(OPTIONS[parts[1]], parts[2], query.from_user.full_name, presser)
        notice = await _set(update, context, settings, change)
    else:
        notice = t("settings_stale", presser)
    await answer(query, notice)


@dataclass(frozen=True)
class Change:
    """One press of a choice: the option, the choice, who pressed and the language of their answer."""

    option: Option
    choice: str
    who: str
    lang: str


async def _set(update: Update, context: BotContext, settings: ChatSettings, change: Change) -> str:
    """Store one change, announce it (in the menu's forum topic), refresh the menu; the press's short answer.
    The settings are the group's: a lobby in any of its topics follows them."""
    option, choice, who = change.option, change.choice, change.who
    chat_id = settings.chat_id
    try:
        updated = await context.db.chats.update(chat_id, **changes_for(settings, option, choice))
    except (SettingRefused, StorageError) as e:
        log.info("chat %s: setting %s=%s refused: %s", chat_id, option.key, choice, e)
        if isinstance(e, StorageError):
            return t("settings_refused", change.lang)
        setting = t(f"set_{option.key}", change.lang)
        return t("settings_refused_choice", change.lang, setting=setting, choice=choice[:40])
    lang = updated.language
    if updated != settings:
        context.outbox.announce(
            chat_id,
            t(
                option.notice,
                lang,
                name=who,
                setting=t(f"set_{option.key}", lang),
                value=shown(option, current(updated, option), lang),
            ),
            thread=topic_of(update),
        )
        for table in context.tables.of_group(chat_id):  # a lobby follows at once, a match from its next hand
            context.tables.post(table.key, FollowSettings())
    show_here(update, context, SLOT, menu(updated, option.key))
    return t("settings_saved", change.lang)
