"""The rules object: every option and preset of RULES.md §9, one field each.

>>> Rules.from_json("koukoufan").golden_cap
500
>>> Rules.from_json({"preset": "kaikoufan", "min_payment": 0}).min_payment
0
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final, Literal

PresetName = Literal["kaikoufan", "koukoufan"]
PRESETS: Final[tuple[PresetName, ...]] = ("kaikoufan", "koukoufan")
MultiWinOrder = Literal["dealer", "discarder"]
QiangGangPay = Literal["gang_kai", "robber"]
QiangGangBy = Literal["anyone", "xia_jia"]
# The choices of each option that takes one of a few words or numbers (RULES.md §6, §9).
CHOICES: Final[dict[str, tuple[Any, ...]]] = {
    "multi_win_order": ("dealer", "discarder"),
    "qiang_gang_pay": ("gang_kai", "robber"),
    "qiang_gang_by": ("anyone", "xia_jia"),
    "laizi_gang_factor": (4, 2),
}
# Options whose default changed after hands were stored: a stored form always names them, and a stored form
# without one was written before the change and meant this value (see ``Rules.from_stored``).
STORED_BEFORE: Final[dict[str, Any]] = {"qiang_gang_pay": "robber"}
YI_SE_PATTERNS: Final = ("qing_yi_se", "jiang_yi_se", "feng_yi_se")


class RulesError(ValueError):
    """An unknown preset or option, or an option value of the wrong kind. The message is English; ``code`` and
    ``fields`` name the same complaint for a translated text (a catalogue id of the bot)."""

    def __init__(self, message: str, code: str = "rules_err_other", /, **fields: object) -> None:
        super().__init__(message)
        self.code = code
        self.fields: dict[str, object] = {"error": message} if code == "rules_err_other" else fields


@dataclass(frozen=True)
class Rules:
    preset: PresetName = "kaikoufan"
    # ×2 per chi/peng/冲杠 (口口翻) instead of ×2 once for an open hand (开口翻).
    per_meld_opening: bool = False
    cap: int = 300
    golden_cap: int = 400
    # 光明顶: None = off; else what a never-opened loser pays at 金顶 instead of golden_cap.
    bright_cap: int | None = None
    min_payment: int = 20
    self_draw_small: Fraction = Fraction(2)
    self_draw_big: Fraction = Fraction(3, 2)
    discarder_factor: Fraction = Fraction(2)
    dealer_factor: Fraction = Fraction(2)
    hard_factor: Fraction = Fraction(2)
    multi_win_order: MultiWinOrder = "dealer"
    liable_yi_se: tuple[str, ...] = field(default=YI_SE_PATTERNS)
    flee_penalty: int = 400
    # 抢杠 (§6): the robbed player pays 杠进杠出 (what their 蓄杠 would have won) or the robber's own hand.
    qiang_gang_pay: QiangGangPay = "gang_kai"
    # Who may rob a 蓄杠: any seat with the win, or only the gang maker's 下家.
    qiang_gang_by: QiangGangBy = "anyone"
    laizi_gang_factor: int = 4  # a 赖子杠's ×4, or ×2 as the oldest description counts it

    @classmethod
    def preset_named(cls, name: str) -> Rules:
        if name == "kaikoufan":
            return cls()
        if name == "koukoufan":
            return cls(preset="koukoufan", per_meld_opening=True, golden_cap=500)
        raise RulesError(f"unknown rules preset {name!r} (kaikoufan or koukoufan)", "rules_err_preset", said=name)

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """A preset name, or ``{"preset": name, "<option>": value, ...}`` as in RULES.md §11."""
        if obj is None:
            return cls()
        if isinstance(obj, str):
            return cls.preset_named(obj)
        if not isinstance(obj, dict):
            raise RulesError("rules must be a preset name or an object", "rules_err_shape")
        opts = dict(obj)
        preset = opts.pop("preset", "kaikoufan")
        if not isinstance(preset, str):
            raise RulesError("preset must be a string", "rules_err_preset_type")
        base = cls.preset_named(preset)
        return base.with_options(opts)

    def with_options(self, opts: dict[str, Any]) -> Rules:
        """A copy with the named options changed; values are checked and normalised."""
        names = {f.name for f in dataclasses.fields(self)} - {"preset"}
        unknown = [key for key in opts if key not in names]
        if unknown:
            raise RulesError(f"unknown rules option {unknown[0]!r}", "rules_err_option", said=unknown[0])
        # bright_cap last: `true` is read against the golden cap these same options may set.
        others = {k: _coerce(self, k, v) for k, v in opts.items() if k != "bright_cap"}
        changed = dataclasses.replace(self, **others)
        if "bright_cap" in opts:
            changed = dataclasses.replace(changed, bright_cap=_coerce(changed, "bright_cap", opts["bright_cap"]))
        return changed

    def to_json(self) -> dict[str, Any]:
        """Only what differs from the preset, so stored rules stay short and readable."""
        base = Rules.preset_named(self.preset)
        out: dict[str, Any] = {"preset": self.preset}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name != "preset" and value != getattr(base, f.name):
                out[f.name] = _plain(value)
        return out

    def to_stored(self) -> dict[str, Any]:
        """``to_json`` naming every option of ``STORED_BEFORE`` too: what storage keeps with a hand or match.

        >>> Rules().to_stored()
        {'preset': 'kaikoufan', 'qiang_gang_pay': 'gang_kai'}
        """
        return {**self.to_json(), **{k: _plain(getattr(self, k)) for k in STORED_BEFORE}}

    @classmethod
    def from_stored(cls, obj: Any) -> Rules:
        """Rules read back from storage: an option of ``STORED_BEFORE`` that the stored form does not name
        was stored before its default changed, so it takes the value it had then (a hand replays and settles
        as it was played).

        >>> Rules.from_stored({"preset": "kaikoufan"}).qiang_gang_pay
        'robber'
        >>> Rules.from_stored(Rules().to_stored()) == Rules()
        True
        """
        named = obj if isinstance(obj, dict) else {"preset": obj} if isinstance(obj, str) else {}
        old = {k: v for k, v in STORED_BEFORE.items() if k not in named}
        return cls.from_json(obj).with_options(old)


def _plain(value: Any) -> Any:
    if isinstance(value, Fraction):
        return int(value) if value.denominator == 1 else float(value)
    if isinstance(value, tuple):
        return list(value)
    return value


# Sensible ranges for every number (RULES.md gives one value each; a group may change them, within these).
MAX_POINTS: Final = 1_000_000  # caps, the minimum payment, the flee penalty
MAX_FACTOR: Final = Fraction(100)  # every multiplier lies in (0, 100]
MAX_DENOMINATOR: Final = 1000
_NUMBER: Final = re.compile(r"\d{1,7}(\.\d{1,3})?|\d{1,7}/\d{1,4}")


def _points(key: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_POINTS:
        raise RulesError(
            f"{key} must be a whole number from 0 to {MAX_POINTS}", "rules_err_whole", key=key, high=MAX_POINTS
        )
    return value


def _bright_cap(rules: Rules, value: Any) -> int | None:
    if value is None or value is False or value == 0:
        return None
    if value is True:
        # RULES.md gives no amount: 光明顶 is read as 100 above the 金顶 (500 over 400 in 开口翻).
        return rules.golden_cap + 100
    if isinstance(value, int) and 0 < value <= MAX_POINTS:
        return value
    raise RulesError(
        f"bright_cap must be false, true or a whole number from 1 to {MAX_POINTS}",
        "rules_err_bright_cap",
        high=MAX_POINTS,
    )


def _per_meld_opening(rules: Rules, value: Any) -> bool:
    if not isinstance(value, bool):
        raise RulesError("per_meld_opening must be true or false", "rules_err_bool", key="per_meld_opening")
    return value


def _choice(key: str) -> Callable[[Rules, Any], Any]:
    """The check of an option that takes one of ``CHOICES[key]``."""

    def check(rules: Rules, value: Any) -> Any:
        for choice in CHOICES[key]:
            if value == choice and type(value) is type(choice):
                return choice
        said = " or ".join(repr(c) if isinstance(c, str) else str(c) for c in CHOICES[key])
        raise RulesError(f"{key} must be {said}", "rules_err_choice", key=key, choices=said)

    return check


def _liable_yi_se(rules: Rules, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list | tuple) or any(v not in YI_SE_PATTERNS for v in value):
        raise RulesError(
            f"liable_yi_se must be a list drawn from {list(YI_SE_PATTERNS)}",
            "rules_err_liable",
            patterns=", ".join(YI_SE_PATTERNS),
        )
    return tuple(v for v in YI_SE_PATTERNS if v in value)


# Options that are not plain numbers, each with its own check.
_SPECIAL: Final[dict[str, Callable[[Rules, Any], Any]]] = {
    "bright_cap": _bright_cap,
    "per_meld_opening": _per_meld_opening,
    "liable_yi_se": _liable_yi_se,
    **{key: _choice(key) for key in CHOICES},
}


def _fraction(key: str, value: Any) -> Fraction:
    """A multiplier: a number in (0, 100], read without ever building a huge one (``1e1000000`` is refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise RulesError(f"{key} must be a number", "rules_err_number", key=key)
    if isinstance(value, str) and not _NUMBER.fullmatch(value.strip()):
        raise RulesError(f"{key} must be a number such as 2, 1.5 or 3/2", "rules_err_number", key=key)
    if isinstance(value, float) and not math.isfinite(value):
        raise RulesError(f"{key} must be a number", "rules_err_number", key=key)
    if isinstance(value, int | float) and abs(value) > MAX_FACTOR:
        raise RulesError(f"{key} must be at most {MAX_FACTOR}", "rules_err_factor", key=key, high=MAX_FACTOR)
    try:
        frac = Fraction(str(value)).limit_denominator(MAX_DENOMINATOR)
    except (ValueError, ZeroDivisionError):
        raise RulesError(f"{key} must be a number", "rules_err_number", key=key) from None
    if not 0 < frac <= MAX_FACTOR:
        raise RulesError(
            f"{key} must be above 0 and at most {MAX_FACTOR}", "rules_err_factor", key=key, high=MAX_FACTOR
        )
    return frac


def _coerce(rules: Rules, key: str, value: Any) -> Any:
    special = _SPECIAL.get(key)
    if special is not None:
        return special(rules, value)
    current = getattr(rules, key)
    if isinstance(current, Fraction):
        return _fraction(key, value)
    if isinstance(current, int):
        return _points(key, value)
    raise RulesError(f"option {key!r} cannot be set", "rules_err_fixed", key=key)


DEFAULT_RULES: Final = Rules()
