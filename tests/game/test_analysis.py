"""game.analysis against a brute-force oracle, the worked examples of RULES.md §12, and edge cases."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.analysis import AnalysisError, analyse_win, is_ready, is_win, may_win, waits
from game.melds import WIN_HOWS, Meld, MeldKind, WinHow
from game.tiles import HONGZHONG, NUM_KINDS, Tile, parse_tile, parse_tiles, to_counts
from tests.game.analysis_oracle import oracle_analyse, oracle_waits

_MELD_KINDS: tuple[MeldKind, ...] = ("chi", "chi", "peng", "peng", "chong_gang", "xu_gang", "an_gang")
# Kinds a hand's tiles are drawn from: everything, one suit, honors only, 将 tiles only, one suit + honors.
_PALETTES: tuple[tuple[Tile, ...], ...] = (
    tuple(range(HONGZHONG)),
    tuple(range(0, 9)),
    tuple(range(9, 18)),
    tuple(range(27, 33)),
    (1, 4, 7, 10, 13, 16, 19, 22, 25),
    (*range(18, 27), *range(27, 33)),
)


def random_hand(rng: random.Random, n_laizi: int, size: int = 14) -> tuple[list[Tile], list[Meld], Tile]:
    """Concealed tiles (``size`` - 3 × melds of them), melds and the 赖子 kind of a hand that could exist.

    About two thirds are built as sets + a pair (so many are wins), then up to ``n_laizi`` tiles become
    赖子, and some get one tile swapped or a 红中 added; the rest are random tiles of one palette.
    """
    laizi = rng.randrange(HONGZHONG)
    palette = [t for t in rng.choice(_PALETTES) if t != laizi] or [t for t in range(HONGZHONG) if t != laizi]
    pool = [4] * NUM_KINDS
    pool[laizi] = 0  # 赖子 enter the hand only below, never through melds

    def take(kinds: list[Tile]) -> bool:
        if any(pool[t] < kinds.count(t) for t in kinds):
            return False
        for t in kinds:
            pool[t] -= 1
        return True

    melds: list[Meld] = []
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 4))):
        kind = rng.choice(_MELD_KINDS)
        t = rng.choice(palette)
        if kind == "chi":
            if t >= 27:
                continue
            start = t - t % 9 + rng.randrange(7)  # a sequence in t's suit
            if take([start, start + 1, start + 2]):
                melds.append(Meld("chi", (start, start + 1, start + 2), 0))
        elif take([t] * (4 if kind in ("chong_gang", "xu_gang", "an_gang") else 3)):
            melds.append(Meld(kind, (t,), None if kind == "an_gang" else 1))
    need = size - 3 * len(melds)
    n_laizi = min(n_laizi, need)
    tiles: list[Tile] = []
    if rng.random() < 0.65:
        for _ in range(200):
            if len(tiles) >= need - 2:
                break
            t = rng.choice(palette)
            group = [t, t + 1, t + 2] if t < 27 and t % 9 <= 6 and rng.random() < 0.5 else [t] * 3
            if all(u in palette or u // 9 == t // 9 for u in group) and take(group):
                tiles += group
        t = rng.choice(palette)
        if take([t, t]):
            tiles += [t, t]
        rng.shuffle(tiles)
        tiles = tiles[: need - n_laizi]
    while len(tiles) < need - n_laizi:
        t = rng.choice(palette if rng.random() < 0.9 else range(NUM_KINDS))
        if take([t]):
            tiles.append(t)
    if rng.random() < 0.2 and tiles:
        t = rng.randrange(NUM_KINDS)
        if take([t]):
            tiles[rng.randrange(len(tiles))] = t
    tiles += [laizi] * n_laizi
    rng.shuffle(tiles)
    return tiles, melds, laizi


def _laizi_count(rng: random.Random) -> int:
    return rng.choices((0, 1, 2, 3, 4), (30, 30, 25, 10, 5))[0]


def _check_win(seed: int, n_laizi: int | None = None) -> None:
    rng = random.Random(seed)
    n = _laizi_count(rng) if n_laizi is None else n_laizi
    tiles, melds, laizi = random_hand(rng, n)
    how: WinHow = rng.choice(WIN_HOWS)
    factor = rng.choice((Fraction(2), Fraction(2), Fraction(1), Fraction(11, 2)))
    got = analyse_win(tiles[:-1], tiles[-1], melds, laizi, how, factor)
    want = oracle_analyse(tiles[:-1], tiles[-1], melds, laizi, how, factor)
    assert got == want, (tiles, melds, laizi, how)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32))
def test_analyse_win_matches_oracle(seed: int) -> None:
    _check_win(seed)


def test_analyse_win_matches_oracle_seeded() -> None:
    # Seeded beside the hypothesis test above: 0-2 赖子 (a millisecond each) and the heavy 3-4 (25 ms each).
    for seed in range(2000):
        _check_win(seed, n_laizi=seed % 3)
    for seed in range(120):
        _check_win(10**6 + seed, n_laizi=3 + seed % 2)


def test_is_win_matches_oracle_shapes() -> None:
    # is_win with the 赖子 as wildcards covers the hard reading too (a wildcard may stand for itself).
    for seed in range(600):
        rng = random.Random(seed)
        tiles, melds, laizi = random_hand(rng, seed % 4)
        natural = to_counts(t for t in tiles if t != laizi)
        chis = sum(m.kind == "chi" for m in melds)
        got = is_win(natural, tiles.count(laizi), chis, [t for m in melds for t in m.tiles])
        oracle = oracle_analyse(tiles[:-1], tiles[-1], melds, laizi, "discard", check_open=False, ways=False)
        assert got == (oracle.reason in (None, "two_laizi_small_win")), (tiles, melds, laizi)


def test_may_win_never_turns_a_win_away() -> None:
    """The engine's quick check before each analysis (game.table): never False for a hand with a winning shape
    (is_win's, checked against the oracle above), and False for most that have none, which is what it is for."""
    wins = turned_away = others = 0
    for seed in range(3000):
        rng = random.Random(seed)
        tiles, melds, laizi = random_hand(rng, seed % 5)
        natural = to_counts(t for t in tiles if t != laizi)
        shape = is_win(
            natural, tiles.count(laizi), sum(m.kind == "chi" for m in melds), [t for m in melds for t in m.tiles]
        )
        quick = may_win(to_counts(tiles), laizi)
        if shape:
            wins += 1
            assert quick, (tiles, melds, laizi)
        else:
            others += 1
            turned_away += not quick
    assert wins >= 1000 and turned_away >= 0.6 * others


def test_oracle_candidate_cut_loses_nothing() -> None:
    rng = random.Random(7)
    for _ in range(40):
        tiles, melds, laizi = random_hand(rng, rng.choice((1, 2)))
        how: WinHow = rng.choice(WIN_HOWS)
        cut = oracle_analyse(tiles[:-1], tiles[-1], melds, laizi, how)
        assert cut == oracle_analyse(tiles[:-1], tiles[-1], melds, laizi, how, full=True)


def _check_waits(seed: int) -> None:
    rng = random.Random(seed)
    tiles, melds, laizi = random_hand(rng, rng.choices((0, 1, 2), (45, 40, 15))[0])
    concealed = tiles[:-1]
    want = oracle_waits(concealed, melds, laizi)
    assert waits(concealed, melds, laizi) == want, (concealed, melds, laizi)
    assert is_ready(concealed, melds, laizi) == bool(want)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_waits_match_oracle(seed: int) -> None:
    _check_waits(seed)


def test_waits_match_oracle_seeded() -> None:
    for seed in range(120):  # 20 ms each
        _check_waits(seed)


# --- RULES.md §12: the winner's hand in each worked example --------------------------------------

T = parse_tile


def peng(tile: str, src: int = 1) -> Meld:
    return Meld("peng", (T(tile),), src)


def chi(tiles: str, src: int = 0) -> Meld:
    return Meld("chi", tuple(parse_tiles(tiles)), src)


@pytest.mark.parametrize(
    ("name", "concealed", "win", "melds", "laizi", "how", "reason", "patterns", "soft"),
    [
        ("A", "234678p345s5m", "5m", [chi("345m")], "9s", "discard", None, ("pi_hu",), False),
        (
            "B",
            "444m77m1m5p",
            "1m",
            [peng("2m"), peng("9m")],
            "5p",
            "self_draw",
            None,
            ("peng_peng_hu", "qing_yi_se"),
            True,
        ),
        (
            "C",
            "4z",
            "4z",
            [peng("1z"), peng("2z"), peng("6z"), Meld("an_gang", (T("5z"),))],
            "3s",
            "gang_draw",
            None,
            ("peng_peng_hu", "feng_yi_se", "gang_shang_kai_hua"),
            False,
        ),
        ("D", "678p789m46s22m", "5s", [chi("123m")], "1s", "rob_gang", None, ("qiang_gang",), False),
        ("E", "123m456m789m8p", "8p", [peng("3z")], "5s", "discard", None, ("pi_hu",), False),
        ("F", "234p789p34s5s2m", "5s", [chi("678m")], "5s", "self_draw", "two_laizi_small_win", ("pi_hu",), True),
        (
            "G",
            "5p",
            "5p",
            [chi("123m"), peng("7s"), peng("9p"), chi("456s")],
            "2z",
            "discard",
            None,
            ("quan_qiu_ren",),
            False,
        ),
        ("H", "2m5m8m2s5s5s8p8p5p3m", "8s", [peng("2p")], "3m", "self_draw", None, ("jiang_yi_se",), True),
        ("I", "123m567p34s2s4p", "2s", [peng("7m")], "4p", "self_draw", None, ("pi_hu",), True),
    ],
)
def test_worked_examples(
    name: str,
    concealed: str,
    win: str,
    melds: list[Meld],
    laizi: str,
    how: WinHow,
    reason: str | None,
    patterns: tuple[str, ...],
    soft: bool,
) -> None:
    got = analyse_win(parse_tiles(concealed), T(win), melds, T(laizi), how)
    assert (got.reason, got.patterns, got.soft) == (reason, patterns, soft), name


def test_worked_example_bases() -> None:
    b = analyse_win(parse_tiles("444m77m1m5p"), T("1m"), [peng("2m"), peng("9m")], T("5p"), "self_draw")
    c = analyse_win(
        parse_tiles("4z"),
        T("4z"),
        [peng("1z"), peng("2z"), peng("6z"), Meld("an_gang", (T("5z"),))],
        T("3s"),
        "gang_draw",
    )
    assert (b.base, c.base) == (20, 80)


# --- edge cases ---------------------------------------------------------------------------------


def test_wildcard_as_a_fifth_copy() -> None:
    # Four 1m held; the 赖子 5z can only complete the hand as a fifth 1m (111m + 11m).
    melds = [peng("5p")]
    got = analyse_win(parse_tiles("1111m333p999s"), T("5z"), melds, T("5z"), "discard")
    assert (got.reason, got.patterns, got.soft) == (None, ("peng_peng_hu",), True)
    assert analyse_win(parse_tiles("1111m333p999s"), T("2z"), melds, T("5z"), "discard").reason == "not_a_win"


def test_hongzhong_and_not_open_come_first() -> None:
    hand = parse_tiles("234678p345s7z")
    assert analyse_win(hand, T("5m"), [chi("345m")], T("9s"), "discard").reason == "holds_hongzhong"
    assert analyse_win(hand, T("5m"), [Meld("an_gang", (T("1z"),))], T("9s"), "discard").reason == "not_open"
    assert waits(hand, [chi("345m")], T("9s")) == []


def test_three_and_four_wildcards() -> None:
    # W=3 make a set of their own; the natural 3p pair and the all-p melds give 清一色 (hard: 666s breaks it).
    got = analyse_win(parse_tiles("6s6s6s3p"), T("3p"), [chi("123p"), peng("5p"), peng("9p")], T("6s"), "discard")
    assert (got.reason, got.patterns, got.soft) == (None, ("qing_yi_se",), True)
    # W=4: a pair with the 1z and a free triplet.
    four = analyse_win(parse_tiles("9p9p9p9p"), T("1z"), [peng("1m"), peng("5p"), peng("3z")], T("9p"), "discard")
    assert (four.reason, four.patterns, four.soft) == (None, ("peng_peng_hu",), True)
    # W=2 alone is a pair (of 2m, say): a soft 屁胡, refused for its two 赖子.
    melds = [peng("1m"), peng("5p"), chi("234s"), chi("789m")]
    two = analyse_win(parse_tiles("6s"), T("6s"), melds, T("6s"), "self_draw")
    assert (two.reason, two.patterns, two.soft) == ("two_laizi_small_win", ("pi_hu",), True)


def test_seven_pairs_is_no_win() -> None:
    assert not is_win(to_counts(parse_tiles("1133m5577p2288s66z")), 0)
    assert not is_win(to_counts(parse_tiles("1133m5577p2288s6z")), 1)


def test_is_win_reads_one_split() -> None:
    assert is_win(to_counts(parse_tiles("234p567p345s55m")), 0, 1, (T("3m"),))
    assert is_win(to_counts(parse_tiles("234p567p345s5m")), 1, 1, (T("3m"),))  # the wildcard pairs the 5m
    assert not is_win(to_counts(parse_tiles("234p567p345s5m1z")), 0, 1, (T("3m"),))
    assert not is_win(to_counts(parse_tiles("234p567p345s7z")), 1, 1, (T("3m"),))  # 红中 never wins
    assert is_win([0] * NUM_KINDS, 2)  # a pair of wildcards after four melds


def test_bad_input_is_refused() -> None:
    with pytest.raises(AnalysisError):
        analyse_win(parse_tiles("234678p345s"), T("5m"), [chi("345m")], T("9s"), "discard")  # 12 tiles
    with pytest.raises(AnalysisError):
        analyse_win(parse_tiles("5555m678p345s"), T("5m"), [chi("345m")], T("9s"), "discard")  # five 5m
    with pytest.raises(AnalysisError):
        waits(parse_tiles("234678p345s5m"), [chi("345m")], 40)


def test_waits_examples() -> None:
    # §12 A before its 5m: the 5m pair, or the 赖子 9s drawn and standing for it (one 赖子: a 屁胡 is fine).
    assert waits(parse_tiles("234678p345s5m"), [chi("345m")], T("9s")) == [T("5m"), T("9s")]
    # A fifth 5m cannot be drawn when the hand already holds four, but a 赖子 may stand for it.
    assert waits(parse_tiles("5m234p567p789s"), [peng("6m")], T("1z")) == [T("5m"), T("1z")]
    assert waits(parse_tiles("5m234p567p789s"), [peng("5m")], T("1z")) == [T("1z")]
    assert not is_ready(parse_tiles("1m4m7m1p4p7p1s4s7s1z"), [chi("345m")], T("9s"))
    # Holding one 赖子 already: a second one drawn would make a 屁胡 with two, which is no win.
    assert waits(parse_tiles("234678p34s5m9s"), [chi("345m")], T("9s")) == [T("5m"), T("2s"), T("5s")]


def test_is_win_needs_a_whole_hand() -> None:
    assert not is_win(to_counts(parse_tiles("234p567p345s5m")), 0)  # 10 tiles: no hand
    assert not is_win(to_counts(parse_tiles("234p567p345s55m")), 1)  # 12 tiles
