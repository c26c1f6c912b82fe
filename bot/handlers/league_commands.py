"""/league and the league nights' sign-up buttons (``lg1|<night>|in|out``).

``/league [create|pause|resume|end|close|set|table|next|help] …``: the work is ``bot.league.subcommands``;
the admin-only subcommands are checked here.
"""

from __future__ import annotations

import logging

from telegram import Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, in_group, is_admin, is_member, reply
from bot.i18n import private_language, t
from bot.league.subcommands import ADMIN_SUBCOMMANDS, run_subcommand
from storage.errors import StorageError

log = logging.getLogger(__name__)


async def league_command(update: Update, context: BotContext) -> None:
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None or message is None or not message.text:
        return
    if not in_group(update):
        reply(update, context, t("group_only", await private_language(context.db, user)))
        return
    words = message.text.split(maxsplit=2)
    sub = words[1].lower() if len(words) > 1 else ""
    rest = words[2] if len(words) > 2 else ""
    nights, lang = context.nights, await private_language(context.db, user)  # the answer speaks the asker's
    if sub in ADMIN_SUBCOMMANDS and not await is_admin(context, chat.id, user.id):
        notice: str | None = t("league_admin_only", lang)
    else:
        notice = await run_subcommand(nights, chat.id, sub, rest, lambda text: reply(update, context, text), lang)
    if notice:
        reply(update, context, notice)


async def signup_press(update: Update, context: BotContext) -> None:
    """A press of "I'm in" / "Not this time"."""
    query = update.callback_query
    if query is None:
        return
    night_id, choice = fields(query.data)
    lang = await private_language(context.db, query.from_user)  # the answer speaks the presser's language
    nights = context.nights
    try:
        chat_id = await nights.chat_of(int(night_id))
        if choice == "in" and not await is_member(context, chat_id, query.from_user.id):
            await answer(query, t("league_not_member", lang))
            return
        notice = await nights.sign(int(night_id), query.from_user.id, query.from_user.full_name, choice == "in", lang)
    except StorageError as e:
        log.info("sign-up press refused: %s", e)
        notice = t("league_signups_closed", lang)
    await answer(query, notice)
