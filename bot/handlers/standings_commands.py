"""Standings commands: /me, /top, /rank and /history (with a replay of any hand), in groups and privately.

- /me: the asker's card picture (title, skill, record, skill over time).
- /top [month]: the group's leaderboard picture, all time or this month (UTC), with buttons to switch.
- /rank: the titles of RULES.md §10 with their skill thresholds, the asker's own marked.
- /history: the asker's last hands, each with a ▶ button that replays it as a text log
  (``bot.views.standings_views.replay_text``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Final

from telegram import Update

from bot.context import BotContext
from bot.handlers.chat_checks import command_id, in_group, reply
from bot.i18n import language_for, private_language, t
from bot.outbox import Content
from bot.play.callback_data import fields
from bot.views.standings_views import (
    PERIODS,
    card_content,
    chunks,
    history_markup,
    history_text,
    rank_text,
    replay_text,
    top_content,
)
from game.table import Action, Hand
from storage.database import Database
from storage.errors import StorageError
from storage.standings import Period

log = logging.getLogger(__name__)

HISTORY_HANDS: Final = 10
# Words after /top that mean "this month".
_MONTH_WORDS: Final = frozenset({"month", "m", "月", "本月", "这个月"})
_ALL_WORDS: Final = frozenset({"all", "总", "总榜", "全部"})


async def me_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    await context.db.players.upsert(user.id, user.full_name)  # the card shows their name as it is now
    card = await context.db.standings.card(user.id)
    context.outbox.show(chat.id, f"me{user.id}", replace(card_content(card, lang), reply_to=command_id(update)),
                        fresh=True)


async def _top(db: Database, chat_id: int, title: str, period: str, lang: str) -> Content:
    key = Period.month_of(db.now()) if period == "month" else Period.all_time()
    return top_content(await db.standings.leaderboard(chat_id, key), title, period, lang)


async def top_command(update: Update, context: BotContext) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    if not in_group(update):
        reply(update, context, t("top_group_only", lang))
        return
    said = " ".join(context.args or [])
    if said and said.lower() not in _MONTH_WORDS | _ALL_WORDS:
        reply(update, context, t("top_unknown", lang, said=said[:40]))
        return
    period = "month" if said.lower() in _MONTH_WORDS else "all"
    board = await _top(context.db, chat.id, chat.title or "", period, lang)
    context.outbox.show(chat.id, "top", replace(board, reply_to=command_id(update)), fresh=True)


async def rank_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    player = await context.db.players.upsert(user.id, user.full_name)
    reply(update, context, rank_text(player.skill, lang))


async def history_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    entries = await context.db.standings.history(user.id, HISTORY_HANDS)
    reply(update, context, history_text(entries, lang), history_markup(entries))


async def replay_for(db: Database, hand_id: int, user_id: int, lang: str) -> str:
    """The replay of a stored hand, from the asker's seat if they played it."""
    record = await db.hands.get(hand_id)
    if record.status != "done":
        return t("replay_unavailable", lang)
    actions = [Action.from_json(a) for a in await db.hands.actions(hand_id)]
    hand = Hand.replay(record.rules, record.seed, record.dealer, actions)
    names = []
    for s in record.seats:
        player = await db.players.get(s.player_id) if s.player_id is not None else None
        names.append(player.display_name if player is not None else t("seat_bot", lang))
    viewer = next((i for i, s in enumerate(record.seats) if s.player_id == user_id), None)
    return replay_text(hand, viewer, names, record.hand_no, lang)


async def standings_press(update: Update, context: BotContext) -> None:
    """``sd1|top|<period>`` switches the leaderboard; ``sd1|h|<hand>`` replays a hand."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    chat = query.message.chat
    lang = await language_for(context.db, chat.id, query.from_user)
    kind, value = fields(query.data)
    notice: str | None = None
    if kind == "top" and value in PERIODS and chat.id < 0:
        context.outbox.show(chat.id, "top", await _top(context.db, chat.id, chat.title or "", value, lang))
    elif kind == "h":
        try:
            text = await replay_for(context.db, int(value), query.from_user.id, lang)
        except (StorageError, ValueError) as e:  # a hand not stored, or not replayable any more
            log.warning("replay of hand %s failed: %s", value, e)
            text = t("replay_unavailable", lang)
        for n, part in enumerate(chunks(text)):
            context.outbox.show(chat.id, f"replay{value}.{n}", Content(part), fresh=True)
    else:
        notice = t("settings_stale", await private_language(context.db, query.from_user))
    await query.answer(notice)
