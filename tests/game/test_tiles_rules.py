import pytest

from game.rules import Rules, RulesError
from game.tiles import (
    TileError,
    format_tiles,
    laizi_of,
    parse_tile,
    parse_tiles,
    tile_cn,
    tile_name,
)


@pytest.mark.parametrize(
    ("indicator", "laizi"),
    [("4p", "5p"), ("9s", "1s"), ("4z", "6z"), ("7z", "6z"), ("5z", "1z"), ("6z", "5z"), ("1z", "2z"), ("9m", "1m")],
)
def test_laizi_successor(indicator: str, laizi: str) -> None:
    assert tile_name(laizi_of(parse_tile(indicator))) == laizi


def test_notation_round_trip() -> None:
    tiles = parse_tiles("234678p345s5m")
    assert [tile_name(t) for t in tiles] == ["2p", "3p", "4p", "6p", "7p", "8p", "3s", "4s", "5s", "5m"]
    assert format_tiles(tiles) == "5m234678p345s"
    assert parse_tiles(format_tiles(tiles)) == sorted(tiles)
    for t in range(34):
        assert parse_tile(tile_name(t)) == t


@pytest.mark.parametrize("bad", ["8z", "0m", "12", "m", "1x", "1m2", "10p"])
def test_bad_tiles_raise(bad: str) -> None:
    with pytest.raises(TileError):
        parse_tiles(bad)


def test_chinese_names() -> None:
    assert tile_cn(parse_tile("5m")) == "五万"
    assert tile_cn(parse_tile("7z")) == "中"
    assert tile_cn(parse_tile("1s")) == "一条"


def test_presets_and_options() -> None:
    k = Rules.from_json("koukoufan")
    assert (k.per_meld_opening, k.cap, k.golden_cap, k.min_payment) == (True, 300, 500, 20)
    r = Rules.from_json({"preset": "kaikoufan", "min_payment": 0, "self_draw_big": 1.5, "bright_cap": 500})
    assert r.min_payment == 0 and r.bright_cap == 500 and not r.per_meld_opening
    assert Rules.from_json(r.to_json()) == r
    for bad in ("nope", {"preset": "kaikoufan", "cap": -1}, {"unknown": 1}, {"multi_win_order": "x"}, 5):
        with pytest.raises(RulesError):
            Rules.from_json(bad)


def test_the_rob_and_wildcard_kong_options_take_only_their_choices() -> None:
    r = Rules.from_json({"qiang_gang_pay": "robber", "qiang_gang_by": "xia_jia", "laizi_gang_factor": 2})
    assert (r.qiang_gang_pay, r.qiang_gang_by, r.laizi_gang_factor) == ("robber", "xia_jia", 2)
    assert Rules().qiang_gang_pay == "gang_kai" and Rules().qiang_gang_by == "anyone"
    assert Rules.from_json(r.to_json()) == r
    for key, value in (("qiang_gang_pay", "x"), ("qiang_gang_by", 1), ("laizi_gang_factor", 3)):
        with pytest.raises(RulesError) as refused:
            Rules.from_json({key: value})
        assert refused.value.code == "rules_err_choice" and refused.value.fields["key"] == key
    with pytest.raises(RulesError):
        Rules.from_json({"laizi_gang_factor": True})  # a bool is not the number 2 or 4


def test_stored_rules_that_do_not_name_qiang_gang_pay_were_stored_before_it_and_mean_robber() -> None:
    for old in ({"preset": "kaikoufan"}, "koukoufan", {"preset": "koukoufan", "cap": 500}, None):
        assert Rules.from_stored(old).qiang_gang_pay == "robber"
    for rules in (Rules(), Rules(qiang_gang_pay="robber"), Rules.from_json("koukoufan")):
        assert "qiang_gang_pay" in rules.to_stored()
        assert Rules.from_stored(rules.to_stored()) == rules
    assert Rules.from_json({"preset": "kaikoufan"}).qiang_gang_pay == "gang_kai"  # the calculator, /settings


def test_bright_cap_true_follows_the_golden_cap_set_beside_it() -> None:
    # 光明顶 `true` is 100 above the 金顶, whatever order the options come in.
    assert Rules.from_json({"bright_cap": True}).bright_cap == 500
    assert Rules.from_json({"preset": "koukoufan", "bright_cap": True}).bright_cap == 600
    for opts in ({"golden_cap": 600, "bright_cap": True}, {"bright_cap": True, "golden_cap": 600}):
        assert Rules.from_json(opts).bright_cap == 700
