"""Small texts said well (issue 24): /calc names seats by their winds and counts melds without "1 melds", a
league's moment carries no brackets of its own, a replay's text names each player once."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bot.i18n import t
from bot.views.info_views import calc_answer
from bot.views.league_views import local_when
from bot.views.standings_views import replay_text
from game.match import Match
from game.rules import Rules
from tests.e2e.policy import pick

EXAMPLE = {
    "rules": "kaikoufan", "dealer": 0, "laizi": "9s", "winner": 1, "how": "discard", "from": 2, "tile": "5m",
    "concealed": "234678p345s5m",
    "players": [{"hongzhong_gangs": 1, "melds": [{"type": "peng", "tile": "1z", "from": 3}]},
                {"melds": [{"type": "chi", "tiles": "345m", "from": 0}]}, {},
                {"melds": [{"type": "an_gang", "tile": "9p"}]}],
}  # fmt: skip


def test_calc_names_seats_by_their_winds() -> None:
    for lang, winds in (("zh", "东南西北"), ("en", ("East", "South", "West", "North"))):
        answer = calc_answer(json.dumps(EXAMPLE), lang)
        assert "座位" not in answer and "Seat " not in answer
        payments = answer.splitlines()[-1]
        assert all(w in payments for w in winds), payments


def test_calc_says_a_wrong_count_of_concealed_tiles_in_plain_words() -> None:
    short = {**EXAMPLE, "concealed": "234678p345s"}
    answer = calc_answer(json.dumps(short), "en")
    assert "1 melds" not in answer and "(1)" in answer and "concealed has 9 tiles" in answer


def test_a_leagues_moment_has_no_brackets_of_its_own() -> None:
    when = local_when(datetime(2026, 12, 2, 1, 3, tzinfo=UTC), "Asia/Shanghai", "zh")
    assert when == "周三 2026-12-02 09:03 Asia/Shanghai"
    said = t("league_signed_private", "zh", name="周三夜", when=when)
    assert said.count("(") + said.count("（") <= 1, said


def test_a_replays_text_names_each_player_once() -> None:
    hand = Match(Rules(), 852).new_hand()
    while not hand.finished:
        seat = hand.waiting_on()[0]
        hand.apply(pick(hand.legal_actions(seat), lambda _a: True))
    long = "超长名字" * 10  # 40 characters
    text = replay_text(hand, 0, [long, "王小明🀄", "谢霆锋", "Ольга"], 1, "zh")
    assert text.count(long) == 1 and len(text.splitlines()) > 10
    assert text.splitlines()[1] == f"东 {long} · 南 王小明🀄 · 西 谢霆锋 · 北 Ольга"
