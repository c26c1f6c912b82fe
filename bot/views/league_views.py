"""What the league nights show: the sign-up buttons, a night's time in the league's zone, a league's summary.

league_summary(league, "en")     # name, season, schedule, length, rules, automatic players
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from zoneinfo import ZoneInfo

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import league_data
from bot.i18n import t
from storage.leagues import League


def signup_markup(night_id: int, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(t("btn_league_in", lang), callback_data=league_data(night_id, "in")),
                InlineKeyboardButton(t("btn_league_out", lang), callback_data=league_data(night_id, "out")),
            ]
        ]
    )


def local_when(moment: datetime, zone: str, lang: str) -> str:
    """``周五 2026-12-04 20:00 Asia/Shanghai``: a moment in the league's own time zone (no brackets of its own:
    texts put it in theirs)."""
    local = moment.astimezone(ZoneInfo(zone))
    return f"{t('league_weekdays', lang).split()[local.weekday()]} {local:%Y-%m-%d %H:%M} {zone}"


def league_summary(league: League, lang: str) -> str:
    days = t("league_weekdays", lang).split()
    options = " ".join(f"{k}={v}" for k, v in league.rules.to_json().items() if k != "preset")
    length = (
        t("league_hands", lang, n=league.night_hands)
        if league.night_hands is not None
        else t("league_minutes", lang, n=league.night_minutes)
    )
    return t(
        "league_summary",
        lang,
        name=league.name,
        season=league.season,
        state=t("league_state_paused", lang) if league.status == "paused" else "",
        days="/".join(days[d] for d in league.weekdays),
        time=league.start_time.strftime("%H:%M"),
        zone=league.time_zone,
        length=length,
        rules=f"{league.rules.preset} {options}".strip(),
        bots=t("league_bots_on" if league.auto_fill else "league_bots_off", lang),
    )


def names_text(names: Sequence[str], lang: str) -> str:
    return ", ".join(names) if names else t("league_nobody", lang)
