"""§9 payments on verdicts made by hand: every amount below is worked out from RULES.md §9 in a comment.

The hands themselves go through ``game.analysis`` in test_calc.py; here ``settle_win`` gets the verdict
directly, so each multiplier, cap and liability rule is tested on its own.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from game.melds import MELD_KINDS, WIN_HOWS, Meld, WinHow
from game.patterns import PATTERNS, WinAnalysis, base_of
from game.rules import Rules
from game.scoring import SeatMelds, Settlement, seat_factors, settle_win
from game.tiles import parse_tile, parse_tiles

NO_MIN = Rules(min_payment=0)
KOUKOU = Rules.from_json("koukoufan")


def peng(t: str, frm: int) -> Meld:
    return Meld("peng", (parse_tile(t),), frm)


def chi(tiles: str, frm: int) -> Meld:
    return Meld("chi", tuple(parse_tiles(tiles)), frm)


def chong(t: str, frm: int) -> Meld:
    return Meld("chong_gang", (parse_tile(t),), frm)


def xu(t: str, frm: int) -> Meld:
    return Meld("xu_gang", (parse_tile(t),), frm)


def an(t: str) -> Meld:
    return Meld("an_gang", (parse_tile(t),))


def seat(*melds: Meld, hz: int = 0, lz: int = 0, ready: bool = True) -> SeatMelds:
    return SeatMelds(tuple(melds), hz, lz, ready)


def verdict(*patterns: str, soft: bool = False) -> WinAnalysis:
    return WinAnalysis(None, patterns, soft, base_of(patterns))


def pay(
    seats: list[SeatMelds],
    analysis: WinAnalysis,
    *,
    rules: Rules = NO_MIN,
    dealer: int = 0,
    winner: int = 0,
    how: WinHow = "discard",
    frm: int | None = None,
) -> Settlement:
    return settle_win(rules, dealer, winner, how, frm, seats, analysis)


def f_of(rules: Rules, s: SeatMelds) -> Fraction:
    out = Fraction(1)
    for factor in seat_factors(rules, s):
        out *= factor.value
    return out


# A winner's hand with one chi from the 上家 of seat 0 (seat 3): F = 2 in both presets.
OPEN0 = seat(chi("123m", 3))


def test_seat_factors_in_both_presets() -> None:
    everything = seat(chi("123m", 3), peng("1z", 1), chong("2z", 2), xu("3z", 1), an("4z"), hz=1, lz=1)
    # kaikoufan: open 2 · 冲杠 2 · 蓄杠 2 · 暗杠 4 · 红中杠 2 · 赖子杠 4 = 256
    assert f_of(Rules(), everything) == 256
    # koukoufan: chi, peng, 冲杠, 蓄杠 open 2^4 = 16, then the same gangs 2·2·4·2·4 = 128 → 2048
    assert f_of(KOUKOU, everything) == 2048
    assert f_of(Rules(), seat()) == 1
    # 暗杠 never opens: ×4 only, in both presets
    assert f_of(Rules(), seat(an("9p"))) == f_of(KOUKOU, seat(an("9p"))) == 4
    assert f_of(Rules(), seat(lz=2, hz=1)) == 4 * 4 * 2


def test_xu_gang_counts_once_as_its_peng_plus_its_gang_factor() -> None:
    # koukoufan: peng + 蓄杠 = two opening melds (×4), the 蓄杠 ×2 → 8; a second peng instead → 4
    assert f_of(KOUKOU, seat(peng("1z", 1), xu("2z", 2))) == 8
    assert f_of(KOUKOU, seat(peng("1z", 1), peng("2z", 2))) == 4
    # 冲杠 in koukoufan: opens (×2) and is a 明杠 (×2)
    assert f_of(KOUKOU, seat(chong("5m", 1))) == 4
    # kaikoufan: open ×2 once, 蓄杠 ×2 → 4
    assert f_of(Rules(), seat(peng("1z", 1), xu("2z", 2))) == 4


def test_koukoufan_counts_every_opening_meld_and_kaikoufan_once() -> None:
    seats = [
        seat(peng("2z", 1), peng("3z", 2), peng("4z", 3)),
        seat(chi("123m", 0), peng("1z", 3)),
        seat(),
        seat(),
    ]
    # koukoufan: F(1) = 2·2 = 4, hard ×2 → 8. Seat 0 (dealer, 屁胡): 8 · 2³ · 2 = 128;
    # seat 2 (discarder): 8 · 1 · 2 = 16; seat 3: 8.
    s = pay(seats, verdict("pi_hu"), rules=KOUKOU, winner=1, frm=2)
    assert s.payments == (-128, 152, -16, -8)
    assert s.seats[0].f == 8 and s.seats[1].multiplier == 8
    # kaikoufan: F(1) = 2, hard → 4. Seat 0: 4 · 2 · 2 = 16; seat 2: 8; seat 3: 4 — all below 20
    s = pay(seats, verdict("pi_hu"), rules=Rules(), winner=1, frm=2)
    assert (s.valid, s.reason, s.payments) == (False, "below_minimum", (0, 0, 0, 0))
    assert [s.seats[i].raw for i in (0, 2, 3)] == [16, 8, 4]
    # min_payment 0 turns the minimum off
    assert pay(seats, verdict("pi_hu"), winner=1, frm=2).payments == (-16, 28, -8, -4)


def test_minimum_is_reached_at_exactly_min_payment() -> None:
    # F(0) = 2 · hard 2 = 4; seat 1 with a 赖子杠 (×4) and dealer ×2 → 4 · 4 · 2 = 32 ≥ 20: valid.
    # min_payment 33 makes the same hand too small; 32 is exactly enough.
    seats = [OPEN0, seat(lz=1), seat(), seat()]
    args: dict[str, Any] = {"dealer": 1, "frm": 2}
    assert pay(seats, verdict("pi_hu"), rules=Rules(min_payment=33), **args).reason == "below_minimum"
    assert pay(seats, verdict("pi_hu"), rules=Rules(min_payment=32), **args).payments == (44, -32, -8, -4)


def test_some_losers_capped() -> None:
    seats = [OPEN0, seat(peng("1z", 0)), seat(peng("2z", 3), an("9p"), lz=1), seat()]
    # 清一色 base 10; F(0) = 2, hard → ×4 → 40 per loser multiplier.
    # Seat 1 (discarder, open): 40 · 2 · 2 = 160. Seat 2: open 2 · 暗杠 4 · 赖子杠 4 = 32 → 1280 → 300.
    # Seat 3: 40. No dealer factor on a big win.
    s = pay(seats, verdict("qing_yi_se"), rules=Rules(), dealer=1, frm=1)
    assert s.payments == (500, -160, -300, -40)
    assert s.cap == "capped"
    assert (s.seats[2].raw, s.seats[2].owed, s.seats[2].cap) == (1280, 300, "cap")
    assert s.seats[1].cap is None


def test_an_amount_equal_to_the_cap_has_reached_it() -> None:
    # Same hand with cap 160: seat 1 pays exactly 160 (reaches the cap), seat 2 is cut to 160, seat 3 40.
    seats = [OPEN0, seat(peng("1z", 0)), seat(peng("2z", 3), an("9p"), lz=1), seat()]
    s = pay(seats, verdict("qing_yi_se"), rules=Rules(cap=160), dealer=1, frm=1)
    assert s.payments == (360, -160, -160, -40)
    assert [sc.cap for sc in s.seats] == [None, "cap", "cap", None]
    # cap 40: all three reach it → 金顶 400 each
    s = pay(seats, verdict("qing_yi_se"), rules=Rules(cap=40), dealer=1, frm=1)
    assert (s.cap, s.payments) == ("golden", (1200, -400, -400, -400))


GOLDEN_SEATS = [
    seat(peng("1z", 1), peng("2z", 2), peng("3z", 3)),
    seat(peng("5m", 0), peng("6m", 2)),
    seat(chi("789s", 1), hz=1),
    seat(an("9p")),
]


def test_golden_cap_in_kaikoufan() -> None:
    # 碰碰胡 + 杠上开花: base 20. F(0) = 2, hard ×2, self-drawn big ×1.5 → ×6 → 120 per loser multiplier.
    # Seat 1: F 2 → 240 (not capped): no 金顶 yet.
    s = pay(GOLDEN_SEATS, verdict("peng_peng_hu", "gang_shang_kai_hua"), rules=Rules(), how="gang_draw")
    assert s.payments == (840, -240, -300, -300) and s.cap == "capped"
    # Seat 1 with a 赖子杠 too: F 8 → 960; seat 2 F 4 → 480; seat 3 F 4 → 480: all capped → 400 each.
    seats = [GOLDEN_SEATS[0], seat(peng("5m", 0), lz=1), *GOLDEN_SEATS[2:]]
    s = pay(seats, verdict("peng_peng_hu", "gang_shang_kai_hua"), rules=Rules(), how="gang_draw")
    assert (s.cap, s.payments, s.liable) == ("golden", (1200, -400, -400, -400), None)
    assert [sc.cap for sc in s.seats[1:]] == ["golden"] * 3


def test_golden_cap_in_koukoufan() -> None:
    # koukoufan: F(0) = 2³ = 8, hard ×2, ×1.5 → ×24; base 20 → 480 per loser multiplier, all ≥ 300:
    # 金顶 500 each.
    s = pay(GOLDEN_SEATS, verdict("peng_peng_hu", "gang_shang_kai_hua"), rules=KOUKOU, how="gang_draw")
    assert (s.cap, s.payments) == ("golden", (1500, -500, -500, -500))


def test_bright_cap_for_a_loser_who_never_opened() -> None:
    seats = [GOLDEN_SEATS[0], seat(peng("5m", 0), lz=1), *GOLDEN_SEATS[2:]]
    analysis = verdict("peng_peng_hu", "gang_shang_kai_hua")
    # Seat 3 holds only an 暗杠: never opened. bright_cap true = 金顶 + 100 = 500 for it, 400 for the others.
    s = pay(seats, analysis, rules=Rules().with_options({"bright_cap": True}), how="gang_draw")
    assert s.payments == (1300, -400, -400, -500)
    assert s.seats[3].cap == "bright"
    s = pay(seats, analysis, rules=Rules(bright_cap=450), how="gang_draw")
    assert s.payments == (1250, -400, -400, -450)
    # bright_cap matters only at 金顶: with seat 1 under the cap, seat 3 pays the plain cap.
    s = pay(GOLDEN_SEATS, analysis, rules=Rules(bright_cap=450), how="gang_draw")
    assert s.payments == (840, -240, -300, -300)


QUAN_QIU_REN_SEATS = [
    seat(chi("123m", 3), peng("5m", 1), peng("7m", 2), chi("456m", 3)),
    seat(),
    seat(),
    seat(),
]


def test_quan_qiu_ren_liability_needs_an_unready_discarder_and_outranks_yi_se() -> None:
    # 全求人 + 清一色: base 20. F(0) = 2, hard → ×4 → 80. Seat 3 discarder 160; seats 1, 2: 80. Total 320.
    analysis = verdict("qing_yi_se", "quan_qiu_ren")
    unready = [QUAN_QIU_REN_SEATS[0], seat(), seat(), seat(ready=False)]
    s = pay(unready, analysis, dealer=1, frm=3)
    assert (s.payments, s.liable, s.liable_rule) == ((320, 0, 0, -320), 3, "quan_qiu_ren")
    # A ready discarder: rule 2 does not apply, rule 3 does — the third opening meld (peng 7m) came from seat 2.
    s = pay(QUAN_QIU_REN_SEATS, analysis, dealer=1, frm=3)
    assert (s.payments, s.liable, s.liable_rule) == ((320, 0, -320, 0), 2, "qing_yi_se")
    # ... and with 清一色 left out of liable_yi_se nobody is liable.
    s = pay(QUAN_QIU_REN_SEATS, analysis, rules=Rules(min_payment=0, liable_yi_se=()), dealer=1, frm=3)
    assert (s.payments, s.liable) == ((320, -80, -80, -160), None)


def test_rob_gang_liability_outranks_yi_se() -> None:
    # Winner 2 (chi 123p from 1, peng 5p from 0, peng 7p from 3) robs seat 1's kong: 抢杠 + 清一色, base 20.
    # F(2) = 2, hard → ×4 → 80. Seat 1 (peng, robbed ×2): 80 · 2 · 2 = 320 → 300; seats 0, 3: 80.
    # The robbed player pays all 460, though the third opening meld came from seat 3.
    seats = [seat(), seat(peng("9p", 0)), seat(chi("123p", 1), peng("5p", 0), peng("7p", 3)), seat()]
    s = pay(seats, verdict("qing_yi_se", "qiang_gang"), winner=2, how="rob_gang", frm=1)
    assert (s.payments, s.liable, s.liable_rule, s.cap) == ((0, -460, 460, 0), 1, "rob_gang", "capped")
    assert [sc.owed for sc in s.seats] == [80, 300, 0, 80]


def test_yi_se_liability_counts_opening_melds_only() -> None:
    # The 暗杠 is no opening meld: the third opening meld is the chi from seat 3.
    # 清一色: base 10; F(0) = open 2 · 暗杠 4 = 8, hard → ×16 → 160. Seat 1: 160, seat 2 (discarder) 320 → 300,
    # seat 3: 160. Total 620, all paid by seat 3.
    melds = seat(peng("1p", 1), an("9p"), peng("3p", 2), chi("456p", 3))
    s = pay([melds, seat(), seat(), seat()], verdict("qing_yi_se"), dealer=1, frm=2)
    assert (s.payments, s.liable) == ((620, 0, 0, -620), 3)


JIANG_MELDS = seat(peng("2m", 3), peng("8p", 1), xu("5p", 2))


def test_yi_se_liability_follows_an_xu_gang_to_its_pengs_source() -> None:
    # peng from 3, peng from 1, then 蓄杠 5p whose peng came from seat 2: the third opening meld is seat 2's.
    # 将一色 base 10; F(0) = 2 · 蓄杠 2 = 4, soft, self-drawn big ×1.5 → ×6 → 60 each; total 180.
    melds = JIANG_MELDS
    s = pay([melds, seat(), seat(), seat()], verdict("jiang_yi_se", soft=True), how="self_draw")
    assert (s.payments, s.liable, s.liable_rule) == ((180, 0, -180, 0), 2, "jiang_yi_se")


def test_yi_se_liability_needs_three_opening_melds() -> None:
    melds = seat(peng("1p", 1), an("9p"), chi("456p", 3))
    # 清一色 base 10; F(0) = 2 · 4 = 8, hard → 16 → 160, 320 → 300 (seat 2 discarder), 160
    s = pay([melds, seat(), seat(), seat()], verdict("qing_yi_se"), dealer=1, frm=2)
    assert (s.payments, s.liable) == ((620, -160, -300, -160), None)


def test_liable_yi_se_can_exclude_one_pattern() -> None:
    melds = JIANG_MELDS
    analysis = verdict("jiang_yi_se", soft=True)
    rules = Rules(min_payment=0, liable_yi_se=("qing_yi_se", "feng_yi_se"))
    s = pay([melds, seat(), seat(), seat()], analysis, rules=rules, how="self_draw")
    assert (s.payments, s.liable) == ((180, -60, -60, -60), None)
    # 风一色 is still listed: the same melds in winds with 风一色 (base 20: it counts two) → ×6 → 120 each,
    # seat 2 (the 蓄杠's peng) pays 360.
    melds = seat(peng("1z", 3), peng("2z", 1), xu("3z", 2))
    s = pay([melds, seat(), seat(), seat()], verdict("feng_yi_se", soft=True), rules=rules, how="self_draw")
    assert (s.payments, s.liable) == ((360, 0, -360, 0), 2)


def test_rounding_half_up_on_odd_amounts() -> None:
    # 碰碰胡 base 10, soft, 自摸 with self_draw_big 1.125: F(0) = 2 → ×2.25 → 22.5 per loser multiplier.
    # Seat 1: 22.5 → 23; seat 2 (open): 45; seat 3: 22.5 → 23. Winner 91.
    rules = Rules().with_options({"self_draw_big": "1.125", "min_payment": 0})
    seats = [OPEN0, seat(), seat(peng("1z", 1)), seat()]
    s = pay(seats, verdict("peng_peng_hu", soft=True), rules=rules, how="self_draw")
    assert s.payments == (91, -23, -45, -23)
    assert s.seats[1].raw == Fraction(45, 2)
    assert "四舍五入 23" in "\n".join(s.breakdown.zh) and "rounded 23" in "\n".join(s.breakdown.en)


def test_rounding_half_up_with_the_default_self_draw_big() -> None:
    # self_draw_big 1.5 alone keeps big wins whole (base 10 · 2 · 1.5); with hard_factor 1.25 it does not:
    # 碰碰胡 base 10, hard, 自摸: F(0) = 2 → 2 · 1.25 · 1.5 = ×3.75 → 37.5 per loser multiplier.
    # Seat 1: 37.5 → 38; seat 2 (open): 75; seat 3: 37.5 → 38. Winner 151.
    rules = Rules().with_options({"hard_factor": 1.25})
    seats = [OPEN0, seat(), seat(peng("1z", 1)), seat()]
    s = pay(seats, verdict("peng_peng_hu"), rules=rules, how="self_draw")
    assert s.payments == (151, -38, -75, -38)
    assert [sc.raw for sc in s.seats[1:]] == [Fraction(75, 2), 75, Fraction(75, 2)]


def test_rounding_down_below_a_half() -> None:
    # 屁胡, soft, discard: F(0) = 2 → ×2. Seat 1 (dealer ×1.125): 2.25 → 2; seat 2 (discarder ×1.25): 2.5 → 3;
    # seat 3: 2. Winner 7.
    rules = Rules().with_options({"dealer_factor": 1.125, "discarder_factor": 1.25, "min_payment": 0})
    s = pay([OPEN0, seat(), seat(), seat()], verdict("pi_hu", soft=True), rules=rules, dealer=1, frm=2)
    assert s.payments == (7, -2, -3, -2)


def test_dealer_factor_in_each_case() -> None:
    plain = [OPEN0, seat(), seat(), seat()]
    # The dealer wins a hard 屁胡: ×4 for the winner; every loser ×2: 8, discarder 16, 8.
    assert pay(plain, verdict("pi_hu"), dealer=0, frm=2).payments == (32, -8, -16, -8)
    # The dealer discards: 4 · 2 (discarder) · 2 (dealer) = 16; the others 4.
    assert pay(plain, verdict("pi_hu"), dealer=2, frm=2).payments == (24, -4, -16, -4)
    # The dealer stands by: only the dealer ×2 → 8; discarder 8; 4.
    assert pay(plain, verdict("pi_hu"), dealer=1, frm=2).payments == (20, -8, -8, -4)
    # A big win has no dealer factor: 碰碰胡 base 10 → 40, discarder 80, 40 — the same for any dealer.
    for dealer in range(4):
        assert pay(plain, verdict("peng_peng_hu"), dealer=dealer, frm=2).payments == (160, -40, -80, -40)
    # dealer_factor 3: the standing dealer pays 4 · 3 = 12.
    rules = Rules().with_options({"dealer_factor": 3, "min_payment": 0})
    assert pay(plain, verdict("pi_hu"), rules=rules, dealer=1, frm=2).payments == (24, -12, -8, -4)


def test_discarder_and_hard_factor_options() -> None:
    plain = [OPEN0, seat(), seat(), seat()]
    rules = Rules().with_options({"discarder_factor": 3, "hard_factor": 3, "min_payment": 0})
    # Hard ×3: F(0) = 2 → ×6. Seat 1 dealer ×2 → 12; seat 2 discarder ×3 → 18; seat 3 → 6.
    assert pay(plain, verdict("pi_hu"), rules=rules, dealer=1, frm=2).payments == (36, -12, -18, -6)
    # Soft: the hard factor is not applied → ×2: 4, 6, 2.
    assert pay(plain, verdict("pi_hu", soft=True), rules=rules, dealer=1, frm=2).payments == (12, -4, -6, -2)


def test_self_draw_small_and_big() -> None:
    plain = [OPEN0, seat(), seat(), seat()]
    # 屁胡 自摸, hard: 2 · 2 · 2 = 8; dealer 1 pays 16, others 8.
    assert pay(plain, verdict("pi_hu"), dealer=1, how="self_draw").payments == (32, -16, -8, -8)
    # 海底捞 (a big win, self-drawn): base 10 · 2 · 2 · 1.5 = 60 each.
    assert pay(plain, verdict("hai_di_lao"), dealer=1, how="haidi").payments == (180, -60, -60, -60)


def test_an_analysis_that_is_no_win_pays_nothing() -> None:
    s = pay([OPEN0, seat(), seat(), seat()], WinAnalysis("two_laizi_small_win"), frm=2)
    assert (s.valid, s.reason, s.payments) == (False, "two_laizi_small_win", (0, 0, 0, 0))
    assert (s.cap, s.liable) == ("none", None)
    assert s.to_json()["reason"] == "two_laizi_small_win"
    assert any("屁胡不能有两个赖子" in line for line in s.breakdown.zh)


def test_breakdown_names_every_multiplier_in_both_languages() -> None:
    seats = [seat(peng("1z", 3), hz=1), seat(chi("345m", 0)), seat(), seat(an("9p"))]
    s = pay(seats, verdict("pi_hu"), rules=Rules(), winner=1, frm=2)
    zh, en = s.breakdown.zh, s.breakdown.en
    assert len(zh) == len(en)
    assert zh[0].startswith(PATTERNS["pi_hu"].zh) and en[0].startswith(PATTERNS["pi_hu"].en)
    assert "底分 1" in zh[0] and "base 1" in en[0]
    assert "东(庄): 开口 ×2 · 红中杠 ×2 · 庄家 ×2 = ×8 → 1 × 4 × 8 = 32" in zh
    assert "East (dealer): open ×2 · red-dragon kong ×2 · dealer ×2 = ×8 → 1 × 4 × 8 = 32" in en
    assert "南 胡: 开口 ×2 · 硬胡 ×2 = ×4" in zh
    assert "West: deal-in ×2 → 1 × 4 × 2 = 8" in en
    assert "北: 暗杠 ×4 → 1 × 4 × 4 = 16" in zh
    assert zh[-1] == "结算: 东 -32 · 南 +56 · 西 -8 · 北 -16"
    assert en[-1] == "Payments: East -32 · South +56 · West -8 · North -16"
    assert s.to_json()["breakdown"] == {"zh": list(zh), "en": list(en)}


def test_breakdown_of_counted_factors_caps_and_liability() -> None:
    seats = [GOLDEN_SEATS[0], seat(peng("5m", 0), lz=2), *GOLDEN_SEATS[2:]]
    # 风一色 + 杠上开花: base 40; F(0) = 2³ = 8, hard ×2, ×1.5 → ×24 → 960 per loser multiplier: 金顶 500 each.
    s = pay(seats, verdict("feng_yi_se", "gang_shang_kai_hua"), rules=KOUKOU, how="gang_draw")
    zh, en = "\n".join(s.breakdown.zh), "\n".join(s.breakdown.en)
    assert "口口翻(3) ×8" in zh and "per-meld doubling (3) ×8" in en
    assert "赖子杠(2) ×16" in zh and "wildcard kong (2) ×16" in en
    assert "自摸(大胡) ×1.5" in zh and "self-draw (big win) ×1.5" in en
    assert "金顶 500" in zh and "golden cap 500" in en
    # 风一色's third opening meld (peng 3z) came from seat 3
    assert s.liable == 3
    assert "承包: 北 付三家共 1500" in zh and "Liability: North pays all three, 1500" in en


def test_to_json_has_exactly_the_calculator_keys() -> None:
    s = pay([OPEN0, seat(), seat(), seat()], verdict("pi_hu"), dealer=1, frm=2)
    out = s.to_json()
    assert set(out) == {"valid", "reason", "patterns", "soft", "base", "payments", "liable", "cap", "breakdown"}
    assert out["payments"] == [20, -8, -8, -4] and out["patterns"] == ["pi_hu"] and out["liable"] is None


# --- the property: whatever the rules and verdict, the hand is zero-sum and the winner never pays ---


@st.composite
def _seat_melds(draw: st.DrawFn, owner: int) -> SeatMelds:
    """A seat's melds as the table makes them: a chi from the 上家, other claims from any other seat."""
    melds: list[Meld] = []
    for kind in draw(st.lists(st.sampled_from(MELD_KINDS), max_size=4)):
        if kind == "chi":
            melds.append(Meld("chi", (0, 1, 2), (owner - 1) % 4))
        elif kind == "an_gang":
            melds.append(Meld("an_gang", (27,)))
        else:
            melds.append(Meld(kind, (27,), (owner + draw(st.integers(1, 3))) % 4))
    return SeatMelds(tuple(melds), draw(st.integers(0, 4)), draw(st.integers(0, 4)), draw(st.booleans()))


