"""RULES.md §12 worked examples played through the state machine: the same table, reached by real moves
from a chosen wall, must settle to the same payments as the rule book.
"""

from __future__ import annotations

import pytest

from game.rules import Rules
from game.table import Hand
from game.tiles import parse_tile
from tests.game.test_table import ROB_SCRIPT, layout, play, rob_hand


def settled(hand: Hand) -> tuple[tuple[int, ...], tuple[str, ...], int | None]:
    assert hand.finished and hand.result is not None and hand.result.valid
    assert hand.view(None).result == hand.result
    return hand.result.payments, hand.result.patterns, hand.result.liable


def test_example_a_small_hard_win_on_a_discard() -> None:
    # Seat 0 (dealer) makes a 红中杠 and feeds seat 1's chi 345m; seat 3 makes an 暗杠 of 9p and feeds
    # seat 0's peng 1z; seat 2 finally discards 5m into seat 1's 234p 678p 345s 5m.
    hand = layout(
        0,
        [
            "7z3m1z1z1m7m1p5p1s7s3z4z5z6z",
            "4m5m234p678p345s5m9m",
            "5m2m8m6m1p5p7p2s8s3z4z5z6z",
            "9p9p9p9p1z3m7m3p3s6s3z4z5z",
        ],
        head="2z2z2z4s",
        tail="8p1s",
        indicator="8s",
        rules=Rules(),
    )
    play(
        hand,
        "0 hongzhong_gang",
        "0 discard 3m",
        "1 chi 3m",
        "1 discard 9m",
        "2 discard 2z",
        "3 an_gang 9p",
        "3 discard 1z",
        "0 peng 1z",
        "0 discard 1m",
        "1 discard 2z",
        "2 discard 5m",
        "1 hu",
    )
    assert settled(hand) == ((-32, 56, -8, -16), ("pi_hu",), None)
    assert (hand.result.how, hand.result.from_seat, hand.result.soft) == ("discard", 2, False)  # type: ignore[union-attr]


def test_example_a_under_koukoufan() -> None:
    # The same win, with seat 0 holding two pengs (1z from 3, 9p from 2) and seat 3's 暗杠 on 1p.
    hand = layout(
        0,
        [
            "7z3m1z1z9p9p1m7m5p1s7s3z4z6z",
            "4m5m234p678p345s5m9m",
            "5m9p2m8m6m5p7p2s8s3z4z5z6z",
            "1p1p1p1p1z3m7m3p3s6s3z4z5z",
        ],
        head="2p2z2z2z2z4s",
        tail="8p1s",
        indicator="8s",
        rules=Rules.from_json("koukoufan"),
    )
    play(
        hand,
        "0 hongzhong_gang",
        "0 discard 3m",
        "1 chi 3m",
        "1 discard 9m",
        "2 discard 9p",
        "0 peng 9p",
        "0 discard 1m",
        "1 discard 2z",
        "2 discard 2z",
        "3 an_gang 1p",
        "3 discard 1z",
        "0 peng 1z",
        "0 discard 7m",
        "1 discard 2z",
        "2 discard 5m",
        "1 hu",
    )
    assert settled(hand) == ((-64, 88, -8, -16), ("pi_hu",), None)


@pytest.mark.parametrize(
    ("options", "payments"),
    [
        ({}, (0, -300, 300, 0)),  # 杠进杠出, the default
        ({"qiang_gang_pay": "robber"}, (0, -280, 280, 0)),
        ({"qiang_gang_by": "xia_jia"}, (0, -300, 300, 0)),  # seat 2 is the robbed seat 1's 下家
    ],
)
def test_example_d_robbing_the_kong(options: dict[str, str], payments: tuple[int, ...]) -> None:
    hand = rob_hand(rules=Rules().with_options(options))
    play(hand, *ROB_SCRIPT, "1 xu_gang 5s", "2 hu")
    assert settled(hand) == (payments, ("qiang_gang",), 1)
    assert (hand.result.how, hand.result.from_seat) == ("rob_gang", 1)  # type: ignore[union-attr]


