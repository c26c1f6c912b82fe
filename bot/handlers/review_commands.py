"""/review <code> and the "复盘 / Review" button of a private result (``rv1|<code>``): each of the asker's
decisions in that hand against the search's, as a picture (``bot.review_queue``)."""

from __future__ import annotations

from telegram import Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, reply
from bot.i18n import language_for, t


async def review_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, user.id, user)  # the review is sent privately, in their language
    if not context.args:
        reply(update, context, t("review_usage", lang))
        return
    notice = await context.reviews.request(user.id, lang, context.args[0])
    if notice is not None:
        reply(update, context, notice)
    elif chat.id != user.id:
        reply(update, context, t("review_sent_privately", lang))


async def review_press(update: Update, context: BotContext) -> None:
    query = update.callback_query
    if query is None:
        return
    lang = await language_for(context.db, query.from_user.id, query.from_user)
    notice = await context.reviews.request(query.from_user.id, lang, fields(query.data)[0])
    await answer(query, notice or t("review_started", lang))