_pattern_sets = st.sampled_from(
    [
        ("pi_hu",),
        ("peng_peng_hu",),
        ("qing_yi_se",),
        ("peng_peng_hu", "qing_yi_se"),
        ("jiang_yi_se", "hai_di_lao"),
        ("feng_yi_se", "peng_peng_hu", "gang_shang_kai_hua"),
        ("quan_qiu_ren",),
        ("qing_yi_se", "quan_qiu_ren"),
        ("qiang_gang",),
    ]
)
_factor = st.sampled_from(["1", "1.125", "1.5", "2", "3"])
_rules = st.builds(
    lambda preset, cap, golden, bright, min_payment, sds, sdb, disc, deal, hard, liable: Rules.from_json(
        {
            "preset": preset,
            "cap": cap,
            "golden_cap": golden,
            "bright_cap": bright,
            "min_payment": min_payment,
            "self_draw_small": sds,
            "self_draw_big": sdb,
            "discarder_factor": disc,
            "dealer_factor": deal,
            "hard_factor": hard,
            "liable_yi_se": liable,
        }
    ),
    st.sampled_from(["kaikoufan", "koukoufan"]),
    st.integers(1, 500),
    st.integers(1, 600),
    st.one_of(st.none(), st.integers(1, 700)),
    st.integers(0, 40),
    _factor,
    _factor,
    _factor,
    _factor,
    _factor,
    st.lists(st.sampled_from(["qing_yi_se", "jiang_yi_se", "feng_yi_se"]), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    rules=_rules,
    seats=st.tuples(*(_seat_melds(i) for i in range(4))),
    patterns=_pattern_sets,
    soft=st.booleans(),
    dealer=st.integers(0, 3),
    winner=st.integers(0, 3),
    how=st.sampled_from(WIN_HOWS),
    offset=st.integers(1, 3),
)
def test_every_settlement_is_zero_sum_and_the_winner_never_pays(
    rules: Rules,
    seats: tuple[SeatMelds, ...],
    patterns: tuple[str, ...],
    soft: bool,
    dealer: int,
    winner: int,
    how: WinHow,
    offset: int,
) -> None:
    frm = (winner + offset) % 4 if how in ("discard", "rob_gang") else None
    s = settle_win(rules, dealer, winner, how, frm, seats, verdict(*patterns, soft=soft))
    assert sum(s.payments) == 0
    assert s.payments[winner] >= 0
    assert all(s.payments[i] <= 0 for i in range(4) if i != winner)
    if not s.valid:
        assert s.payments == (0, 0, 0, 0)
    if s.liable is not None:
        assert [i for i in range(4) if s.payments[i] < 0] in ([s.liable], [])
    assert len(s.breakdown.zh) == len(s.breakdown.en)