def test_example_i_dealer_soft_self_drawn_win() -> None:
    # Seat 0 (dealer, 赖子 4p) pengs 7m from seat 2 after seat 2's chi 789s from seat 1; seat 3 makes two
    # 赖子杠; seat 0 then draws 2s: 123m 567p 22s + 34s with the 4p standing for 2s or 5s.
    hand = layout(
        0,
        ["123m567p34s2s4p7m7m1z2z", "9s", "7s8s7m", "4p4p"],
        head="9m3z4z5z2s",
        tail="6z6z",
        indicator="3p",
        rules=Rules(),
        pad=20,
    )
    play(
        hand,
        "0 discard 1z",
        "1 discard 9s",
        "2 chi 7s",
        "2 discard 7m",
        "0 peng 7m",
        "0 discard 2z",
        "1 discard 3z",
        "2 discard 4z",
        "3 laizi_gang",
        "3 laizi_gang",
        "3 discard 5z",
        "0 hu",
    )
    assert settled(hand) == ((152, -8, -16, -128), ("pi_hu",), None)
    assert (hand.result.how, hand.result.soft) == ("self_draw", True)  # type: ignore[union-attr]


def test_example_c_all_winds_kong_draw_golden_cap_and_liability() -> None:
    # Seat 3 (dealer, 赖子 3s) pengs 1z from seat 0, 2z from seat 1 and 6z from seat 2, then makes an 暗杠 of
    # 5z and draws 4z from the tail onto its single 4z: 风一色 碰碰胡 杠上开花, all three losers at the 金顶.
    hand = layout(
        3,
        ["1z", "2z", "6z", "1z1z2z2z6z6z5z5z5z5z4z9m9p3z"],
        head="7m8m9s8s7p6p",
        tail="4z",
        indicator="2s",
        rules=Rules(),
        pad=20,
    )
    play(
        hand,
        "3 discard 9m",
        "0 discard 1z",
        "3 peng 1z",
        "3 discard 9p",
        "0 discard 8m",
        "1 discard 2z",
        "3 peng 2z",
        "3 discard 3z",
        "0 discard 8s",
        "1 discard 7p",
        "2 discard 6z",
        "3 peng 6z",
        "3 an_gang 5z",
        "3 hu",
    )
    assert settled(hand) == ((0, 0, -1200, 1200), ("peng_peng_hu", "feng_yi_se", "gang_shang_kai_hua"), 2)
    assert (hand.result.how, hand.result.cap, hand.result.base) == ("gang_draw", "golden", 80)  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("seat3_draws", "payments", "liable"),
    [("7s8s9s", (160, -40, -40, -80), None), ("1z3z4z", (160, 0, 0, -160), 3)],
)
def test_example_g_all_from_others_liability_follows_readiness(
    seat3_draws: str, payments: tuple[int, ...], liable: int | None
) -> None:
    # Seat 0 pengs 7s (from 1) and 9p (from 2), chis 123m and 456s from seat 3, and wins on seat 3's 5p.
    # Seat 3's hand after that discard is 345m 678m 234s 8p plus its three draws: ready (waiting on 8p)
    # with 7s8s9s, not ready with three odd honors — only then does seat 3 pay for everyone.
    d = [seat3_draws[i : i + 2] for i in (0, 2, 4)]
    hand = layout(
        1,
        ["2m3m7s7s9p9p4s6s5p1p9s8m1s", "7s", "9p", "1m5s5p345m678m234s8p"],
        head=f"5z9m5z5z{d[0]}5z6z{d[1]}6z6z{d[2]}",
        indicator="1z",
        rules=Rules(),
        pad=20,
    )
    play(
        hand,
        "1 discard 7s",
        "0 peng 7s",
        "0 discard 1p",
        "1 discard 5z",
        "2 discard 9p",
        "0 peng 9p",
        "0 discard 9s",
        "1 discard 5z",
        "2 discard 5z",
        "3 discard 1m",
        "0 chi 1m",
        "0 discard 8m",
        "1 discard 5z",
        "2 discard 6z",
        "3 discard 5s",
        "0 chi 4s",
        "0 discard 1s",
        "1 discard 6z",
        "2 discard 6z",
        "3 discard 5p",
        "0 hu",
    )
    assert settled(hand) == (payments, ("quan_qiu_ren",), liable)


