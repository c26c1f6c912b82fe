"""Standings commands: /me, /stats, /top, /rank and /history, in groups and privately.

- /me: the asker's card picture (title, skill, record, skill over time, statistics over all time, this month and
  this season); /stats [@user | as a reply]: the same card of another player.
- /top [week|month|season|all]: the group's leaderboard picture (UTC weeks and months; a season is the group's
  league season, else the calendar quarter), with buttons to switch; /top <pattern> (清一色, hard, …): who made
  that pattern most often.
- /rank: the titles of RULES.md §10 with their skill thresholds, the asker's own marked.
- /history: the asker's last hands, each with a ▶ button that replays it as a text log
  (``bot.views.standings_views.replay_text``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Final

from telegram import MessageEntity, Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, command_id, here, in_group, may_see_hand, reply, show_here
from bot.i18n import language_for, private_language, t
from bot.outbox import Content
from bot.views.standings_views import (
    PERIODS,
    card_content,
    chunks,
    global_top_text,
    history_markup,
    history_text,
    pattern_board_text,
    rank_text,
    rating_text,
    replay_text,
    top_content,
)
from game.actions import Action
from game.patterns import PATTERNS
from game.table import Hand
from storage.database import Database
from storage.errors import StorageError
from storage.standings import Period

log = logging.getLogger(__name__)

HISTORY_HANDS: Final = 10
GLOBAL_TOP: Final = 10  # the people /top global lists
_GLOBAL_WORDS: Final = {"global", "g", "全站", "全球"}
# Words after /top for each period.
_PERIOD_WORDS: Final = {
    "week": {"week", "w", "周", "本周", "这周"},
    "month": {"month", "m", "月", "本月", "这个月"},
    "season": {"season", "s", "季", "本季", "赛季"},
    "all": {"all", "a", "全部", "总"},
}
# /top <pattern>: each pattern by its id, its Chinese and English names; "hard" for 硬胡.
_PATTERN_WORDS: Final = {
    **{word.lower(): pid for pid, p in PATTERNS.items() if pid != "pi_hu" for word in (pid, p.zh, p.en)},
    "hard": "hard",
    "硬胡": "hard",
    "hard win": "hard",
}


async def _show_card(update: Update, context: BotContext, player_id: int, lang: str) -> None:
    """The player's card in the chat of the command, as its reply."""
    assert update.effective_chat is not None
    chat_id = update.effective_chat.id
    card = await context.db.standings.card(player_id)
    stats = await context.db.stats.player(player_id, context.db.now(), chat_id if chat_id < 0 else None)
    content = card_content(card, stats, lang)
    rating = rating_text(await context.db.ratings.get(player_id), lang)  # the rating across all play
    content = replace(content, text=f"{content.text}\n{rating}", reply_to=command_id(update))
    show_here(update, context, f"me{player_id}", content, fresh=True)


async def me_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    await context.db.players.upsert(user.id, user.full_name)  # the card shows their name as it is now
    await _show_card(update, context, user.id, lang)


async def _stats_target(update: Update, context: BotContext) -> int | None:
    """Whose statistics /stats asks for: the replied-to person, a mentioned one, or the asker."""
    message, user = update.effective_message, update.effective_user
    assert message is not None and user is not None
    if message.reply_to_message is not None and message.reply_to_message.from_user is not None:
        return message.reply_to_message.from_user.id
    for entity, text in message.parse_entities().items():
        if entity.type == MessageEntity.TEXT_MENTION and entity.user is not None:
            return entity.user.id
        if entity.type == MessageEntity.MENTION:
            player = await context.db.players.by_username(text)
            return player.id if player is not None else None
    return user.id


async def stats_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None or update.effective_message is None:
        return
    lang = await language_for(context.db, chat.id, user)
    target = await _stats_target(update, context)
    if target == user.id:
        await context.db.players.upsert(user.id, user.full_name)
    if target is None or await context.db.players.get(target) is None:
        reply(update, context, t("stats_unknown", lang))
        return
    await _show_card(update, context, target, lang)


async def _period(db: Database, chat_id: int, period: str) -> Period:
    now = db.now()
    if period == "week":
        return Period.week_of(now)
    if period == "month":
        return Period.month_of(now)
    return await db.standings.season_of(chat_id, now) if period == "season" else Period.all_time()


async def _top(db: Database, chat_id: int, title: str, period: str, lang: str) -> Content:
    entries = await db.standings.leaderboard(chat_id, await _period(db, chat_id, period))
    return top_content(entries, title, period, lang)


async def top_command(update: Update, context: BotContext) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    lang = await language_for(context.db, chat.id, update.effective_user)
    word = " ".join(context.args or ()).strip().lower()
    if word in _GLOBAL_WORDS:  # everyone's rating, anywhere (game.rating)
        reply(update, context, global_top_text(await context.db.ratings.top(GLOBAL_TOP), lang))
        return
    if not in_group(update):
        reply(update, context, t("top_group_only", lang))
        return
    period = next((p for p, words in _PERIOD_WORDS.items() if word in words), "all" if not word else None)
    if period is not None:
        content = await _top(context.db, chat.id, chat.title or "", period, lang)
        show_here(update, context, "top", replace(content, reply_to=command_id(update)), fresh=True)
    elif word in _PATTERN_WORDS:
        entries = await context.db.stats.pattern_board(chat.id, _PATTERN_WORDS[word])
        reply(update, context, pattern_board_text(entries, _PATTERN_WORDS[word], lang))
    else:
        reply(update, context, t("top_usage", lang, word=word[:40]))


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
        show_here(update, context, "top", await _top(context.db, chat.id, chat.title or "", value, lang))
    elif kind == "h":
        try:
            allowed = await may_see_hand(context, int(value), query.from_user.id)
            text = await replay_for(context.db, int(value), query.from_user.id, lang) if allowed else ""
        except (StorageError, ValueError) as e:  # a hand not stored, or not replayable any more
            log.warning("replay of hand %s failed: %s", value, e)
            text = t("replay_unavailable", lang)
        if not text:
            notice = t("replay_not_allowed", lang)
        for n, part in enumerate(chunks(text) if text else ()):
            show_here(update, context, f"replay{value}.{n}", Content(part), fresh=True)
            context.outbox.forget(chat.id, here(update, f"replay{value}.{n}"))  # one message each: nothing kept
    else:
        notice = t("settings_stale", await private_language(context.db, query.from_user))
    await answer(query, notice)
