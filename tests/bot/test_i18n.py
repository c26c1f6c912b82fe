"""The Babel catalogues: every message in both languages with the same fields, every key the code asks for
present, and the language a Telegram user starts with."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from bot import i18n
from bot.commands import COMMANDS
from bot.i18n import LANGUAGES, catalogue, catalogue_path, language_of_code, t
from bot.settings_options import OPTIONS
from bot.views.standings_views import PERIODS
from game.actions import ACTION_KINDS, TILE_ACTIONS
from game.melds import WIN_HOWS

ROOT = Path(__file__).resolve().parents[2]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_message_has_both_translations_with_the_same_fields() -> None:
    zh, en = catalogue("zh"), catalogue("en")
    assert zh.keys() == en.keys() and len(zh) > 100
    for key in zh:
        assert zh[key].strip() and en[key].strip(), key
        assert _fields(zh[key]) == _fields(en[key]), key


def test_catalogues_are_well_formed_po_files_of_their_locales() -> None:
    for lang in LANGUAGES:
        with catalogue_path(lang).open("rb") as f:
            po = read_po(f, abort_invalid=True)
        assert str(po.locale) == i18n.LOCALES[lang] and len(po) == len(catalogue(lang))


def test_every_key_the_code_names_is_in_the_catalogues() -> None:
    named: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):  # every t(...) lookup
        named |= set(re.findall(r'\b(?:t|text)\(\s*"([a-z0-9_]+)"', path.read_text(encoding="utf-8")))
    assert {"help", "rules_text", "settings_main", "status", "replay_head", "btn_peng", "league_usage"} <= named
    # Keys built at run time, from the values they stand for.
    named |= {f"set_{k}" for k in OPTIONS} | {f"about_{k}" for k in OPTIONS}
    for option in (o for o in OPTIONS.values() if o.kind in ("named", "preset")):
        named |= {f"value_{option.key}_{choice}" for choice in option.choices}
    named |= {f"how_{how}" for how in WIN_HOWS} | {f"top_period_{p}" for p in PERIODS}
    named |= {f"replay_{kind}" for kind in (*TILE_ACTIONS, "hongzhong_gang", "laizi_gang") if kind != "discard"}
    named |= {
        f"reason_{r}" for r in ("not_open", "holds_hongzhong", "not_a_win", "two_laizi_small_win", "below_minimum")
    }
    named |= {f"cmd_{c.name}" for c in COMMANDS if c.menu} | {f"wind_{s}" for s in range(4)}
    named |= {f"btn_{kind}" for kind in ACTION_KINDS if kind != "discard"}  # bot.views' action buttons
    missing = sorted(key for key in named if key not in catalogue("zh"))
    assert missing == []


def test_text_is_formatted_and_falls_back_to_chinese() -> None:
    assert t("settings_changed", "en", name="Ann", setting="Cap", value="500") == (
        "⚙️ Ann set Cap to 500; it applies from the next hand."
    )
    assert t("value_seconds", "fr", n=5) == "5 秒"
    assert "{" in t("calc_usage", "en") and "{{" not in t("calc_usage", "en")
    with pytest.raises(KeyError):
        t("no_such_message", "en")


@pytest.mark.parametrize(
    ("code", "lang"),
    [(None, "zh"), ("", "zh"), ("zh-hans", "zh"), ("zh-TW", "zh"), ("en", "en"), ("en-GB", "en"), ("de", "en")],
)
def test_a_new_player_starts_in_their_telegram_language(code: str | None, lang: str) -> None:
    assert language_of_code(code) == lang
