"""The /settings menu's options against the real storage (a SQLite file): every §9 option and every table
setting is offered, every choice is stored and read back as chosen, and a refused choice changes nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.callbacks import MAX_BYTES
from bot.settings_options import OPTIONS, RULE_OPTIONS, TABLE_OPTIONS, SettingRefused, changes_for, current, shown
from bot.views.info_views import rules_text
from bot.views.menu_views import menu
from game.rules import Rules
from storage.chats import ChatSettings
from storage.database import Database

CHAT = -100123


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    database = await Database.open(tmp_path / "db.sqlite3")
    yield database
    await database.close()


def test_the_menu_offers_every_rule_option_and_every_table_setting() -> None:
    assert {o.key for o in RULE_OPTIONS} == {f.name for f in dataclasses.fields(Rules)} - {"preset"}
    assert {o.key for o in TABLE_OPTIONS} == {f.name for f in dataclasses.fields(ChatSettings)} - {
        "chat_id",
        "rule_options",
    }


def test_every_button_fits_telegrams_callback_data() -> None:
    settings = ChatSettings(CHAT)
    for page in ("main", "rules", *OPTIONS):
        content = menu(settings, page)
        assert content.markup is not None
        for row in content.markup.inline_keyboard:
            for button in row:
                assert len((button.callback_data or "").encode()) <= MAX_BYTES


async def test_every_choice_is_stored_and_read_back_as_chosen(db: Database) -> None:
    for option in (*TABLE_OPTIONS, *RULE_OPTIONS):
        if option.key == "liable_yi_se":
            continue  # toggles, below
        for choice in option.choices:
            settings = await db.chats.get(CHAT)
            stored = await db.chats.update(CHAT, **changes_for(settings, option, choice))
            again = await db.chats.get(CHAT)
            assert again == stored
            value = current(again, option)
            assert shown(option, value, "en") == shown(option, choice, "en"), (option.key, choice)


async def test_a_value_equal_to_the_presets_own_is_not_stored_as_an_option(db: Database) -> None:
    settings = await db.chats.update(CHAT, **changes_for(await db.chats.get(CHAT), OPTIONS["cap"], "500"))
    assert settings.rule_options == {"cap": 500} and settings.rules.cap == 500
    settings = await db.chats.update(CHAT, **changes_for(settings, OPTIONS["cap"], "300"))
    assert settings.rule_options == {}


async def test_a_new_preset_starts_from_its_own_options(db: Database) -> None:
    settings = await db.chats.update(CHAT, **changes_for(await db.chats.get(CHAT), OPTIONS["golden_cap"], "800"))
    settings = await db.chats.update(CHAT, **changes_for(settings, OPTIONS["preset"], "koukoufan"))
    assert settings.rules == Rules.preset_named("koukoufan") and settings.rule_options == {}


async def test_liability_patterns_toggle_one_at_a_time(db: Database) -> None:
    option = OPTIONS["liable_yi_se"]
    settings = await db.chats.update(CHAT, **changes_for(await db.chats.get(CHAT), option, "jiang_yi_se"))
    assert settings.rules.liable_yi_se == ("qing_yi_se", "feng_yi_se")
    assert shown(option, settings.rules.liable_yi_se, "zh") == "清一色 · 风一色"
    settings = await db.chats.update(CHAT, **changes_for(settings, option, "jiang_yi_se"))
    assert settings.rules.liable_yi_se == ("qing_yi_se", "jiang_yi_se", "feng_yi_se")


async def test_a_choice_not_on_the_menu_is_refused_and_changes_nothing(db: Database) -> None:
    before = await db.chats.get(CHAT)
    for key, choice in (("claim_seconds", "1"), ("cap", "-5"), ("language", "fr"), ("bright_cap", "on")):
        with pytest.raises(SettingRefused):
            changes_for(before, OPTIONS[key], choice)
    assert await db.chats.get(CHAT) == before


def test_rules_text_shows_the_groups_own_options() -> None:
    settings = ChatSettings(
        CHAT,
        preset="koukoufan",
        rule_options={"cap": 500, "bright_cap": 600},
        claim_seconds=10,
        hands_per_game=4,
        base_unit=5,
        language="en",
    )
    text = rules_text(settings, "en")
    assert "(Per-Meld Doubling (koukoufan))" in text and "×2 per chow, pung and exposed kong" in text
    assert "Cap 500; golden cap 500 when all three losers reach it · bright cap 600" in text
    assert "claims 10 s, 4 hands a game, 1 point = 5 base unit(s)" in text
    assert "封顶 300, 三家都封顶为金顶 400;" in rules_text(ChatSettings(CHAT), "zh")
