"""A slow, obviously-correct reference for game.analysis: try every 赖子 assignment, every decomposition.

Each 赖子 in the hand is given each tile it could stand for (any kind but 红中, itself included, fifth
copies allowed); each resulting concrete hand is decomposed exhaustively (every pair, then triplet or
sequence at the lowest tile). The assignment is hard only when every 赖子 stands for itself.

To keep it affordable the candidate tiles for a wildcard are cut down, without losing any reading: a
wildcard either shares a set or the pair with a natural tile (so it lies within two ranks of one, in
its suit, or equals a natural honor) or sits in a set or pair of wildcards only, which can be rebuilt
as a triplet or pair of 2m, 2p, 2s or 1z without losing any fact (same suit, 将 and 风 kept, triplets
kept). ``full=True`` tries every tile instead; a test checks both agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import combinations_with_replacement

from game.melds import Meld, WinHow
from game.patterns import PATTERNS, Reading, WinAnalysis, base_of, patterns_of
from game.tiles import HONGZHONG, NUM_KINDS, Tile, is_feng, is_honor, is_jiang

_ORDER = {pid: i for i, pid in enumerate(PATTERNS)}
_REPRESENTATIVES = (1, 10, 19, 27)  # 2m 2p 2s 1z


@lru_cache(maxsize=200_000)
def _sets_only(c: tuple[int, ...]) -> bool:
    i = next((k for k in range(NUM_KINDS) if c[k]), -1)
    if i < 0:
        return True
    if c[i] >= 3:
        rest = list(c)
        rest[i] -= 3
        if _sets_only(tuple(rest)):
            return True
    if not is_honor(i) and i % 9 <= 6 and c[i + 1] and c[i + 2]:
        rest = list(c)
        for k in (i, i + 1, i + 2):
            rest[k] -= 1
        if _sets_only(tuple(rest)):
            return True
    return False


@lru_cache(maxsize=200_000)
def _shapes(c: tuple[int, ...]) -> tuple[bool, bool, bool]:
    """(standard, standard with a 2-5-8 pair, all triplets) of concrete concealed counts."""
    standard = standard_258 = triplets = False
    for k in range(NUM_KINDS):
        if c[k] >= 2:
            rest = list(c)
            rest[k] -= 2
            if _sets_only(tuple(rest)):
                standard = True
                standard_258 = standard_258 or is_jiang(k)
            triplets = triplets or all(n % 3 == 0 for n in rest)
    return standard, standard_258, triplets


@lru_cache(maxsize=4096)
def _patterns(reading: Reading) -> tuple[str, ...]:
    return patterns_of(reading)  # the same few readings come back in every hand


def _candidates(natural: Sequence[Tile], laizi: Tile, full: bool) -> list[Tile]:
    if full:
        return [t for t in range(NUM_KINDS) if t != HONGZHONG]
    near = {laizi, *_REPRESENTATIVES}
    for t in natural:
        if is_honor(t):
            near.add(t)
        else:
            near.update(u for u in range(t - 2, t + 3) if u // 9 == t // 9)
    near.discard(HONGZHONG)
    return sorted(near)


def oracle_analyse(
    concealed: Sequence[Tile],
    win_tile: Tile,
    melds: Sequence[Meld],
    laizi: Tile,
    how: WinHow,
    hard_factor: Fraction = Fraction(2),
    *,
    check_open: bool = True,
    ways: bool = True,
    full: bool = False,
) -> WinAnalysis:
    hand = [*concealed, win_tile]
    if check_open and not any(m.opens for m in melds):
        return WinAnalysis("not_open")
    if HONGZHONG in hand:
        return WinAnalysis("holds_hongzhong")
    natural = [t for t in hand if t != laizi]
    n_laizi = len(hand) - len(natural)
    meld_tiles = [t for m in melds for t in m.all_tiles()]
    no_chi = all(m.kind != "chi" for m in melds)
    four_open = ways and len(melds) == 4 and len(concealed) == 1 and all(m.opens for m in melds)
    # What the natural and meld tiles decide once; each assignment adds its own tiles to it.
    fixed = natural + meld_tiles
    fixed_suits = {t // 9 for t in fixed}
    fixed_jiang, fixed_feng = all(is_jiang(t) for t in fixed), all(is_feng(t) for t in fixed)
    natural_counts = [0] * NUM_KINDS
    for t in natural:
        natural_counts[t] += 1
    best_key: tuple[Fraction, bool, int, tuple[int, ...]] | None = None
    best = WinAnalysis("not_a_win")
    for assigned in combinations_with_replacement(_candidates(natural, laizi, full), n_laizi):
        counts = list(natural_counts)
        for t in assigned:
            counts[t] += 1
        standard, standard_258, triplets = _shapes(tuple(counts))
        suits = fixed_suits.union(t // 9 for t in assigned)
        hard = all(t == laizi for t in assigned)
        found = _patterns(
            Reading(
                hard=hard,
                standard=standard,
                standard_258=standard_258,
                all_triplets=triplets and no_chi,
                one_suit=len(suits) == 1 and 3 not in suits,
                all_jiang=fixed_jiang and all(is_jiang(t) for t in assigned),
                all_feng=fixed_feng and all(is_feng(t) for t in assigned),
                how=how if ways else "discard",
                four_open_melds=four_open,
            )
        )
        if not found:
            continue
        base = base_of(found)
        key = (base * (hard_factor if hard else 1), hard, len(found), tuple(-_ORDER[p] for p in found))
        if best_key is None or key > best_key:
            best_key, best = key, WinAnalysis(None, found, not hard, base)
    if best.small and n_laizi >= 2:
        return WinAnalysis("two_laizi_small_win", best.patterns, best.soft, best.base)
    return best


def oracle_waits(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> list[Tile]:
    held = [*concealed, *(t for m in melds for t in m.all_tiles())]
    return [
        t
        for t in range(NUM_KINDS)
        if t != HONGZHONG
        and held.count(t) < 4
        and oracle_analyse(concealed, t, melds, laizi, "discard", check_open=False, ways=False).valid
    ]
