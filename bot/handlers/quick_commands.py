"""Quick match: /play in the private chat (and its button, ``qm1|go``, on /start, a finished match's result and
the live page), the preset's choice (``qm1|p|<preset>``), the wait's (``qm1|w|<seconds>``) and Cancel
(``qm1|c``). The queue is stored (``storage.quick``); the matchmaker (``bot.quick.matchmaker``) seats people and
edits their one waiting message, the outbox's slot ``quick`` in their private chat, which these handlers show too.
"""

from __future__ import annotations

from telegram import Update, User

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, in_private, reply
from bot.host.one_table import seated_elsewhere
from bot.i18n import private_language, t
from bot.table.key import TableKey
from bot.views.quick_views import SLOT, done_content, preset_content, waiting_content
from game.rules import PRESETS


async def _refusal(context: BotContext, user_id: int, lang: str) -> str | None:
    """Why the person cannot queue now (in their language), or None: waiting already, or at another table."""
    if await context.db.quick.waits(user_id):
        return t("quick_twice", lang)
    elsewhere = seated_elsewhere(context.tables.all(), TableKey(0), user_id) or await context.db.quick.seated(user_id)
    return t("quick_elsewhere", lang, table=elsewhere) if elsewhere is not None else None


async def play_command(update: Update, context: BotContext) -> None:
    """/play: which preset (private chat only)."""
    user = update.effective_user
    if user is None:
        return
    lang = await private_language(context.db, user)
    if not in_private(update):
        reply(update, context, t("quick_private_only", lang))
        return
    await _offer(context, user, lang, None)


async def _offer(context: BotContext, user: User, lang: str, said: str | None) -> str | None:
    """The preset's choice as a new waiting message; the refusal instead (returned) when they cannot queue."""
    refusal = await _refusal(context, user.id, lang)
    if refusal is not None:
        if said is None:
            context.outbox.announce(user.id, refusal)
        return refusal
    context.outbox.show(user.id, SLOT, preset_content(lang), urgent=True, fresh=True)
    return None


async def _count(context: BotContext, preset: str) -> int:
    return sum(w.preset == preset for w in await context.db.quick.waiting())


async def quick_press(update: Update, context: BotContext) -> None:
    query, user = update.callback_query, update.effective_user
    if query is None or user is None:
        return
    lang = await private_language(context.db, user)
    kind, *rest = fields(query.data)
    waits = context.config.quick_waits
    notice: str | None = None
    if kind == "go":
        notice = await _offer(context, user, lang, "")
    elif kind == "p" and rest[0] in PRESETS:
        notice = await _refusal(context, user.id, lang)
        if notice is None:
            wait = waits[len(waits) // 2]  # the middle one: 1 min unless configured
            await context.db.players.upsert(user.id, user.full_name)
            await context.db.quick.join(user.id, rest[0], wait)
            count = await _count(context, rest[0])
            context.outbox.show(user.id, SLOT, waiting_content(lang, rest[0], count, wait, waits), urgent=True)
    elif kind == "w" and int(rest[0]) in waits:
        mine = [w for w in await context.db.quick.waiting() if w.player_id == user.id]
        if not mine or not await context.db.quick.set_wait(user.id, int(rest[0])):
            notice = t("quick_not_waiting", lang)
        else:
            count = await _count(context, mine[0].preset)
            content = waiting_content(lang, mine[0].preset, count, int(rest[0]), waits)
            context.outbox.show(user.id, SLOT, content, urgent=True)
    elif kind == "c":
        if await context.db.quick.leave(user.id):
            context.outbox.show(user.id, SLOT, done_content(t("quick_left", lang), lang), urgent=True)
            context.outbox.forget(user.id, SLOT)
        else:
            notice = t("quick_not_waiting", lang)
    else:
        notice = t("press_stale", lang)
    await answer(query, notice)
