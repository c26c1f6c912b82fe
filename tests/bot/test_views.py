"""bot.views.game_views: each player's buttons are exactly their legal actions, in rows whose labels fit a phone, and
each picture comes from the view its chat may see (the group's from the spectator view, which holds no hidden
tile)."""

from __future__ import annotations

from itertools import pairwise

from telegram import InlineKeyboardButton

from bot.callbacks import AUTO, PlayButton, parse_action_code
from bot.i18n import t
from bot.table.key import TableKey
from bot.table.state import Table
from bot.table.texts import seat_label, seat_names
from bot.views.game_views import button_label, seat_content, spectator_content
from bot.views.public_view import shown_view
from bot.views.rows import BUTTON_MARGIN, ROW_WIDTH, fits, label_width, rows_by_width
from bot.views.standings_views import top_content
from game.actions import Action
from game.match import Match
from game.rules import Rules
from game.tiles import HONGZHONG, NUM_KINDS, is_honor, tile_label, tile_short
from rendering import render_spectator_view, render_table_view
from tests.e2e.policy import pick


def _table_in_claim_phase() -> Table:
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="A")
    for user in range(1, 5):
        table.sit(user, f"P{user}")
    table.match = Match(Rules(), 852)
    table.start_hand(table.match.new_hand(), hand_id=3, now=0.0)
    hand = table.hand
    assert hand is not None
    while hand.phase != "claim":
        seat = hand.waiting_on()[0]
        table.apply(pick(hand.legal_actions(seat), lambda _a: False), now=0.0)
    return table


def test_buttons_are_exactly_the_legal_actions_of_each_seat() -> None:
    table = _table_in_claim_phase()
    hand = table.hand
    assert hand is not None
    for seat in range(4):
        content = seat_content(table, seat)
        buttons = [b for row in content.markup.inline_keyboard for b in row] if content.markup else []
        codes = [PlayButton.decode(b.callback_data).code for b in buttons]  # type: ignore[arg-type]
        offered = [parse_action_code(code, seat) for code in codes if code != AUTO]
        assert sorted(offered) == sorted(hand.legal_actions(seat))
        assert codes.count(AUTO) == (1 if hand.legal_actions(seat) else 0)  # 托管 when asked, on every decision
        assert all(PlayButton.decode(b.callback_data).stamp == table.stamp(seat) for b in buttons)  # type: ignore[arg-type]


def test_a_throw_of_hongzhong_or_laizi_is_a_button_that_says_so() -> None:
    # Match seed 21: the dealer holds a 红中 and a 赖子 at the deal and may throw either (RULES.md §4).
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="A")
    for user in range(1, 5):
        table.sit(user, f"P{user}")
    table.match = Match(Rules(), 21)
    table.start_hand(table.match.new_hand(), hand_id=3, now=0.0)
    hand = table.hand
    assert hand is not None and hand.waiting_on() == [0]
    for lang in ("zh", "en"):
        content = seat_content(table, 0, lang=lang)
        assert content.markup is not None
        labels = {
            parse_action_code(PlayButton.decode(b.callback_data).code, 0): b.text  # type: ignore[arg-type]
            for row in content.markup.inline_keyboard
            for b in row
            if PlayButton.decode(b.callback_data).code != AUTO  # type: ignore[arg-type]
        }
        for tile in (HONGZHONG, hand.laizi):
            assert labels[Action(0, "discard", tile)] == t("btn_throw", lang, tile=tile_short(tile, lang))
        plain = next(a for a in labels if a.kind == "discard" and a.tile not in (HONGZHONG, hand.laizi))
        assert labels[plain] == tile_short(plain.tile or 0, lang)


def _too_wide(rows: list[list[InlineKeyboardButton]]) -> list[list[str]]:
    """The rows some label of which does not fit its equal share of a phone's row (as Telegram shares it out)."""
    return [
        [b.text for b in row]
        for row in rows
        if len(row) * (max(label_width(b.text) for b in row) + BUTTON_MARGIN) > ROW_WIDTH
    ]


