"""Quick match's messages (``bot.quick``): /play's choice of preset, the one waiting message (how many wait,
the wait before automatic players, Cancel), and what it becomes once matched or left.

    content = waiting_content("en", waiting=3, wait_s=60, waits=(30, 60, 180))
"""

from __future__ import annotations

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import quick_data
from bot.i18n import t
from bot.outbox import Content
from bot.views.rows import rows_by_width
from game.rules import PRESETS

SLOT = "quick"  # the waiting message's outbox slot in the person's private chat


def wait_label(seconds: int, lang: str) -> str:
    return t("quick_wait_min", lang, n=seconds // 60) if seconds % 60 == 0 else t("value_seconds", lang, n=seconds)


def play_button(lang: str) -> InlineKeyboardButton:
    """The button that starts a quick match (/start, a finished match's result, /help's places)."""
    return InlineKeyboardButton(t("btn_quick", lang), callback_data=quick_data("go"))


def preset_content(lang: str) -> Content:
    """/play: which rules, named as in /settings."""
    buttons = [InlineKeyboardButton(t(f"value_preset_{p}", lang), callback_data=quick_data("p", p)) for p in PRESETS]
    return Content(t("quick_choose", lang), InlineKeyboardMarkup(rows_by_width(buttons)))


def waiting_content(
    lang: str, preset: str, waiting: int, wait_s: int, waits: tuple[int, ...], *, resumed: bool = False
) -> Content:
    """The one waiting message: how many wait for this preset, the chosen wait (✓), Cancel; ``resumed``: shown
    again after a restart, which it says."""
    text = t("quick_waiting", lang, preset=t(f"value_preset_{preset}", lang), n=waiting, wait=wait_label(wait_s, lang))
    if resumed:
        text += "\n" + t("quick_resumed", lang)
    choices = [
        InlineKeyboardButton(("✓ " if w == wait_s else "") + wait_label(w, lang), callback_data=quick_data("w", str(w)))
        for w in waits
    ]
    cancel = InlineKeyboardButton(t("btn_quick_cancel", lang), callback_data=quick_data("c"))
    return Content(text, InlineKeyboardMarkup([*rows_by_width(choices), [cancel]]))


def done_content(text: str, lang: str) -> Content:
    """The waiting message once it is over (matched, left, or dropped): no Cancel; left, a button to queue again."""
    return Content(text, InlineKeyboardMarkup([[play_button(lang)]]))
