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


def test_bright_cap_true_follows_the_golden_cap_set_beside_it() -> None:
    # 光明顶 `true` is 100 above the 金顶, whatever order the options come in.
    assert Rules.from_json({"bright_cap": True}).bright_cap == 500
    assert Rules.from_json({"preset": "koukoufan", "bright_cap": True}).bright_cap == 600
    for opts in ({"golden_cap": 600, "bright_cap": True}, {"bright_cap": True, "golden_cap": 600}):
        assert Rules.from_json(opts).bright_cap == 700
