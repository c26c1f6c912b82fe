"""The /settings options: what a group may set, the choices offered, and how a choice becomes stored settings.

Each ``Option`` is a ``storage.chats.ChatSettings`` field, or a ``game.rules.Rules`` field when ``rule``; its
choices are what the menu offers and the callback data carries; its ``kind`` says how a value is stored and
shown, and ``notice`` which text tells the group of a change. Everything that reads options (the /settings
menu, /rules, the change notices) goes by these fields, never by an option's name: a new option is one entry.
``changes_for`` turns a choice into the changes ``storage.chats.update`` takes (checked there: a refused value
changes nothing); ``shown`` says a value as people read it. A new preset starts from that preset's own options.

>>> changes_for(ChatSettings(-1), OPTIONS["cap"], "500")["rule_options"]["cap"]
500
>>> shown(OPTIONS["hard_factor"], 2, "en")
'×2'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final, Literal

from bot.i18n import pick, t
from game.automatic import LEVELS
from game.languages import LANGUAGES
from game.patterns import PATTERNS
from game.rules import CHOICES, PRESETS, YI_SE_PATTERNS, RulesError
from storage.chats import ChatSettings

ON, OFF = "on", "off"
# How an option's value is stored and shown:
#   number   a whole number (or a decimal, for a rule), shown as it is
#   factor   a multiplier, shown ×n
#   seconds  a timer, shown in seconds
#   switch   on or off
#   or_off   a number, or off (None)
#   named    a word, shown by its text ``value_<key>_<choice>``
#   preset   named, and a change starts afresh from that preset's own options
#   toggles  a set of patterns: each choice adds or removes one
Kind = Literal["number", "factor", "seconds", "switch", "or_off", "named", "preset", "toggles"]


@dataclass(frozen=True)
class Option:
    key: str  # a ChatSettings field, or a Rules field when ``rule``
    choices: tuple[str, ...]  # as carried in the callback data
    kind: Kind = "number"
    rule: bool = False
    notice: str = "settings_changed"  # the group's notice of a change (from when it applies)


TABLE_OPTIONS: Final = (
    Option("preset", PRESETS, "preset"),
    Option("claim_seconds", ("5", "10", "15", "20", "30", "60"), "seconds"),
    Option("turn_seconds", ("15", "20", "30", "45", "60", "120"), "seconds"),
    Option("auto_players", (ON, OFF), "switch"),
    Option("auto_level", LEVELS, "named"),
    Option("base_unit", ("1", "2", "5", "10", "50", "100")),
    Option("hands_per_game", ("1", "4", "8", "12", "16"), notice="settings_changed_next_game"),
    Option("language", LANGUAGES, "named"),
)
RULE_OPTIONS: Final = (
    Option("per_meld_opening", (OFF, ON), "switch", rule=True),
    Option("cap", ("100", "200", "300", "500", "1000"), rule=True),
    Option("golden_cap", ("300", "400", "500", "600", "800"), rule=True),
    Option("bright_cap", (OFF, "500", "600", "800"), "or_off", rule=True),
    Option("min_payment", ("0", "10", "20", "40"), rule=True),
    Option("self_draw_small", ("1", "1.5", "2", "3"), "factor", rule=True),
    Option("self_draw_big", ("1", "1.5", "2"), "factor", rule=True),
    Option("discarder_factor", ("1", "2", "3"), "factor", rule=True),
    Option("dealer_factor", ("1", "2", "3"), "factor", rule=True),
    Option("hard_factor", ("1", "2"), "factor", rule=True),
    Option("multi_win_order", CHOICES["multi_win_order"], "named", rule=True),
    Option("qiang_gang_pay", CHOICES["qiang_gang_pay"], "named", rule=True),
    Option("qiang_gang_by", CHOICES["qiang_gang_by"], "named", rule=True),
    Option("laizi_gang_factor", tuple(str(n) for n in CHOICES["laizi_gang_factor"]), "factor", rule=True),
    Option("liable_yi_se", YI_SE_PATTERNS, "toggles", rule=True),
    Option("flee_penalty", ("0", "200", "400", "800"), rule=True),
)
OPTIONS: Final = {o.key: o for o in (*TABLE_OPTIONS, *RULE_OPTIONS)}


class SettingRefused(ValueError):
    """A choice that is not on the menu, or that storage refused."""


# --- values: stored <-> choice <-> shown --------------------------------------------------------------------
def choice_of(value: Any) -> str:
    if isinstance(value, bool):
        return ON if value else OFF
    if value is None:
        return OFF
    if isinstance(value, Fraction):
        return str(value.numerator) if value.denominator == 1 else str(float(value))
    return str(value)


def current(settings: ChatSettings, option: Option) -> Any:
    """The stored value of a setting (a Rules field's value for a rule option)."""
    return getattr(settings.rules if option.rule else settings, option.key)


def shown(option: Option, value: Any, lang: str) -> str:
    """A value as people read it in ``lang``."""
    if option.kind == "toggles":
        return " · ".join(_pattern(p, lang) for p in value) or t("value_none", lang)
    choice = choice_of(value)
    if option.kind in ("switch", "or_off") and choice in (ON, OFF):
        return t(f"value_{choice}", lang)
    if option.kind in ("named", "preset"):
        return t(f"value_{option.key}_{choice}", lang)
    if option.kind == "seconds":
        return t("value_seconds", lang, n=choice)
    return f"×{choice}" if option.kind == "factor" else choice


def marked(option: Option, value: Any) -> dict[str, bool]:
    """Which of the option's choices the menu marks ✓ for the stored ``value`` (every pattern held, for toggles)."""
    if option.kind == "toggles":
        return {c: c in value for c in option.choices}
    return {c: c == choice_of(value) for c in option.choices}


def choice_shown(option: Option, choice: str, lang: str) -> str:
    """A choice as the menu's button says it."""
    return shown(option, (choice,) if option.kind == "toggles" else choice, lang)


def _pattern(pattern_id: str, lang: str) -> str:
    return pick(PATTERNS[pattern_id], lang)


def changes_for(settings: ChatSettings, option: Option, choice: str) -> dict[str, Any]:
    """The ``storage.chats.update`` changes that set ``option`` to ``choice``; SettingRefused if not on offer."""
    if choice not in option.choices:
        raise SettingRefused(f"{choice!r} is not a choice of {option.key}")
    if option.kind == "preset":
        return {option.key: choice, "rule_options": {}}  # a preset is a fresh start
    value = _value(settings, option, choice)
    if not option.rule:
        return {option.key: value}
    try:
        rules = settings.rules.with_options({option.key: value})
    except RulesError as e:
        raise SettingRefused(str(e)) from None
    return {"rule_options": {k: v for k, v in rules.to_json().items() if k != "preset"}}


def _value(settings: ChatSettings, option: Option, choice: str) -> Any:
    """The stored value a choice stands for."""
    if option.kind == "toggles":
        held = set(current(settings, option)) ^ {choice}
        return [p for p in option.choices if p in held]
    if option.kind == "switch":
        return choice == ON
    if option.kind == "or_off" and choice == OFF:
        return None
    if option.kind == "named":
        return choice
    return float(choice) if "." in choice else int(choice)
