"""The winning patterns of RULES.md §8.3: one entry each, keyed by id, with names and condition.

``game.analysis`` reduces a hand to the ``Reading`` facts below (fast, table-driven); the conditions here
decide which patterns those facts make, so a reader finds each rule by its name. The base of a win
(§9) follows from its patterns: 屁胡 1, n big patterns 10 × 2^(n−1), 风一色 counting two.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from game.melds import WinHow


@dataclass(frozen=True)
class Reading:
    """The facts of one reading of a winning hand (one choice of what each 赖子 stands for)."""

    hard: bool  # no 赖子 stands for another tile
    standard: bool  # sets + one pair (any pair)
    standard_258: bool  # sets + a 2-5-8 pair
    all_triplets: bool  # sets + a pair, every set (concealed and melded) a triplet or gang
    one_suit: bool  # every tile, concealed and melded, of one suit
    all_jiang: bool  # 乱将: every tile a 将 tile
    all_feng: bool  # 乱风: every tile a 风 tile
    how: WinHow
    four_open_melds: bool  # four chi/peng/明杠 melds and a single concealed tile before the win


@dataclass(frozen=True)
class Pattern:
    id: str
    zh: str
    en: str
    big: int  # how many big patterns it counts as (屁胡: 0)
    group: str | None  # patterns of one group exclude each other (§8.3); the first that applies is kept
    applies: Callable[[Reading], bool]


PATTERNS: Final[dict[str, Pattern]] = {
    p.id: p
    for p in (
        Pattern("pi_hu", "屁胡", "plain win", 0, None, lambda r: r.standard_258),
        Pattern("peng_peng_hu", "碰碰胡", "all pungs", 1, None, lambda r: r.all_triplets),
        Pattern("qing_yi_se", "清一色", "pure suit", 1, "yi_se", lambda r: r.standard and r.one_suit),
        Pattern("jiang_yi_se", "将一色", "all 2-5-8", 1, "yi_se", lambda r: r.all_jiang),
        Pattern("feng_yi_se", "风一色", "all winds & dragons", 2, "yi_se", lambda r: r.all_feng),
        Pattern(
            "quan_qiu_ren",
            "全求人",
            "all from others",
            1,
            "way",
            lambda r: r.four_open_melds and r.how == "discard",
        ),
        Pattern("gang_shang_kai_hua", "杠上开花", "win on a kong draw", 1, "way", lambda r: r.how == "gang_draw"),
        Pattern("hai_di_lao", "海底捞", "last-tile win", 1, "way", lambda r: r.how == "haidi"),
        Pattern("qiang_gang", "抢杠", "robbing the kong", 1, "way", lambda r: r.how == "rob_gang"),
    )
}


def patterns_of(r: Reading) -> tuple[str, ...]:
    """The patterns a reading makes, in table order; () when it is no win.

    A standard shape needs a 2-5-8 pair unless 碰碰胡 or an 一色 applies (§8.1.4); the ways of winning
    (全求人 ...) are big patterns but never stand without a shape of their own.
    """
    shape_ok = r.standard_258 or r.all_triplets or (r.one_suit and r.standard) or r.all_jiang or r.all_feng
    if not shape_ok:
        return ()
    found: list[str] = []
    groups: set[str] = set()
    for p in PATTERNS.values():
        if p.big and p.applies(r) and p.group not in groups:
            found.append(p.id)
            if p.group:
                groups.add(p.group)
    if not found:
        return ("pi_hu",) if PATTERNS["pi_hu"].applies(r) else ()
    return tuple(found)


def big_count(patterns: tuple[str, ...]) -> int:
    return sum(PATTERNS[p].big for p in patterns)


def base_of(patterns: tuple[str, ...]) -> int:
    """§9 base: 屁胡 1, a big win 10 × 2^(n−1); 0 for no win."""
    if not patterns:
        return 0
    n = big_count(patterns)
    return 1 if n == 0 else 10 * 2 ** (n - 1)


@dataclass(frozen=True)
class WinAnalysis:
    """The verdict on a winning hand: the best reading's patterns, or why it is no win."""

    reason: str | None  # None | "not_open" | "holds_hongzhong" | "not_a_win" | "two_laizi_small_win"
    patterns: tuple[str, ...] = ()
    soft: bool = False
    base: int = 0

    @property
    def valid(self) -> bool:
        return self.reason is None

    @property
    def small(self) -> bool:
        return self.patterns == ("pi_hu",)
