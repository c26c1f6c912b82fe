"""Replays and proofs of settled hands, by share code (the code in each result and in /history):

- ``/replay <code>``: one picture message that steps through the hand (⏮ ◀ ▶ ⏭), from any seat or with every
  hand open; ``/replay <code> gif``: the whole hand as an animation; ``/replay <code> text``: the hand as a
  text log from the asker's seat. A code works for anyone who has it; only settled hands have one.
- ``/verify <code>``: the commitment shown at the deal, the seed behind it, whether they match, the deal.

Stepping edits one message per chat and code: presses faster than the chat's pace coalesce in the outbox. Each
press moves from the step that message shows (remembered per message, the newest ``STEPS_KEPT``), so a burst of
taps lands where the taps add up to, however many of the pictures between were skipped.
"""

from __future__ import annotations

from typing import Final

from telegram import Update

from bot.callbacks import fields
from bot.context import BotContext
from bot.handlers.chat_checks import answer, here, reply, show_here
from bot.handlers.standings_commands import replay_for
from bot.i18n import language_for, private_language, t
from bot.outbox import Content
from bot.views.replay_views import animation_content, moved_to, replay_content, verify_text
from bot.views.standings_views import chunks
from storage.hands import SharedHand

STEPS_KEPT: Final = 1000  # replay messages whose step is remembered


def _slot(code: str) -> str:
    return f"replay{code}"


def _remember(update: Update, context: BotContext, code: str, step: int) -> None:
    """The step the chat's replay message of ``code`` shows from now on (the newest STEPS_KEPT kept)."""
    chat = update.effective_chat
    assert chat is not None
    steps, key = context.bot_data.replay_steps, (chat.id, here(update, _slot(code)))
    steps.pop(key, None)
    steps[key] = step
    while len(steps) > STEPS_KEPT:
        del steps[next(iter(steps))]


def _seen(update: Update, context: BotContext, code: str) -> int | None:
    chat = update.effective_chat
    assert chat is not None
    return context.bot_data.replay_steps.get((chat.id, here(update, _slot(code))))


async def _shared(update: Update, context: BotContext, lang: str, usage: str) -> SharedHand | None:
    """The hand the command's first argument names; None (and the reason said) when there is none."""
    chat = update.effective_chat
    assert chat is not None
    if not context.args:
        reply(update, context, t(usage, lang))
        return None
    shared = await context.db.hands.by_code(context.args[0])
    if shared is None:
        reply(update, context, t("replay_no_code", lang, code=context.args[0][:12]))
    return shared


async def replay_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    shared = await _shared(update, context, lang, "replay_usage")
    if shared is None:
        return
    args = context.args or []
    mode = args[1].lower() if len(args) > 1 else ""
    if mode == "gif":
        animation = animation_content(shared, None, lang, context.bot_data.pool)
        show_here(update, context, f"gif{shared.code}", animation, fresh=True)
    elif mode == "text":
        for n, part in enumerate(chunks(await replay_for(context.db, shared.hand.id, user.id, lang))):
            show_here(update, context, f"replay{shared.code}.{n}", Content(part), fresh=True)
    else:
        _remember(update, context, shared.code, 0)
        show_here(update, context, _slot(shared.code), replay_content(shared, 0, None, lang), fresh=True)


async def verify_command(update: Update, context: BotContext) -> None:
    user, chat = update.effective_user, update.effective_chat
    if user is None or chat is None:
        return
    lang = await language_for(context.db, chat.id, user)
    shared = await _shared(update, context, lang, "verify_usage")
    if shared is not None:
        reply(update, context, verify_text(shared, lang))


async def replay_press(update: Update, context: BotContext) -> None:
    """``rp1|<code>|<move>|<seat>`` moves the replay; ``rp1|<code>|gif|<seat>`` sends the animation."""
    query = update.callback_query
    if query is None or query.message is None:
        return
    chat_id = query.message.chat.id
    lang = await language_for(context.db, chat_id, query.from_user)
    presser = await private_language(context.db, query.from_user)  # the answer speaks the presser's language
    code, step, seat_field = fields(query.data)
    shared = await context.db.hands.by_code(code)
    if shared is None:
        await answer(query, t("replay_no_code", presser, code=code))
        return
    seat = None if seat_field == "a" else int(seat_field)
    if step == "gif":
        animation = animation_content(shared, seat, lang, context.bot_data.pool)
        show_here(update, context, f"gif{code}", animation, fresh=True)
        await answer(query, t("replay_gif_coming", presser))
        return
    # No await between reading the step shown and remembering the new one: presses in a burst add up.
    to = moved_to(step, _seen(update, context, code), len(shared.actions))
    _remember(update, context, code, to)
    show_here(update, context, _slot(code), replay_content(shared, to, seat, lang))
    await answer(query)
