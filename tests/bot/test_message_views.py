"""The texts bot.views.game_views builds (issue 14): a concealed kong told without its tile, a league table's lobby
without an empty creator, title changes in the results (promotions only for the group), a fled player's name in
the final totals, chows named in words, /calc's errors in the asker's language."""

from __future__ import annotations

import json
import re

import pytest

from bot.i18n import pick, t
from bot.table.key import TableKey
from bot.table.state import Table
from bot.table.texts import automatic_name, event_notices, seat_names, stopped_text
from bot.views.game_views import action_label, lobby_content, result_content
from bot.views.info_views import calc_answer
from game.match import Match
from game.rules import Rules
from game.table import Action, Event
from game.tiles import parse_tile
from game.titles import title_for
from tests.e2e.policy import pick as pick_action
from tests.game.test_calc import MALFORMED


def _table(lang: str = "zh") -> Table:
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="Ann", lang=lang)
    for user, name in enumerate(("Ann", "Bob", "Cai", "Dee"), 1):
        table.sit(user, name)
    return table


def _finished(table: Table) -> Table:
    table.match = Match(Rules(), 852)
    table.start_hand(table.match.new_hand(), hand_id=3, now=0.0)
    hand = table.hand
    assert hand is not None
    while not hand.finished:
        seat = hand.waiting_on()[0]
        table.apply(pick_action(hand.legal_actions(seat), lambda _a: True), now=0.0)
    table.hand_number = 1
    return table


def test_a_concealed_kong_is_told_as_such_and_without_its_tile() -> None:
    table = _table()
    [text] = list(event_notices(table, [Event("an_gang", 1, {"tile": "5m"})]))
    assert text == t("announce_an_gang", "zh", seat=f"{t('wind_1', 'zh')} Bob")
    assert "五万" not in text and "5m" not in text


def test_a_league_tables_lobby_names_no_empty_creator() -> None:
    table = Table(key=TableKey(-100), title="g", creator_id=0, creator_name="", state="playing")
    text = lobby_content(table, "bot").text
    assert text.startswith(t("lobby_started_league", "zh", seats="").strip()) and "发起人" not in text


def test_title_changes_are_in_the_results_promotions_only_for_the_group() -> None:
    table = _finished(_table())
    down, up = (title_for(2400), title_for(2000)), (title_for(2400), title_for(4000))
    table.title_changes = {0: down, 1: up}
    group = result_content(table, None).text
    assert t("title_changed", "zh", seat=f"{t('wind_1', 'zh')} Bob", title=pick(up[1], "zh")) in group
    assert pick(down[1], "zh") not in group  # a demotion is nobody else's business
    ann = result_content(table, 30, "en", 0).text
    assert t("title_own_change", "en", before=pick(down[0], "en"), after=pick(down[1], "en")) in ann
    assert (
        t("title_own_change", "zh", before=pick(up[0], "zh"), after=pick(up[1], "zh"))
        in result_content(table, 30, "zh", 1).text
    )
    assert "→" not in result_content(table, 30, "zh", 2).text


def test_the_final_totals_keep_the_name_of_who_fled() -> None:
    table = _table()
    table.left_by[2] = "Cai"
    table.seats[2] = None
    table.fill_with_automatic(lambda seat: f"{t('seat_bot', 'zh')} {seat + 1}")
    table.totals = [100, 0, -400, 300]
    text = stopped_text(table)
    assert f"{t('wind_2', 'zh')} Cai: -400" in text and "电脑 3" not in text
    assert f"{t('wind_2', 'en')} Cai: -400" in stopped_text(table, "en")


def test_automatic_players_are_named_in_the_readers_language() -> None:
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="Ann", lang="zh")
    table.sit(1, "Ann")
    table.fill_with_automatic(lambda seat: automatic_name(seat, "zh"))
    assert seat_names(table, "en") == ["Ann", "Bot 2", "Bot 3", "Bot 4"]
    assert seat_names(table, "zh") == ["Ann", "电脑 2", "电脑 3", "电脑 4"]
    # An English player's own result in a Chinese group: no 电脑 in her caption (nor in her picture's names).
    text = result_content(_finished(table), None, "en", viewer=0).text
    assert "Bot 2" in text and "电脑" not in text


def test_chows_are_named_in_words() -> None:
    chow = Action(0, "chi", parse_tile("3m"))
    assert action_label(chow, "en") == t("btn_chi", "en", tiles="3-4-5 Crak")
    assert action_label(chow, "zh") == t("btn_chi", "zh", tiles="345万")


ENGLISH = re.compile(r"\b(a|an|the|is|must|needs?|not|one of|such as|expected|of|only)\b")


@pytest.mark.parametrize("name", list(MALFORMED))
def test_every_calc_error_reads_in_the_askers_language(name: str) -> None:
    raw = MALFORMED[name] if isinstance(MALFORMED[name], str) else json.dumps(MALFORMED[name])
    zh, en = calc_answer(raw, "zh"), calc_answer(raw, "en")
    assert zh.startswith("⚠️") and en.startswith("⚠️") and zh != en
    # What the asker typed is quoted in 「」 and keys are JSON names: outside those, no English word.
    assert not ENGLISH.search(re.sub(r"「[^」]*」", "", zh)), zh