def test_each_row_of_buttons_fits_a_phone_in_both_languages() -> None:
    laizi = 0  # 一万: its discard a throw ×2, as 红中's
    for lang in ("zh", "en"):
        discards = [button_label(Action(0, "discard", tile), laizi, lang) for tile in range(NUM_KINDS)]
        specials = [button_label(Action(0, kind), laizi, lang) for kind in ("hu", "pass", "laizi_gang")]
        specials += [button_label(Action(0, "hongzhong_gang", HONGZHONG), laizi, lang)]
        for tile in range(NUM_KINDS):
            kinds = ("peng", "chong_gang", "an_gang", "xu_gang") + (() if is_honor(tile) or tile % 9 > 6 else ("chi",))
            specials += [button_label(Action(0, kind, tile), laizi, lang) for kind in kinds]
        labels = discards + specials  # every label a hand can show, the widest of both languages among them
        assert all(label_width(label) + BUTTON_MARGIN <= ROW_WIDTH for label in labels), lang
        rows = rows_by_width([InlineKeyboardButton(label, callback_data="x") for label in labels])
        assert _too_wide(rows) == []
        plain = rows_by_width([InlineKeyboardButton(label, callback_data="x") for label in discards[1:27]])
        assert not any(fits(row + below) for row, below in pairwise(plain))  # as few rows as the labels allow
        assert min(len(row) for row in plain) >= (5 if lang == "zh" else 4)  # and even: no lone button
        top = top_content([], "g", "season", lang).markup
        assert top is not None and _too_wide(list(map(list, top.inline_keyboard))) == []
    # The keyboard of a hand as dealt (seed 21: the dealer may throw 红中 or the 赖子), in both languages.
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="A")
    for user in range(1, 5):
        table.sit(user, f"P{user}")
    table.match = Match(Rules(), 21)
    table.start_hand(table.match.new_hand(), hand_id=3, now=0.0)
    for lang in ("zh", "en"):
        markup = seat_content(table, 0, lang=lang).markup
        assert markup is not None and _too_wide(list(map(list, markup.inline_keyboard))) == []


def test_each_picture_is_drawn_from_the_view_its_chat_may_see() -> None:
    table = _table_in_claim_phase()
    hand = table.hand
    assert hand is not None
    names, scores = seat_names(table, "zh"), [0, 0, 0, 0]
    spectator = spectator_content(table)
    assert spectator.render is not None and spectator.markup is None
    assert spectator.render() == render_spectator_view(shown_view(hand, None), names, scores, "zh")
    assert hand.view(None).hand == () and hand.view(None).drawn is None
    seat = hand.waiting_on()[0]
    private = seat_content(table, seat)  # the claimer sees the claim as it is
    assert private.render is not None
    assert private.render() == render_table_view(hand.view(seat), names, scores, "zh")
    assert shown_view(hand, seat) == hand.view(seat)


def test_the_group_caption_of_a_claim_window_names_the_discard_and_no_draw_before_it_closes() -> None:
    table = _table_in_claim_phase()
    hand = table.hand
    assert hand is not None and hand.phase == "claim"
    by = hand.view(None).last_discard
    assert by is not None
    during = spectator_content(table)
    status = during.text.split("\n")[0].rsplit(" · ", 1)[1]  # what the table waits for
    assert status == t("status_discard", "zh", seat=seat_label(table, by[0]), tile=tile_label(by[1], "zh"))
    wall = hand.wall.remaining
    assert f"余 {wall} 张" in during.text  # nobody has drawn
    while hand.phase == "claim":  # everyone asked lets it go: only now the next seat draws
        table.apply(pick(hand.legal_actions(hand.waiting_on()[0]), lambda _a: False), now=0.0)
    after = spectator_content(table).text
    assert f"余 {wall - 1} 张" in after and t("status_turn", "zh", seat=seat_label(table, (by[0] + 1) % 4)) in after
