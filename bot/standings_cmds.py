"""Standings commands: /me, /top, /rank and /history (with a replay of any hand), in groups and privately.

    register(application)        # in bot.__main__.build_application

- /me: the asker's card picture (title, skill, record, skill over time: ``rendering.render_player_card``).
- /top [month]: the group's leaderboard picture, all time or this month (UTC), with buttons to switch.
- /rank: the titles of RULES.md §10 with their skill thresholds, the asker's own marked.
- /history: the asker's last hands, each with a button that replays it as a text log: the hand's stored actions
  replayed through ``game.table.Hand.replay``, its events shown from the asker's seat (their own draws; never
  another seat's hidden tiles), then every hand as revealed at the end and the payments.

Callback data: ``sd1|top|all`` / ``sd1|top|month`` and ``sd1|h|<hand id>``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import UTC
from typing import TYPE_CHECKING, Any, Final

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import Application, ApplicationHandlerStop, CallbackQueryHandler, CommandHandler, ContextTypes

from bot.handlers import manager_of
from bot.i18n import language_for, t
from bot.outbox import Content
from game.patterns import PATTERNS
from game.table import Action, Event, Hand
from game.tiles import format_tiles, parse_tile, tile_label
from game.titles import TITLES, title_for
from rendering.labels import Lang
from rendering.standings import LeaderboardRow, PlayerCard, render_leaderboard, render_player_card
from storage.database import Database
from storage.errors import StorageError
from storage.standings import HistoryEntry, Period

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

PREFIX: Final = "sd1"
HISTORY_HANDS: Final = 10
MAX_TEXT: Final = 4000  # a Telegram message holds 4096 characters
PERIODS: Final = ("all", "month")
# Words after /top that mean "this month".
_MONTH_WORDS: Final = frozenset({"month", "m", "月", "本月", "这个月"})


def _lang_of(lang: str) -> Lang:
    return "zh" if lang == "zh" else "en"


# --- /me ----------------------------------------------------------------------------------------------------
async def me_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, user)
    await manager.db.players.upsert(user.id, user.full_name)  # the card shows their name as it is now
    card = await manager.db.standings.card(user.id)
    p = card.player
    picture = PlayerCard(p.display_name, p.skill, p.hands, p.wins, p.biggest_win,
                         tuple(point.skill for point in card.skill_history))
    title = p.title.zh if lang == "zh" else p.title.en
    caption = t("me_caption", lang, name=p.display_name, title=title, skill=p.skill, hands=p.hands, wins=p.wins,
                rate=round(100 * p.win_rate), best=p.biggest_win)
    manager.outbox.show(chat.id, f"me{user.id}", Content(caption, render=lambda: render_player_card(picture,
                                                                                                  _lang_of(lang))),
                        fresh=True)


# --- /top ---------------------------------------------------------------------------------------------------
async def top_content(db: Database, chat_id: int, title: str, period: str, lang: str) -> Content:
    key = Period.month_of(db.now()) if period == "month" else Period.all_time()
    entries = await db.standings.leaderboard(chat_id, key)
    rows = [LeaderboardRow(e.rank, e.display_name, e.skill, e.hands, e.points) for e in entries]
    heading = f"{title} · {t(f'top_period_{period}', lang)}"
    buttons = [
        InlineKeyboardButton(("✓ " if p == period else "") + t(f"top_period_{p}", lang),
                             callback_data=f"{PREFIX}|top|{p}")
        for p in PERIODS
    ]
    caption = t("top_caption", lang, period=t(f"top_period_{period}", lang), count=len(rows))
    return Content(caption, InlineKeyboardMarkup([buttons]),
                   render=lambda: render_leaderboard(rows, _lang_of(lang), heading))


async def top_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, update.effective_user)
    if chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        manager.outbox.announce(chat.id, t("top_group_only", lang))
        return
    period = "month" if context.args and context.args[0].lower() in _MONTH_WORDS else "all"
    content = await top_content(manager.db, chat.id, chat.title or "", period, lang)
    manager.outbox.show(chat.id, "top", content, fresh=True)


# --- /rank --------------------------------------------------------------------------------------------------
def rank_text(skill: int, lang: str) -> str:
    mine = title_for(skill)
    lines = []
    for title in TITLES:
        name = title.zh if lang == "zh" else title.en
        threshold = t("rank_below_zero", lang) if title.min_skill is None else f"≥ {title.min_skill}"
        lines.append(("👉 " if title == mine else "   ") + f"{name}  {threshold}")
    return t("rank_text", lang, skill=skill, lines="\n".join(lines))


async def rank_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, user)
    player = await manager.db.players.upsert(user.id, user.full_name)
    manager.outbox.announce(chat.id, rank_text(player.skill, lang))


# --- /history and replays -------------------------------------------------------------------------------------
def history_text(entries: Sequence[HistoryEntry], lang: str) -> str:
    if not entries:
        return t("history_none", lang)
    lines = []
    for n, e in enumerate(entries, 1):
        when = e.ended_at.astimezone(UTC).strftime("%m-%d %H:%M")
        if e.won:
            outcome = " · ".join(_pattern(p, lang) for p in (e.summary or {}).get("patterns", ()))
        elif e.winner is None:
            outcome = t("history_exhausted", lang)
        else:
            outcome = t("history_lost", lang, wind=t(f"wind_{e.winner}", lang))
        lines.append(t("history_line", lang, n=n, when=when, wind=t(f"wind_{e.seat}", lang), points=f"{e.points:+d}",
                       outcome=outcome))
    return t("history_text", lang, lines="\n".join(lines))


def _pattern(pattern_id: str, lang: str) -> str:
    p = PATTERNS.get(pattern_id)
    return pattern_id if p is None else p.zh if lang == "zh" else p.en


async def history_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    manager = manager_of(context)
    lang = await language_for(manager.db, chat.id, user)
    entries = await manager.db.standings.history(user.id, HISTORY_HANDS)
    buttons = [
        InlineKeyboardButton(f"▶ {n}", callback_data=f"{PREFIX}|h|{e.hand_id}") for n, e in enumerate(entries, 1)
    ]
    markup = InlineKeyboardMarkup([buttons[i : i + 5] for i in range(0, len(buttons), 5)]) if buttons else None
    manager.outbox.announce(chat.id, history_text(entries, lang), markup)


def replay_text(hand: Hand, viewer: int | None, names: Sequence[str], number: int, lang: str) -> str:
    """A finished hand as readable lines, seen from ``viewer``'s seat (None: as a spectator)."""
    def seat(s: int) -> str:
        return f"{t(f'wind_{s}', lang)} {names[s]}"

    def tile(raw: str) -> str:
        return tile_label(parse_tile(raw), lang)

    lines = [t("replay_head", lang, number=number, dealer=seat(hand.dealer), laizi=tile_label(hand.laizi, lang),
               indicator=tile_label(hand.indicator, lang), preset=t(f"value_preset_{hand.rules.preset}", lang))]
    for event in hand.log:
        line = _event_line(event.for_seat(viewer), viewer, seat, tile, lang)
        if line:
            lines.append(line)
    revealed = hand.view(viewer).revealed or ()
    lines += [t("replay_revealed", lang, seat=seat(s), tiles=format_tiles(tiles)) for s, tiles in enumerate(revealed)]
    payments = hand.result.payments if hand.result is not None else (0, 0, 0, 0)
    lines.append(t("replay_payments", lang, payments=" · ".join(f"{seat(s)} {p:+d}" for s, p in enumerate(payments))))
    return "\n".join(lines)