def test_example_b_pure_suit_all_pungs_soft_self_draw_capped() -> None:
    # Dealer 2, 赖子 5p. Seat 3 pengs 1z from 2 and makes a 赖子杠; seat 0 pengs 2m from 3 and 9m from 1;
    # seat 2 chis 678s from 1, pengs 3p from 3 and adds the drawn fourth 3p (蓄杠); seat 0 draws 1m.
    hand = layout(
        2,
        ["2m2m9m9m444m77m1m5p1s3z", "6s9m", "1z7s8s3p3p9p9s", "1z1z2m5p3p"],
        head="5z5z6z6z5z4z3p4z1m",
        tail="9p4z",
        indicator="4p",
        rules=Rules(),
        pad=20,
    )
    play(
        hand,
        "2 discard 1z",
        "3 peng 1z",
        "3 discard 2m",
        "0 peng 2m",
        "0 discard 1s",
        "1 discard 6s",
        "2 chi 6s",
        "2 discard 9p",
        "3 laizi_gang",
        "3 discard 3p",
        "2 peng 3p",
        "2 discard 9s",
        "3 discard 6z",
        "0 discard 6z",
        "1 discard 9m",
        "0 peng 9m",
        "0 discard 3z",
        "1 discard 4z",
        "2 xu_gang 3p",
        "2 discard 4z",
        "3 discard 4z",
        "0 hu",
    )
    assert settled(hand) == ((600, -60, -240, -300), ("peng_peng_hu", "qing_yi_se"), None)
    assert (hand.result.how, hand.result.soft, hand.result.cap) == ("self_draw", True, "capped")  # type: ignore[union-attr]


def test_example_h_all_258_soft_self_draw() -> None:
    # Dealer 2, 赖子 3m. Seat 2 pengs 2p from seat 1, then draws 8s: every tile a 2-5-8 (乱将), the 3m wild.
    hand = layout(
        2,
        ["", "2p", "2p2p2m5m8m2s5s5s8p8p5p3m1z9m", ""],
        head="6z6z9s4z4z4z8s",
        indicator="2m",
        rules=Rules(),
        pad=20,
    )
    play(
        hand,
        "2 discard 1z",
        "3 discard 6z",
        "0 discard 6z",
        "1 discard 2p",
        "2 peng 2p",
        "2 discard 9m",
        "3 discard 4z",
        "0 discard 4z",
        "1 discard 4z",
        "2 hu",
    )
    assert settled(hand) == ((-30, -30, 90, -30), ("jiang_yi_se",), None)
    assert (hand.result.how, hand.result.soft) == ("self_draw", True)  # type: ignore[union-attr]


def example_e(rules: Rules) -> Hand:
    # Dealer 0, 赖子 5s. Seat 1 pengs 3z from seat 0, then seat 3 discards 8p into 123m 456m 789m 8p:
    # a 屁胡 whose raw payments are 8 (seat 0, dealer), 4 and 8 (seat 3).
    hand = layout(0, ["3z", "3z3z123m456m789m8p1z", "9s", "8p"], head="2z4z", indicator="4s", rules=rules, pad=20)
    play(hand, "0 discard 3z", "1 peng 3z", "1 discard 1z", "2 discard 9s", "3 discard 8p")
    return hand


def test_example_e_below_the_minimum_is_not_offered() -> None:
    assert "hu" not in {a.kind for a in example_e(Rules()).legal_actions(1)}
    # Only the minimum stands in the way: without it the same discard is a win.
    free = example_e(Rules(min_payment=0))
    assert "hu" in {a.kind for a in free.legal_actions(1)}
    play(free, "1 hu")
    assert settled(free) == ((-8, 20, -4, -8), ("pi_hu",), None)


def example_f(rules: Rules, draw: str) -> Hand:
    # Dealer 0, 赖子 5s. Seat 1 chis 678m from seat 0 and, a round later, draws ``draw`` into 234p 789p 34s 5s 2m.
    hand = layout(
        0, ["6m1p", "7m8m234p789p34s5s2m1z", "9s", "9m"], head=f"2z4z3z{draw}", indicator="4s", rules=rules, pad=20
    )
    play(hand, "0 discard 6m", "1 chi 6m", "1 discard 1z", "2 discard 9s", "3 discard 9m", "0 discard 1p", "1 pass")
    view = hand.view(1)
    assert (view.phase, view.turn, view.drawn) == ("turn", 1, parse_tile(draw))
    return hand


def test_example_f_two_laizi_small_win_is_not_offered() -> None:
    # Drawing the second 赖子 (5s) makes only a 屁胡 holding two 赖子: no 胡 button.
    assert "hu" not in {a.kind for a in example_f(Rules(min_payment=0), "5s").legal_actions(1)}
    # Drawing a natural 2m instead (one 赖子 left, standing for 2s or 5s) is a win.
    natural = example_f(Rules(min_payment=0), "2m")
    assert "hu" in {a.kind for a in natural.legal_actions(1)}
