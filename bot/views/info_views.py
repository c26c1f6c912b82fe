"""The texts of /rules, /calc and /lang: the group's rules in a few lines, a settlement explained.

rules_text(settings, "en")           # every option of the group filled in
calc_answer('{"rules": ...}', "zh")  # the verdict and the breakdown, or the calculator's error
"""

from __future__ import annotations

import json
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import language_data
from bot.i18n import pick, t
from bot.settings_options import OPTIONS, shown
from game.calc import CalcError, calculate
from game.languages import LANGUAGES
from game.scoring import Settlement
from storage.chats import ChatSettings

MAX_ERROR: Final = 300  # characters of a calculator error shown back


def rules_text(settings: ChatSettings, lang: str) -> str:
    """The rules in a few lines, with every option of the group filled in."""
    rules = settings.rules

    def show(key: str) -> str:
        option = OPTIONS[key]
        return shown(option, getattr(rules if option.rule else settings, key), lang)

    bright = t("rules_bright", lang, amount=rules.bright_cap) if rules.bright_cap is not None else ""
    return t(
        "rules_text", lang,
        preset=show("preset"),
        opening=t("rules_opening_per_meld" if rules.per_meld_opening else "rules_opening_once", lang),
        order=show("multi_win_order"), hard=show("hard_factor"), self_small=show("self_draw_small"),
        rob_by=show("qiang_gang_by"), rob_pay=show("qiang_gang_pay"), laizi_gang=show("laizi_gang_factor"),
        self_big=show("self_draw_big"), discarder=show("discarder_factor"), dealer=show("dealer_factor"),
        cap=rules.cap, golden=rules.golden_cap, bright=bright, min_payment=rules.min_payment,
        liable=show("liable_yi_se"), flee=rules.flee_penalty, turn=show("turn_seconds"), claim=show("claim_seconds"),
        hands=settings.hands_per_game, unit=settings.base_unit, auto=show("auto_players"),
    )  # fmt: skip


def calc_answer(raw: str, lang: str) -> str:
    """What /calc answers to ``raw`` (the §11 JSON): the settlement explained, or the error, short."""
    try:
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as e:
            near = e.doc[e.pos : e.pos + 20].split("\n")[0] or e.doc[max(0, e.pos - 20) : e.pos]
            return t("calc_bad_json", lang, line=e.lineno, column=e.colno, near=near)
        except (ValueError, RecursionError) as e:
            raise CalcError(f"not valid JSON: {e}", "calc_err_json_limits") from None
        settlement = calculate(obj)
    except CalcError as e:
        return t("calc_error", lang, error=t(e.code, lang, **e.fields)[:MAX_ERROR])
    return settlement_text(settlement, lang)


def settlement_text(s: Settlement, lang: str) -> str:
    """The verdict, then the calculator's own breakdown, which ends with the payments."""
    verdict = t("calc_valid", lang) if s.valid else t("calc_invalid", lang, reason=t(f"reason_{s.reason}", lang))
    return "\n".join([verdict, *pick(s.breakdown, lang)])


def lang_markup() -> InlineKeyboardMarkup:
    """One button per language, each labelled in its own language."""
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(t(f"value_language_{code}", code), callback_data=language_data(code))
          for code in LANGUAGES]]
    )  # fmt: skip
