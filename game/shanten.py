"""How far a hand is from winning, with 赖子 as wildcards: the automatic player's sense of shape.

A hand is measured against each *plan* it could still win by (RULES.md §8): 屁胡 (standard shape with a
2-5-8 pair, at most one 赖子), 碰碰胡, 清一色 (and 清一色 碰碰胡), 将一色 and 风一色. For each plan,
``missing`` is how many more useful tiles the hand needs: 0 = a complete hand, 1 = ready (听牌) for a hand
one tile short. A 赖子 fills any gap; 红中 is never usable (it must leave by 红中杠).

    >>> from game.tiles import parse_tiles, to_counts, parse_tile
    >>> hand = to_counts(parse_tiles("123m456m789m23p55s"))
    >>> best_plan(hand, laizi=parse_tile("1z"), melds=()).missing
    1
    >>> hand = to_counts(parse_tiles("111m333m555m77m99m"))
    >>> [(p.name, p.missing) for p in plans(hand, parse_tile("1z"), ()) if p.missing <= 2]
    [('pi_hu', 2), ('peng_peng_hu', 1), ('qing_yi_se', 1), ('qing_yi_se+peng_peng_hu', 1)]

The measure is exact for the shape (it counts the tiles of the closest complete hand the current tiles
are part of), ignoring only whether the tiles it needs are still live (a fifth copy, or copies already
discarded): ``useful_tiles`` lists the kinds that help, and the player weighs them by what it has not seen.
It is table-driven: each suit's counts are reduced once to a small table (tiles usable with at most
p pairs and b sets) and kept in a cache, so re-measuring a hand after one tile changes costs a few
table look-ups.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from game.melds import Meld
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile, is_feng, is_jiang

# A group table maps (pairs p ≤ 1, sets b ≤ 4) → the most tiles usable by at most p pair-blocks and b
# set-blocks, flattened as index p * 5 + b. A block may be incomplete (a 搭子 or a lone tile): what it lacks
# is exactly what the hand still needs, so "missing" = tiles of a complete hand − tiles usable.
_SETS: Final = 5
_Table = tuple[int, ...]
_EMPTY: Final[_Table] = (0,) * (2 * _SETS)
_JIANG_MASK: Final = 0b010010010  # ranks 2, 5, 8
_ALL_MASK: Final = 0b111111111

PI_HU: Final = "pi_hu"
PENG_PENG_HU: Final = "peng_peng_hu"
QING_YI_SE: Final = "qing_yi_se"
QING_PENG: Final = "qing_yi_se+peng_peng_hu"
JIANG_YI_SE: Final = "jiang_yi_se"
FENG_YI_SE: Final = "feng_yi_se"
# §9 base of each plan: 屁胡 1, one big pattern 10, two (or 风一色) 20.
PLAN_BASE: Final[dict[str, int]] = {
    PI_HU: 1,
    PENG_PENG_HU: 10,
    QING_YI_SE: 10,
    QING_PENG: 20,
    JIANG_YI_SE: 10,
    FENG_YI_SE: 20,
}


@dataclass(frozen=True)
class Plan:
    name: str  # one of the PLAN_BASE keys
    base: int  # the §9 base the plan would win
    missing: int  # useful tiles still needed; 0 = complete
    suit: int | None = None  # 清一色 plans: the suit (0 m, 1 p, 2 s)


def _options(c: tuple[int, ...], pair_mask: int, seq: bool) -> list[tuple[tuple[int, ...], int, int, int]]:
    """What the lowest rank of ``c`` may do: (ranks taken, tiles used, pairs made, blocks made) each."""
    n = len(c)
    head = c[0]
    options: list[tuple[tuple[int, ...], int, int, int]] = [((0,), 0, 0, 0), ((0,), 1, 0, 1)]  # skip, lone tile
    if pair_mask & 1:
        options.append(((0,), 1, 1, 0))
        if head >= 2:
            options.append(((0, 0), 2, 1, 0))
    if head >= 2:
        options.append(((0, 0), 2, 0, 1))
    if head >= 3:
        options.append(((0, 0, 0), 3, 0, 1))
    if seq:
        if n > 1 and c[1]:
            options.append(((0, 1), 2, 0, 1))
            if n > 2 and c[2]:
                options.append(((0, 1, 2), 3, 0, 1))
        if n > 2 and c[2]:
            options.append(((0, 2), 2, 0, 1))
    return options


# Bounded so a long-running bot levels off: 2^16 tables of about 500 bytes (~30 MB), full after a few hundred
# hands; 2^18 grew the bot by ~5 MB per 100 hands for thousands of hands (bench/memory.py, bench/RESULTS.md).
@lru_cache(maxsize=1 << 16)
def _group(c: tuple[int, ...], pair_mask: int, seq: bool) -> _Table:
    """The table of one suit (or one honor) with counts ``c``; bit j of pair_mask: rank j may be the pair."""
    start = 0
    while start < len(c) and c[start] == 0:
        start += 1
    if start == len(c):
        return _EMPTY
    if start:
        return _group(c[start:], pair_mask >> start, seq)
    options = _options(c, pair_mask, seq)
    best = [0] * (2 * _SETS)
    for taken, used, dp, db in options:
        rest = list(c)
        for j in taken:
            rest[j] -= 1
        sub = _group(tuple(rest), pair_mask, seq)
        for p in range(dp, 2):
            for b in range(db, _SETS):
                v = used + sub[(p - dp) * _SETS + b - db]
                if v > best[p * _SETS + b]:
                    best[p * _SETS + b] = v
    return tuple(best)


@lru_cache(maxsize=1 << 16)
def _combine(a: _Table, b: _Table) -> _Table:
    out = [0] * (2 * _SETS)
    for p in range(2):
        for k in range(_SETS):
            best = 0
            for p1 in range(p + 1):
                row_a, row_b = p1 * _SETS, (p - p1) * _SETS
                for k1 in range(k + 1):
                    v = a[row_a + k1] + b[row_b + k - k1]
                    if v > best:
                        best = v
            out[p * _SETS + k] = best
    return tuple(out)


def _honors(c: tuple[int, ...], pair_ok: bool) -> _Table:
    table = _EMPTY
    for n in sorted(x for x in c if x):
        table = _combine(table, _group((n,), 1 if pair_ok else 0, False))
    return table


def _group_table(counts: Sequence[int], group: int, plan: str) -> _Table:
    """The table of group ``group`` (0-2 the suits, 3 the honors) of ``counts`` for a table-measured plan."""
    if group == 3:
        return _honors(tuple(counts[27:34]), plan != PI_HU)
    seq = plan in (PI_HU, QING_YI_SE)
    return _group(tuple(counts[group * 9 : group * 9 + 9]), _JIANG_MASK if plan == PI_HU else _ALL_MASK, seq)


def _whole(m: _Table, p: _Table, s: _Table, z: _Table) -> _Table:
    return _combine(_combine(m, p), _combine(s, z))


def _whole_with(tables: tuple[_Table, ...], halves: tuple[_Table, ...], group: int, new: _Table) -> _Table:
    """``_whole`` of the four group ``tables`` with group ``group``'s replaced by ``new`` (a drawn tile's): only
    its half is combined again; the other, ``halves[0]`` (groups 0-1) or ``halves[1]`` (2-3), is as it was."""
    pair = [tables[group & 2], tables[group | 1]]
    pair[group & 1] = new
    half = _combine(*pair)
    return _combine(half, halves[1]) if group < 2 else _combine(halves[0], half)


def _usable(counts: Sequence[int], plan: str, sets: int, suit: int | None) -> int:
    """Most tiles of ``counts`` (no 赖子, no 红中) that fit a complete hand of the plan."""
    if plan == JIANG_YI_SE:
        return sum(counts[t] for t in range(27) if is_jiang(t))
    if plan == FENG_YI_SE:
        return sum(counts[27:33])
    if suit is not None:
        return _group_table(counts, suit, plan)[_SETS + sets]
    return _whole(*(_group_table(counts, g, plan) for g in range(4)))[_SETS + sets]


def _meld_tiles(melds: Iterable[Meld]) -> list[Tile]:
    return [t for m in melds for t in m.tiles if t != HIDDEN]


def open_plans(melds: Sequence[Meld]) -> list[tuple[str, int | None]]:
    """The plans the exposed melds still allow, as (name, suit)."""
    tiles = _meld_tiles(melds)
    no_chi = all(m.kind != "chi" for m in melds)
    out: list[tuple[str, int | None]] = [(PI_HU, None)]
    if no_chi:
        out.append((PENG_PENG_HU, None))
    for suit in range(3):
        if all(t // 9 == suit for t in tiles):
            out.append((QING_YI_SE, suit))
            if no_chi:
                out.append((QING_PENG, suit))
    if no_chi and all(is_jiang(t) for t in tiles):
        out.append((JIANG_YI_SE, None))
    if no_chi and all(is_feng(t) for t in tiles):
        out.append((FENG_YI_SE, None))
    return out


def natural_counts(counts: Sequence[int], laizi: Tile) -> tuple[list[int], int]:
    """(counts without 赖子 and 红中, number of 赖子)."""
    nat = list(counts)
    wild = nat[laizi]
    nat[laizi] = 0
    nat[HONGZHONG] = 0
    return nat, wild


def missing_of(nat: Sequence[int], wild: int, sets: int, plan: str, suit: int | None) -> int:
    """Tiles still needed for one plan; ``nat`` holds no 赖子/红中, ``sets`` = 4 − melds."""
    return _missing(_usable(nat, plan, sets, suit), wild, sets, plan)


def _missing(usable: int, wild: int, sets: int, plan: str) -> int:
    need = 3 * sets + 2
    # A 屁胡 may hold one 赖子 at most (§8.1.5): more only count once (the rest must go by 赖子杠).
    wilds = min(wild, 1) if plan == PI_HU else wild
    return max(0, need - min(need, usable) - wilds)


def plans(counts: Sequence[int], laizi: Tile, melds: Sequence[Meld]) -> list[Plan]:
    """Every plan the hand may still win by, with its distance; ``counts`` = concealed tiles (34 counts)."""
    nat, wild = natural_counts(counts, laizi)
    sets = 4 - len(melds)
    return [
        Plan(name, PLAN_BASE[name], missing_of(nat, wild, sets, name, suit), suit) for name, suit in open_plans(melds)
    ]


def best_plan(counts: Sequence[int], laizi: Tile, melds: Sequence[Meld]) -> Plan:
    """The nearest plan (ties: the richer one)."""
    return min(plans(counts, laizi, melds), key=lambda p: (p.missing, -p.base))


def distance(counts: Sequence[int], laizi: Tile, melds: Sequence[Meld]) -> int:
    """The shanten-style distance: tiles still needed by the nearest plan."""
    return best_plan(counts, laizi, melds).missing


def useful_tiles(counts: Sequence[int], laizi: Tile, melds: Sequence[Meld], plan: Plan) -> list[Tile]:
    """Tile kinds whose draw brings ``plan`` one tile closer (the 赖子 always does unless capped). A drawn tile
    changes one group: the other groups' tables are read once."""
    nat, wild = natural_counts(counts, laizi)
    sets = 4 - len(melds)
    name = plan.name
    whole = plan.suit is None and name not in (JIANG_YI_SE, FENG_YI_SE)  # measured on all four groups' tables
    tables = tuple(_group_table(nat, g, name) for g in range(4)) if whole else ()
    halves = (_combine(*tables[:2]), _combine(*tables[2:])) if whole else ()
    out: list[Tile] = []
    for t in range(NUM_KINDS):
        if t == HONGZHONG:
            continue
        if t == laizi:
            if name != PI_HU or wild == 0:
                out.append(t)
            continue
        if nat[t] >= 4 or (plan.suit is not None and t // 9 != plan.suit):
            continue
        nat[t] += 1
        if not whole:
            usable = _usable(nat, name, sets, plan.suit)
        else:
            group = min(t // 9, 3)
            usable = _whole_with(tables, halves, group, _group_table(nat, group, name))[_SETS + sets]
        nat[t] -= 1
        if _missing(usable, wild, sets, name) < plan.missing:
            out.append(t)
    return out