def _event_line(e: Event, viewer: int | None, seat: Any, tile: Any, lang: str) -> str | None:
    data = e.data
    if e.kind == "deal":
        return t("replay_deal", lang, tiles=data["hand"]) if "hand" in data and e.seat == viewer else None
    if e.kind in ("draw", "haidi"):
        if "tile" not in data:
            return None  # another seat's draw: nothing to see
        return t(f"replay_{e.kind}", lang, seat=seat(e.seat), tile=tile(data["tile"]))
    if e.kind == "pass":
        return None
    if e.kind == "exhausted":
        return t("replay_exhausted", lang)
    if e.kind == "win":
        patterns = " · ".join(_pattern(p, lang) for p in data.get("settlement", {}).get("patterns", ()))
        return t("replay_win", lang, seat=seat(e.seat), tile=tile(data["tile"]), how=t(f"how_{data['how']}", lang),
                 patterns=patterns)
    shown_tile = tile(data["tile"]) if "tile" in data else "?"
    giver = seat(data["from"]) if data.get("from") is not None else ""
    return t(f"replay_{e.kind}", lang, seat=seat(e.seat), tile=shown_tile, giver=giver)


async def replay_for(db: Database, hand_id: int, user_id: int, lang: str) -> str:
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


def chunks(text: str, size: int = MAX_TEXT) -> list[str]:
    """Whole lines packed into messages of at most ``size`` characters."""
    out: list[str] = []
    for line in text.split("\n"):
        if out and len(out[-1]) + 1 + len(line) <= size:
            out[-1] += "\n" + line
        else:
            out.append(line[:size])
    return out


async def standings_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    query = update.callback_query
    if query is None or query.message is None:
        return
    manager = manager_of(context)
    chat = query.message.chat
    lang = await language_for(manager.db, chat.id, query.from_user)
    parts = (query.data or "").split("|")
    notice: str | None = None
    if parts[1] == "top" and parts[2] in PERIODS and chat.id < 0:
        manager.outbox.show(chat.id, "top", await top_content(manager.db, chat.id, chat.title or "", parts[2], lang))
    elif parts[1] == "h" and parts[2].isdigit():
        try:
            text = await replay_for(manager.db, int(parts[2]), query.from_user.id, lang)
        except (StorageError, ValueError) as e:  # a hand not stored, or not replayable any more
            log.warning("replay of hand %s failed: %s", parts[2], e)
            text = t("replay_unavailable", lang)
        for n, part in enumerate(chunks(text)):
            manager.outbox.show(chat.id, f"replay{parts[2]}.{n}", Content(part), fresh=True)
    else:
        notice = t("settings_stale", lang)
    await query.answer(notice)
    raise ApplicationHandlerStop  # the table's own button handler must not see this press


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    application.add_handler(CommandHandler("me", me_command))
    application.add_handler(CommandHandler("top", top_command))
    application.add_handler(CommandHandler("rank", rank_command))
    application.add_handler(CommandHandler("history", history_command))
    application.add_handler(
        CallbackQueryHandler(standings_press, pattern=rf"^{PREFIX}\|(top\|(all|month)|h\|\d+)$"), group=-1
    )

