"""The /settings options: what a group may set, the choices offered, and how a choice becomes stored settings.

Each ``Option`` is a ``storage.chats.ChatSettings`` field, or a ``game.rules.Rules`` field when ``rule``; its
choices are what the menu offers and the callback data carries. ``changes_for`` turns a choice into the
changes ``storage.chats.update`` takes (checked there: a refused value changes nothing); ``shown`` says a
value as people read it. A new preset starts from that preset's own options.

>>> changes_for(ChatSettings(-1), OPTIONS["cap"], "500")["rule_options"]["cap"]
500
>>> shown(OPTIONS["hard_factor"], 2, "en")
'×2'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from bot.i18n import pick, t
from game.automatic import LEVELS
from game.patterns import PATTERNS
from game.rules import CHOICES, PRESETS, YI_SE_PATTERNS, RulesError
from storage.chats import ChatSettings
from storage.players import LANGUAGES

ON, OFF = "on", "off"
# Factors are shown as ×n; timers in seconds.
_FACTORS: Final = frozenset(
    {"self_draw_small", "self_draw_big", "discarder_factor", "dealer_factor", "hard_factor", "laizi_gang_factor"}
)
_SECONDS: Final = frozenset({"claim_seconds", "turn_seconds"})


@dataclass(frozen=True)
class Option:
    key: str  # a ChatSettings field, or a Rules field when ``rule``
    choices: tuple[str, ...]  # as carried in the callback data
    rule: bool = False
    words: bool = False  # the choices are words, stored as they are and shown as ``value_<key>_<choice>``


TABLE_OPTIONS: Final = (
    Option("preset", PRESETS, words=True),
    Option("claim_seconds", ("5", "10", "15", "20", "30", "60")),
    Option("turn_seconds", ("15", "20", "30", "45", "60", "120")),
    Option("auto_players", (ON, OFF)),
    Option("auto_level", LEVELS, words=True),
    Option("base_unit", ("1", "2", "5", "10", "50", "100")),
    Option("hands_per_game", ("1", "4", "8", "12", "16")),
    Option("language", LANGUAGES, words=True),
)
RULE_OPTIONS: Final = (
    Option("per_meld_opening", (OFF, ON), rule=True),
    Option("cap", ("100", "200", "300", "500", "1000"), rule=True),
    Option("golden_cap", ("300", "400", "500", "600", "800"), rule=True),
    Option("bright_cap", (OFF, "500", "600", "800"), rule=True),
    Option("min_payment", ("0", "10", "20", "40"), rule=True),
    Option("self_draw_small", ("1", "1.5", "2", "3"), rule=True),
    Option("self_draw_big", ("1", "1.5", "2"), rule=True),
    Option("discarder_factor", ("1", "2", "3"), rule=True),
    Option("dealer_factor", ("1", "2", "3"), rule=True),
    Option("hard_factor", ("1", "2"), rule=True),
    Option("multi_win_order", CHOICES["multi_win_order"], rule=True, words=True),
    Option("qiang_gang_pay", CHOICES["qiang_gang_pay"], rule=True, words=True),
    Option("qiang_gang_by", CHOICES["qiang_gang_by"], rule=True, words=True),
    Option("laizi_gang_factor", tuple(str(n) for n in CHOICES["laizi_gang_factor"]), rule=True),
    Option("liable_yi_se", YI_SE_PATTERNS, rule=True),  # each choice toggles one pattern
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
    if option.key == "liable_yi_se":
        return " · ".join(_pattern(p, lang) for p in value) or t("value_none", lang)
    choice = choice_of(value)
    if choice in (ON, OFF):
        return t(f"value_{choice}", lang)
    if option.words:
        return t(f"value_{option.key}_{choice}", lang)
    if option.key in _SECONDS:
        return t("value_seconds", lang, n=choice)
    return f"×{choice}" if option.key in _FACTORS else choice


def _pattern(pattern_id: str, lang: str) -> str:
    return pick(PATTERNS[pattern_id], lang)


def changes_for(settings: ChatSettings, option: Option, choice: str) -> dict[str, Any]:
    """The ``storage.chats.update`` changes that set ``option`` to ``choice``; SettingRefused if not on offer."""
    if choice not in option.choices:
        raise SettingRefused(f"{choice!r} is not a choice of {option.key}")
    if not option.rule:
        if option.key == "preset":
            return {"preset": choice, "rule_options": {}}  # a preset is a fresh start
        if option.key == "auto_players":
            return {"auto_players": choice == ON}
        if option.key in ("auto_level", "language"):
            return {option.key: choice}
        return {option.key: int(choice)}
    value: Any
    if option.key == "liable_yi_se":
        held = set(settings.rules.liable_yi_se) ^ {choice}
        value = [p for p in YI_SE_PATTERNS if p in held]
    elif choice in (ON, OFF):
        value = None if option.key == "bright_cap" else choice == ON
    elif option.words:
        value = choice
    else:
        value = float(choice) if "." in choice else int(choice)
    try:
        rules = settings.rules.with_options({option.key: value})
    except RulesError as e:
        raise SettingRefused(str(e)) from None
    return {"rule_options": {k: v for k, v in rules.to_json().items() if k != "preset"}}
