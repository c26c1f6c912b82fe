"""bot.views.game_views: each player's buttons are exactly their legal actions, and each picture comes from the view its
chat may see (the group's from the spectator view, which holds no hidden tile)."""

from __future__ import annotations

from bot.callbacks import PlayButton, parse_action_code
from bot.i18n import t
from bot.table.key import TableKey
from bot.table.state import Table
from bot.table.texts import seat_label, seat_names
from bot.views.game_views import seat_content, spectator_content
from bot.views.public_view import shown_view
from game.actions import Action
from game.match import Match
from game.rules import Rules
from game.tiles import HONGZHONG, tile_label
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
        offered = [parse_action_code(PlayButton.decode(b.callback_data).code, seat) for b in buttons]  # type: ignore[arg-type]
        assert sorted(offered) == sorted(hand.legal_actions(seat))
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
        }
        for tile in (HONGZHONG, hand.laizi):
            assert labels[Action(0, "discard", tile)] == t("btn_throw", lang, tile=tile_label(tile, lang))
        plain = next(a for a in labels if a.kind == "discard" and a.tile not in (HONGZHONG, hand.laizi))
        assert labels[plain] == tile_label(plain.tile or 0, lang)


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
