"""The calculator of RULES.md §11: every worked example of §12, derived hands, malformed input, a property."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.calc import main
from game.melds import MELD_KINDS, WIN_HOWS
from game.tiles import HONGZHONG, tile_name

ROOT = Path(__file__).resolve().parents[2]


def run(obj: Any) -> tuple[int, dict[str, Any]]:
    """Run the calculator in-process on a JSON value (or raw text); returns (exit status, output object)."""
    text = obj if isinstance(obj, str) else json.dumps(obj)
    out = io.StringIO()
    status = main([], stdin=io.StringIO(text), stdout=out)
    printed = out.getvalue()
    assert printed.endswith("\n") and printed.count("\n") == 1
    result: dict[str, Any] = json.loads(printed)
    return status, result


def ok(obj: Any) -> dict[str, Any]:
    status, result = run(obj)
    assert status == 0, result
    assert set(result) == {"valid", "reason", "patterns", "soft", "base", "payments", "liable", "cap", "breakdown"}
    assert sum(result["payments"]) == 0
    return result


def peng(t: str, frm: int) -> dict[str, Any]:
    return {"type": "peng", "tile": t, "from": frm}


def chi(tiles: str, frm: int) -> dict[str, Any]:
    return {"type": "chi", "tiles": tiles, "from": frm}


EXAMPLE_A: dict[str, Any] = {
    "rules": "kaikoufan",
    "dealer": 0,
    "laizi": "9s",
    "winner": 1,
    "how": "discard",
    "from": 2,
    "tile": "5m",
    "concealed": "234678p345s5m",
    "players": [
        {"melds": [peng("1z", 3)], "hongzhong_gangs": 1},
        {"melds": [chi("345m", 0)]},
        {},
        {"melds": [{"type": "an_gang", "tile": "9p"}], "laizi_gangs": 0},
    ],
}


def with_changes(base: dict[str, Any], **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(base)
    out.update(changes)
    return out


def a_with_player(seat: int, player: Any) -> dict[str, Any]:
    out = copy.deepcopy(EXAMPLE_A)
    out["players"][seat] = player
    return out


# --- §12, every worked example ---


def test_example_a_plain_hard_win_on_a_discard() -> None:
    r = ok(EXAMPLE_A)
    assert r["payments"] == [-32, 56, -8, -16]
    assert (r["valid"], r["reason"], r["patterns"], r["soft"], r["base"]) == (True, None, ["pi_hu"], False, 1)
    assert (r["liable"], r["cap"]) == (None, "none")


def test_example_a_under_koukoufan() -> None:
    hand = with_changes(EXAMPLE_A, rules="koukoufan")
    hand["players"][0] = {"melds": [peng("1z", 3), peng("9p", 2)], "hongzhong_gangs": 1}
    hand["players"][3] = {"melds": [{"type": "an_gang", "tile": "1p"}]}
    r = ok(hand)
    assert r["payments"] == [-64, 88, -8, -16]
    assert (r["patterns"], r["soft"], r["cap"]) == (["pi_hu"], False, "none")


def test_a_thrown_laizi_doubles_like_a_hongzhong_gang_not_like_a_laizi_gang() -> None:
    # Example A with seat 3's 暗杠 (F 4, pays 16) and one 丢赖子 (RULES.md §4): ×2, not the ×4 of a 赖子杠.
    hand = a_with_player(3, {"melds": [{"type": "an_gang", "tile": "9p"}], "laizi_thrown": 1})
    assert ok(hand)["payments"] == [-32, 72, -8, -32]
    gang = a_with_player(3, {"melds": [{"type": "an_gang", "tile": "9p"}], "laizi_gangs": 1})
    assert ok(gang)["payments"] == [-32, 104, -8, -64]
    assert "丢赖子" in "\n".join(ok(hand)["breakdown"]["zh"])


def test_example_b_pure_suit_all_pungs_soft_self_draw() -> None:
    r = ok(
        {
            "dealer": 2,
            "laizi": "5p",
            "winner": 0,
            "how": "self_draw",
            "tile": "1m",
            "concealed": "444m77m1m5p",
            "players": [
                {"melds": [peng("2m", 3), peng("9m", 1)]},
                {},
                {"melds": [chi("678s", 1), {"type": "xu_gang", "tile": "3p", "from": 3}]},
                {"melds": [peng("1z", 2)], "laizi_gangs": 1},
            ],
        }
    )
    assert r["payments"] == [600, -60, -240, -300]
    assert sorted(r["patterns"]) == ["peng_peng_hu", "qing_yi_se"]
    assert (r["soft"], r["base"], r["cap"], r["liable"]) == (True, 20, "capped", None)


EXAMPLE_C: dict[str, Any] = {
    "dealer": 3,
    "laizi": "3s",
    "winner": 3,
    "how": "gang_draw",
    "tile": "4z",
    "concealed": "4z",
    "players": [
        {},
        {},
        {},
        {"melds": [peng("1z", 0), peng("2z", 1), peng("6z", 2), {"type": "an_gang", "tile": "5z"}]},
    ],
}


def test_example_c_winds_liability_and_golden_cap() -> None:
    r = ok(EXAMPLE_C)
    assert r["payments"] == [0, 0, -1200, 1200]
    assert sorted(r["patterns"]) == ["feng_yi_se", "gang_shang_kai_hua", "peng_peng_hu"]
    assert (r["soft"], r["base"], r["liable"], r["cap"]) == (False, 80, 2, "golden")


EXAMPLE_D: dict[str, Any] = {
    "dealer": 0,
    "laizi": "1s",
    "winner": 2,
    "how": "rob_gang",
    "from": 1,
    "tile": "5s",
    "concealed": "678p789m46s22m",
    "players": [{}, {"melds": [peng("5s", 3)]}, {"melds": [chi("123m", 1)]}, {"hongzhong_gangs": 1}],
}


def test_example_d_robbing_the_kong_is_paid_gang_in_gang_out() -> None:
    # §6 gang_kai (the default): seat 1 pays what its 蓄杠 would have won as a soft 杠上开花 屁胡: base 10,
    # F(1) = open 2 × 蓄杠 2, × 1.5 = 6; seat 0 pays 60, seats 2 and 3 (F 2) 120 each, all to the robber.
    r = ok(EXAMPLE_D)
    assert r["payments"] == [0, -300, 300, 0]
    assert (r["patterns"], r["soft"], r["base"], r["liable"], r["cap"]) == (["qiang_gang"], False, 10, 1, "none")
    assert "杠进杠出: 南 按蓄杠杠上开花计 — 底分 10" in r["breakdown"]["zh"]
    assert "North: red-dragon kong ×2 → 10 × 6 × 2 = 120" in r["breakdown"]["en"]


def test_example_d_robber_variant_scores_the_robbers_hand() -> None:
    r = ok(with_changes(EXAMPLE_D, rules={"preset": "kaikoufan", "qiang_gang_pay": "robber"}))
    assert r["payments"] == [0, -280, 280, 0]
    assert (r["patterns"], r["soft"], r["base"], r["liable"], r["cap"]) == (["qiang_gang"], False, 10, 1, "none")


def test_gang_in_gang_out_caps_each_amount_and_counts_the_robbed_seats_own_gangs() -> None:
    # Seat 1 also holds two 赖子杠: F(1) = 2 × 2 × 16 = 64, × 1.5 × 10 = 960 a unit: every amount is capped,
    # so all three pay the 金顶 400 and seat 1 pays 1,200. With laizi_gang_factor 2, F(1) = 16: 240 a unit,
    # seats 2 and 3 (F 2) are capped at 300, seat 0 pays 240.
    players = [{}, {"melds": [peng("5s", 3)], "laizi_gangs": 2}, *EXAMPLE_D["players"][2:]]
    r = ok(with_changes(EXAMPLE_D, players=players))
    assert (r["payments"], r["cap"]) == ([0, -1200, 1200, 0], "golden")
    two = {"preset": "kaikoufan", "laizi_gang_factor": 2}
    r = ok(with_changes(EXAMPLE_D, players=players, rules=two))
    assert (r["payments"], r["cap"]) == ([0, -840, 840, 0], "capped")


def test_example_d_with_the_robbed_kong_listed_as_xu_gang() -> None:
    # §6: the robbed 蓄杠 is undone and stays a peng, so listing it as xu_gang settles exactly like D.
    robbed = {"melds": [{"type": "xu_gang", "tile": "5s", "from": 3}]}
    for pay, payments in (("gang_kai", [0, -300, 300, 0]), ("robber", [0, -280, 280, 0])):
        rules = {"preset": "kaikoufan", "qiang_gang_pay": pay}
        r = ok(with_changes(EXAMPLE_D, rules=rules, players=[{}, robbed, *EXAMPLE_D["players"][2:]]))
        assert r["payments"] == payments
        assert r["liable"] == 1


def test_laizi_thrown_counts_twice_in_the_multiplier() -> None:
    # Example A with seat 3 also having thrown a 赖子 (丢赖子, ×2): F(3) = 4 × 2 = 8, it pays 32, not 16.
    players = [*EXAMPLE_A["players"][:3], {**EXAMPLE_A["players"][3], "laizi_thrown": 1}]
    r = ok(with_changes(EXAMPLE_A, players=players))
    assert r["payments"] == [-32, 72, -8, -32]
    assert any("丢赖子 ×2" in line for line in r["breakdown"]["zh"])


EXAMPLE_E: dict[str, Any] = {
    "dealer": 0,
    "laizi": "5s",
    "winner": 1,
    "how": "discard",
    "from": 3,
    "tile": "8p",
    "concealed": "123m456m789m8p",
    "players": [{}, {"melds": [peng("3z", 0)]}, {}, {}],
}


def test_example_e_below_the_minimum() -> None:
    r = ok(EXAMPLE_E)
    assert (r["valid"], r["reason"], r["payments"]) == (False, "below_minimum", [0, 0, 0, 0])
    assert (r["patterns"], r["liable"], r["cap"]) == (["pi_hu"], None, "none")
    # The raw payments 8, 4, 8 are shown even though nobody pays them.
    assert any(line.endswith("= 8") and line.startswith("East") for line in r["breakdown"]["en"])


def test_example_f_two_laizi_in_a_small_win() -> None:
    r = ok(
        {
            "dealer": 0,
            "laizi": "5s",
            "winner": 1,
            "how": "self_draw",
            "tile": "5s",
            "concealed": "234p789p34s5s2m",
            "players": [{}, {"melds": [chi("678m", 0)]}, {}, {}],
        }
    )
    assert (r["valid"], r["reason"], r["payments"]) == (False, "two_laizi_small_win", [0, 0, 0, 0])


EXAMPLE_G: dict[str, Any] = {
    "dealer": 1,
    "laizi": "2z",
    "winner": 0,
    "how": "discard",
    "from": 3,
    "tile": "5p",
    "concealed": "5p",
    "players": [
        {"melds": [chi("123m", 3), peng("7s", 1), peng("9p", 2), chi("456s", 3)]},
        {},
        {},
        {"ready": False},
    ],
}


def test_example_g_all_from_others_with_an_unready_discarder() -> None:
    r = ok(EXAMPLE_G)
    assert r["payments"] == [160, 0, 0, -160]
    assert (r["patterns"], r["soft"], r["base"], r["liable"]) == (["quan_qiu_ren"], False, 10, 3)


def test_example_g_all_from_others_with_a_ready_discarder() -> None:
    hand = copy.deepcopy(EXAMPLE_G)
    hand["players"][3] = {"ready": True}
    r = ok(hand)
    assert r["payments"] == [160, -40, -40, -80]
    assert (r["patterns"], r["liable"]) == (["quan_qiu_ren"], None)


def test_example_h_all_258_soft_self_draw() -> None:
    r = ok(
        {
            "dealer": 2,
            "laizi": "3m",
            "winner": 2,
            "how": "self_draw",
            "tile": "8s",
            "concealed": "2m5m8m2s5s5s8p8p5p3m",
            "players": [{}, {}, {"melds": [peng("2p", 1)]}, {}],
        }
    )
    assert r["payments"] == [-30, -30, 90, -30]
    assert (r["patterns"], r["soft"], r["base"], r["liable"]) == (["jiang_yi_se"], True, 10, None)


def test_example_i_dealers_plain_soft_self_draw() -> None:
    r = ok(
        {
            "dealer": 0,
            "laizi": "4p",
            "winner": 0,
            "how": "self_draw",
            "tile": "2s",
            "concealed": "123m567p34s2s4p",
            "players": [{"melds": [peng("7m", 2)]}, {}, {"melds": [chi("789s", 1)]}, {"laizi_gangs": 2}],
        }
    )
    assert r["payments"] == [152, -8, -16, -128]
    assert (r["patterns"], r["soft"], r["base"]) == (["pi_hu"], True, 1)


# --- derived from §9 by hand ---


def test_options_change_example_a() -> None:
    # hard_factor 3: F(1) = 2 · 3 = 6. Seat 2: 6 · 2 = 12; seat 0: 6 · 4 · 2 = 48; seat 3: 6 · 4 = 24.
    r = ok(with_changes(EXAMPLE_A, rules={"preset": "kaikoufan", "hard_factor": 3}))
    assert r["payments"] == [-48, 84, -12, -24]
    # discarder_factor 3: seat 2 pays 4 · 3 = 12; the others as in A.
    r = ok(with_changes(EXAMPLE_A, rules={"discarder_factor": 3}))
    assert r["payments"] == [-32, 60, -12, -16]
    # dealer_factor 1.5: seat 0 pays 4 · 4 · 1.5 = 24.
    r = ok(with_changes(EXAMPLE_A, rules={"dealer_factor": 1.5}))
    assert r["payments"] == [-24, 48, -8, -16]


def test_min_payment_zero_pays_example_e() -> None:
    # F(1) = 2 · hard 2 = 4: seat 0 (dealer) 8, seat 2: 4, seat 3 (discarder) 8.
    r = ok(with_changes(EXAMPLE_E, rules={"min_payment": 0}))
    assert (r["valid"], r["payments"]) == (True, [-8, 20, -4, -8])


def test_liable_yi_se_without_feng_yi_se_lets_example_c_pay_evenly() -> None:
    r = ok(with_changes(EXAMPLE_C, rules={"liable_yi_se": ["qing_yi_se", "jiang_yi_se"]}))
    assert (r["payments"], r["liable"], r["cap"]) == ([-400, -400, -400, 1200], None, "golden")


def test_example_c_in_koukoufan_and_with_a_bright_cap() -> None:
    # koukoufan: F(3) = 2³ (three pengs) · 4 (暗杠) = 32 → even larger; 金顶 500 each, seat 2 pays 1500.
    r = ok(with_changes(EXAMPLE_C, rules="koukoufan"))
    assert (r["payments"], r["liable"], r["cap"]) == ([0, 0, -1500, 1500], 2, "golden")
    # bright_cap 600, no liability: seats 0-2 never opened → 600 each.
    r = ok(with_changes(EXAMPLE_C, rules={"bright_cap": 600, "liable_yi_se": []}))
    assert r["payments"] == [-600, -600, -600, 1800]
    # seat 1 opened (a peng): it pays the plain 金顶 400.
    hand = with_changes(EXAMPLE_C, rules={"bright_cap": 600, "liable_yi_se": []})
    hand["players"][1] = {"melds": [peng("9m", 0)]}
    assert ok(hand)["payments"] == [-600, -400, -600, 1600]


def test_a_hand_holding_hongzhong_or_not_open_is_no_win() -> None:
    r = ok(with_changes(EXAMPLE_A, concealed="234678p345s7z"))
    assert (r["valid"], r["reason"], r["payments"]) == (False, "holds_hongzhong", [0, 0, 0, 0])
    hand = a_with_player(1, {"melds": [{"type": "an_gang", "tile": "1m"}]})
    r = ok(hand)
    assert (r["valid"], r["reason"]) == (False, "not_open")


def test_a_chi_may_name_its_claimed_tile() -> None:
    hand = a_with_player(1, {"melds": [{**chi("345m", 0), "claimed": "4m"}]})
    assert ok(hand)["payments"] == [-32, 56, -8, -16]


def test_players_may_be_null_or_empty() -> None:
    hand = copy.deepcopy(EXAMPLE_E)
    hand["players"][0] = None
    hand["players"][2] = {"melds": []}
    assert ok(hand)["reason"] == "below_minimum"


# --- malformed input: exit status 2 and {"error": ...} ---


def _bad(**changes: Any) -> dict[str, Any]:
    return with_changes(EXAMPLE_A, **changes)


MALFORMED: dict[str, Any] = {
    "not JSON": "{'rules': 1",
    "empty input": "",
    "deeply nested JSON": "[" * 100000 + "]" * 100000,
    "not an object": "[1, 2]",
    "unknown preset": _bad(rules="wuhan"),
    "unknown option": _bad(rules={"preset": "kaikoufan", "nonsense": 1}),
    "option of the wrong type": _bad(rules={"cap": "lots"}),
    "rules of the wrong type": _bad(rules=3),
    "unknown top-level key": _bad(extra=1),
    "unknown tile": _bad(tile="8z"),
    "unknown tile in concealed": _bad(concealed="234678p345s5x"),
    "laizi is 红中": _bad(laizi="7z"),
    "tile not a string": _bad(tile=5),
    "concealed not a string": _bad(concealed=["2p"]),
    "concealed one short": _bad(concealed="234678p345s"),
    "concealed one over": _bad(concealed="234678p345s5m5m"),
    "five of a tile": a_with_player(0, {"melds": [{"type": "an_gang", "tile": "5m"}]}),
    "five red dragons": _bad(players=[{"hongzhong_gangs": 3}, EXAMPLE_A["players"][1], {"hongzhong_gangs": 2}, {}]),
    "five wildcards": _bad(players=[{"laizi_gangs": 4}, EXAMPLE_A["players"][1], {}, {"laizi_gangs": 1}]),
    "five across melds": _bad(
        concealed="234678p345s5m",
        players=[
            {"melds": [peng("5m", 3)]},
            {"melds": [chi("345m", 0)]},
            {"melds": [chi("456m", 1)]},
            {},
        ],
    ),
    "chi from the wrong seat": a_with_player(1, {"melds": [chi("345m", 2)]}),
    "chi not a sequence": a_with_player(1, {"melds": [chi("346m", 0)]}),
    "chi claimed not a tile": a_with_player(1, {"melds": [{**chi("345m", 0), "claimed": 4}]}),
    "chi claimed outside it": a_with_player(1, {"melds": [{**chi("345m", 0), "claimed": "6m"}]}),
    "chi of honors": a_with_player(1, {"melds": [chi("123z", 0)]}),
    "meld from its own seat": a_with_player(0, {"melds": [peng("1z", 0)]}),
    "meld of the wildcard": a_with_player(0, {"melds": [peng("9s", 3)]}),
    "meld of red dragons": a_with_player(0, {"melds": [{"type": "an_gang", "tile": "7z"}]}),
    "unknown meld type": a_with_player(0, {"melds": [{"type": "kong", "tile": "1z", "from": 3}]}),
    "unknown meld key": a_with_player(0, {"melds": [{"type": "an_gang", "tile": "1z", "from": 3}]}),
    "peng without from": a_with_player(0, {"melds": [{"type": "peng", "tile": "1z"}]}),
    "meld not an object": a_with_player(0, {"melds": ["1z"]}),
    "melds not a list": a_with_player(0, {"melds": {"type": "peng"}}),
    "five melds": a_with_player(0, {"melds": [peng(t, 3) for t in ("1z", "2z", "3z", "4z", "6z")]}),
    "from missing for a discard": {k: v for k, v in EXAMPLE_A.items() if k != "from"},
    "from equal to the winner": _bad(**{"from": 1}),
    "from on a self-draw": _bad(how="self_draw"),
    "from out of range": _bad(**{"from": 4}),
    "unknown how": _bad(how="tsumo"),
    "dealer out of range": _bad(dealer=4),
    "winner negative": _bad(winner=-1),
    "winner as a string": _bad(winner="1"),
    "dealer as a boolean": _bad(dealer=True),
    "dealer missing": {k: v for k, v in EXAMPLE_A.items() if k != "dealer"},
    "players missing": {k: v for k, v in EXAMPLE_A.items() if k != "players"},
    "three players": _bad(players=EXAMPLE_A["players"][:3]),
    "players an object": _bad(players={"0": {}}),
    "player a list": a_with_player(2, []),
    "unknown player key": a_with_player(2, {"score": 3}),
    "ready not a boolean": a_with_player(2, {"ready": "yes"}),
    "negative gang count": a_with_player(2, {"hongzhong_gangs": -1}),
    "fractional gang count": a_with_player(2, {"laizi_gangs": 1.5}),
    "a discarded wildcard": _bad(laizi="5m"),
    "rob_gang without the peng": _bad(how="rob_gang"),
}


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_input_exits_2_with_an_error(name: str) -> None:
    status, result = run(MALFORMED[name])
    assert status == 2
    assert list(result) == ["error"] and isinstance(result["error"], str) and result["error"]


def test_errors_name_the_problem() -> None:
    assert "chi" in run(MALFORMED["chi from the wrong seat"])[1]["error"]
    assert "5m" in run(MALFORMED["five of a tile"])[1]["error"]
    assert "concealed" in run(MALFORMED["concealed one short"])[1]["error"]
    assert "8z" in run(MALFORMED["unknown tile"])[1]["error"]


def test_missing_file_and_extra_arguments_exit_2(tmp_path: Path) -> None:
    for argv in ([str(tmp_path / "nope.json")], ["a.json", "b.json"]):
        out = io.StringIO()
        assert main(argv, stdin=io.StringIO(""), stdout=out) == 2
        assert "error" in json.loads(out.getvalue())


# --- real processes ---


def test_subprocess_reads_stdin() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "game.calc"],
        input=json.dumps(EXAMPLE_A),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        encoding="utf-8",
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["payments"] == [-32, 56, -8, -16]
    assert proc.stderr == ""


def test_subprocess_reads_a_file_and_reports_malformed_input(tmp_path: Path) -> None:
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(MALFORMED["chi from the wrong seat"]), encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "game.calc", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        encoding="utf-8",
    )
    assert proc.returncode == 2
    assert "error" in json.loads(proc.stdout)
    assert proc.stderr == ""


# --- the property: any hand that could be played settles zero-sum, the winner never paying ---


@st.composite
def played_hands(draw: st.DrawFn) -> dict[str, Any]:
    """A random hand from one set of 136 tiles: melds, gangs, a concealed hand (often a winning shape)."""
    left = [4] * 34
    laizi = draw(st.integers(0, HONGZHONG - 1))
    winner = draw(st.integers(0, 3))

    def take(*tiles: int) -> bool:
        if any(left[t] < tiles.count(t) for t in tiles):
            return False
        for t in tiles:
            left[t] -= 1
        return True

    players: list[dict[str, Any]] = []
    for seat in range(4):
        melds: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(1 if seat == winner else 0, 4 if seat == winner else 2))):
            kind = draw(st.sampled_from(MELD_KINDS))
            t = draw(st.integers(0, HONGZHONG - 1))
            if kind == "chi":
                t = t % 27 // 9 * 9 + t % 7  # a suit tile of rank 1-7
                if laizi not in (t, t + 1, t + 2) and take(t, t + 1, t + 2):
                    melds.append(chi("".join(str(t % 9 + d) for d in (1, 2, 3)) + "mps"[t // 9], (seat - 1) % 4))
            elif t != laizi and take(*[t] * (3 if kind == "peng" else 4)):
                meld: dict[str, Any] = {"type": kind, "tile": tile_name(t)}
                if kind != "an_gang":
                    meld["from"] = (seat + draw(st.integers(1, 3))) % 4
                melds.append(meld)
        hz = draw(st.integers(0, min(2, left[HONGZHONG])))
        take(*[HONGZHONG] * hz)
        lz = draw(st.integers(0, min(2, left[laizi])))
        take(*[laizi] * lz)
        players.append({"melds": melds, "hongzhong_gangs": hz, "laizi_gangs": lz, "ready": draw(st.booleans())})

    hand: list[int] = []
    n_sets = 4 - len(players[winner]["melds"])
    for _ in range(n_sets):
        t = draw(st.integers(0, HONGZHONG))
        shape = [t] * 3 if draw(st.booleans()) or t >= 27 or t % 9 > 6 else [t, t + 1, t + 2]
        hand.extend(shape if take(*shape) else [])
    pair = draw(st.integers(0, HONGZHONG))
    hand.extend([pair] * 2 if take(pair, pair) else [])
    while len(hand) < 14 - 3 * (4 - n_sets):
        t = draw(st.sampled_from([k for k in range(34) if left[k]]))
        take(t)
        hand.append(t)
    win = hand.pop(draw(st.integers(0, len(hand) - 1)))

    how = draw(st.sampled_from(WIN_HOWS))
    if how in ("discard", "rob_gang") and win in (laizi, HONGZHONG):
        how = "self_draw"
    out: dict[str, Any] = {
        "rules": draw(st.sampled_from(["kaikoufan", "koukoufan", {"min_payment": 0, "bright_cap": True}])),
        "dealer": draw(st.integers(0, 3)),
        "laizi": tile_name(laizi),
        "winner": winner,
        "how": how,
        "tile": tile_name(win),
        "concealed": "".join(tile_name(t) for t in hand),
        "players": players,
    }
    if how in ("discard", "rob_gang"):
        out["from"] = (winner + draw(st.integers(1, 3))) % 4
        robbed = players[out["from"]]["melds"]
        if how == "rob_gang" and len(robbed) < 4 and take(win, win, win):
            robbed.append(peng(tile_name(win), (out["from"] + 1) % 4))
        elif how == "rob_gang":
            out["how"] = "discard"
    return out


@settings(max_examples=150, deadline=None)
@given(played_hands())
def test_every_playable_hand_settles_zero_sum(hand: dict[str, Any]) -> None:
    r = ok(hand)
    payments = r["payments"]
    assert payments[hand["winner"]] >= 0
    assert all(p <= 0 for i, p in enumerate(payments) if i != hand["winner"])
    if not r["valid"]:
        assert payments == [0, 0, 0, 0] and r["reason"]
    assert len(r["breakdown"]["zh"]) == len(r["breakdown"]["en"])
