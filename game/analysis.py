"""Win shapes with 赖子 wildcards, the best reading of a winning hand, and waits (RULES.md §8).

Use::

    analyse_win(concealed, win_tile, melds, laizi, how)  # -> WinAnalysis (reason, patterns, soft, base)
    waits(concealed, melds, laizi)                        # -> tiles that would complete the hand (听牌提示)
    is_ready(concealed, melds, laizi)                     # -> bool
    is_win(counts, n_wild)                                # -> bool: the bare shape check (items 3-4)

Readings. Every 赖子 in the concealed hand (winning tile included) may stand for any tile but 红中, or
for itself. Two readings cover every assignment: the HARD one counts the 赖子 as the natural tiles they
are; the SOFT one takes them out of the counts and uses them as W free wildcards (a wildcard standing for
itself is soft there, but then the hard reading finds the same shape and wins the tie, §8.4). Each
reading becomes the ``Reading`` facts of ``game.patterns`` and ``patterns_of`` names the patterns.
Colour facts (一色, 乱将, 乱风) look at natural tiles only — concealed non-wild tiles and meld tiles —
because a wildcard can always take the colour it needs.

Method (table-driven). A hand splits into the three suits and the honors; a set or a pair never
crosses groups. For each suit, keyed by its nine counts, a memoised record holds the fewest wildcards
that turn it into: sets only; sets + any pair; sets + a 2-5-8 pair; triplets only; triplets + any pair.
Honors have no sequences, so their record is computed tile by tile. A hand's cost for a shape is the sum
of its groups' "sets" costs plus the cheapest group's extra cost for holding the pair. The shape exists
iff that cost is at most W: the leftover wildcards are then a multiple of three (the tile count fixes
it) and make free triplets — W=3 alone is a triplet, W=2 alone a pair (of 2m, say). The suit records
are built lazily and cached, so a warm process answers with four dictionary look-ups per reading.

The suit search behind a record tries, for the lowest natural tile, a triplet (of as many natural
copies as there are, up to three) or the sequence starting there (natural tiles where present,
wildcards in the gaps; a sequence that would run past 9 starts at 7). Using a wildcard where a natural
tile would fit never saves anything — swap the two — so this search is exhaustive.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from game.melds import Meld, WinHow
from game.patterns import Reading, WinAnalysis, base_of, patterns_of
from game.tiles import COPIES, HONGZHONG, NUM_KINDS, Tile, is_feng, is_jiang, tile_name

_NEVER: Final = 99  # the cost of a shape a group can never make
# Per count n of one tile kind: wildcards to make it triplets only, and the change when it holds the pair.
_TRIPLET_COST: Final = (0, 2, 1, 0, 2)
_TRIPLET_PAIR_DELTA: Final = (2, -1, -1, 2, -1)
_JIANG_RANKS: Final = (1, 4, 7)  # 2, 5 and 8 as rank indices
_NON_JIANG: Final = tuple(t for t in range(NUM_KINDS) if not is_jiang(t))
_NON_FENG: Final = tuple(t for t in range(NUM_KINDS) if not is_feng(t))
_WILD_CANDIDATES: Final = tuple(t for t in range(NUM_KINDS) if t != HONGZHONG)

# A group's record: (sets, pair delta, 2-5-8 pair delta, triplets, triplet-pair delta); deltas are
# what holding the hand's pair adds to the sets / triplets cost.
_Record = tuple[int, int, int, int, int]


class AnalysisError(ValueError):
    """A hand that cannot exist: a wrong tile count, an unknown tile, five of a kind."""


_sets_cache: dict[tuple[int, ...], int] = {}
_suit_cache: dict[tuple[int, ...], _Record] = {}
_honor_cache: dict[tuple[int, ...], _Record] = {}


def _sets_cost(c: tuple[int, ...]) -> int:
    """Fewest wildcards that turn the nine counts of one suit into sets only."""
    found = _sets_cache.get(c)
    if found is not None:
        return found
    i = next((r for r in range(9) if c[r]), -1)
    if i < 0:
        return 0
    rest = list(c)
    take = min(rest[i], 3)
    rest[i] -= take
    best = 3 - take + _sets_cost(tuple(rest))
    rest[i] += take
    gaps = 0
    for r in range(min(i, 6), min(i, 6) + 3):
        if rest[r]:
            rest[r] -= 1
        else:
            gaps += 1
    best = min(best, gaps + _sets_cost(tuple(rest)))
    _sets_cache[c] = best
    return best


def _pair_cost(c: tuple[int, ...], ranks: Sequence[int]) -> int:
    """Fewest wildcards for sets plus one pair on one of ``ranks`` (a pair of two wildcards always works)."""
    best = _sets_cost(c) + 2
    for r in ranks:
        if c[r]:
            take = min(c[r], 2)
            rest = list(c)
            rest[r] -= take
            best = min(best, 2 - take + _sets_cost(tuple(rest)))
    return best


def _suit_record(c: tuple[int, ...]) -> _Record:
    rec = _suit_cache.get(c)
    if rec is None:
        sets = _sets_cost(c)
        triplets = sum(_TRIPLET_COST[n] for n in c)
        rec = (
            sets,
            _pair_cost(c, range(9)) - sets,
            _pair_cost(c, _JIANG_RANKS) - sets,
            triplets,
            min(_TRIPLET_PAIR_DELTA[n] for n in (0, *c)),
        )
        _suit_cache[c] = rec
    return rec


def _honor_record(c: tuple[int, ...]) -> _Record:
    """Honors (1z-6z; 红中 never reaches here) make triplets only, and never a 2-5-8 pair."""
    rec = _honor_cache.get(c)
    if rec is None:
        triplets = sum(_TRIPLET_COST[n] for n in c)
        pair = min(_TRIPLET_PAIR_DELTA[n] for n in (0, *c))
        rec = (triplets, pair, _NEVER, triplets, pair)
        _honor_cache[c] = rec
    return rec


@dataclass(frozen=True)
class _Costs:
    """Wildcards a count vector needs for each standard shape."""

    standard: int
    standard_258: int
    triplets: int


def _costs(counts: Sequence[int]) -> _Costs:
    m = _suit_record(tuple(counts[0:9]))
    p = _suit_record(tuple(counts[9:18]))
    s = _suit_record(tuple(counts[18:27]))
    z = _honor_record(tuple(counts[27:33]))
    sets = m[0] + p[0] + s[0] + z[0]
    triplets = m[3] + p[3] + s[3] + z[3]
    return _Costs(
        sets + min(m[1], p[1], s[1], z[1]),
        sets + min(m[2], p[2], s[2]),
        triplets + min(m[4], p[4], s[4], z[4]),
    )


@dataclass(frozen=True)
class _MeldFacts:
    """What a hand's melds contribute to every reading: their colours, and whether any is a chi."""

    groups: frozenset[int]  # 0-3: m p s z
    all_jiang: bool
    all_feng: bool
    has_chi: bool

    @classmethod
    def of(cls, melds: Sequence[Meld]) -> _MeldFacts:
        tiles = [t for m in melds for t in m.tiles]
        return cls(
            frozenset(t // 9 for t in tiles),
            all(is_jiang(t) for t in tiles),
            all(is_feng(t) for t in tiles),
            any(m.kind == "chi" for m in melds),
        )


def _patterns(
    counts: Sequence[int], n_wild: int, hard: bool, mf: _MeldFacts, how: WinHow, four_open_melds: bool
) -> tuple[str, ...]:
    """The patterns of one reading: natural ``counts`` (no 红中) plus ``n_wild`` wildcards."""
    cost = _costs(counts)
    triplets = not mf.has_chi and cost.triplets <= n_wild
    all_jiang = mf.all_jiang and not any(counts[t] for t in _NON_JIANG)
    all_feng = mf.all_feng and not any(counts[t] for t in _NON_FENG)
    if cost.standard > n_wild and not (triplets or all_jiang or all_feng):
        return ()  # no fact holds: no reading of these tiles is a win
    groups = mf.groups.union(g for g in range(4) if any(counts[9 * g : 9 * g + 9]))
    return patterns_of(
        Reading(
            hard=hard,
            standard=cost.standard <= n_wild,
            standard_258=cost.standard_258 <= n_wild,
            all_triplets=triplets,
            one_suit=len(groups) == 1 and 3 not in groups,
            all_jiang=all_jiang,
            all_feng=all_feng,
            how=how,
            four_open_melds=four_open_melds,
        )
    )


def _best(
    counts: list[int], laizi: Tile, mf: _MeldFacts, how: WinHow, four_open_melds: bool, hard_factor: Fraction
) -> WinAnalysis:
    """The best reading (§8.4) of a hand of 14 + gangs tiles holding no 红中, with item 5 applied."""
    n_laizi = counts[laizi]
    best: tuple[Fraction | int, bool, int] | None = None
    verdict = WinAnalysis("not_a_win")
    readings: list[tuple[bool, list[int], int]] = [(True, counts, 0)]
    if n_laizi:
        soft = counts.copy()
        soft[laizi] = 0
        readings.append((False, soft, n_laizi))
    for hard, natural, n_wild in readings:
        found = _patterns(natural, n_wild, hard, mf, how, four_open_melds)
        if not found:
            continue
        base = base_of(found)
        key = (base * (hard_factor if hard else 1), hard, len(found))
        if best is None or key > best:
            best = key
            verdict = WinAnalysis(None, found, not hard, base)
    if verdict.small and n_laizi >= 2:
        return WinAnalysis("two_laizi_small_win", verdict.patterns, verdict.soft, verdict.base)
    return verdict


def _checked_counts(tiles: Sequence[Tile], melds: Sequence[Meld], laizi: Tile, size: int) -> list[int]:
    """Counts of the concealed ``tiles``; raises AnalysisError unless the hand could exist."""
    if len(tiles) != size:
        raise AnalysisError(f"{len(melds)} melds need {size} concealed tiles, got {len(tiles)}")
    if not (isinstance(laizi, int) and 0 <= laizi < HONGZHONG):
        raise AnalysisError(f"no 赖子 kind {laizi!r}")
    counts = [0] * NUM_KINDS
    held = [0] * NUM_KINDS
    for t in tiles:
        if not (isinstance(t, int) and 0 <= t < NUM_KINDS):
            raise AnalysisError(f"no tile kind {t!r}")
        counts[t] += 1
        held[t] += 1
    for m in melds:
        for t in m.all_tiles():
            held[t] += 1
    over = [tile_name(t) for t in range(NUM_KINDS) if held[t] > COPIES]
    if over:
        raise AnalysisError(f"more than four of {', '.join(over)}")
    return counts


def analyse_win(
    concealed: Sequence[Tile],
    win_tile: Tile,
    melds: Sequence[Meld],
    laizi: Tile,
    how: WinHow,
    hard_factor: Fraction = Fraction(2),
) -> WinAnalysis:
    """The verdict on winning with ``win_tile``: §8.1 items 1-5 and the best reading (§8.4).

    ``concealed`` is the hand before the winning tile (13 - 3 × melds tiles). Reasons, first that applies:
    ``not_open``, ``holds_hongzhong``, ``not_a_win``, ``two_laizi_small_win`` (which keeps its patterns).
    """
    counts = _checked_counts([*concealed, win_tile], melds, laizi, 14 - 3 * len(melds))
    if not any(m.opens for m in melds):
        return WinAnalysis("not_open")
    if counts[HONGZHONG]:
        return WinAnalysis("holds_hongzhong")
    four_open = len(melds) == 4 and len(concealed) == 1 and all(m.opens for m in melds)
    return _best(counts, laizi, _MeldFacts.of(melds), how, four_open, hard_factor)


def is_win(counts: Sequence[int], n_wild: int, n_melds_chi: int = 0, meld_tiles: Sequence[Tile] = ()) -> bool:
    """Whether natural concealed ``counts`` (34 kinds) plus ``n_wild`` wildcards make a winning shape.

    The bare shape check of §8.1 items 2-4, for this one reading (pass the 赖子 in ``counts`` and
    ``n_wild=0`` for the hard one): ``n_melds_chi`` says whether the melds allow 碰碰胡, ``meld_tiles``
    (one tile per meld kind, as ``Meld.tiles``) give their colours for the 一色 patterns.
    """
    if len(counts) != NUM_KINDS or (sum(counts) + n_wild) % 3 != 2 or counts[HONGZHONG]:
        return False
    mf = _MeldFacts(
        frozenset(t // 9 for t in meld_tiles),
        all(is_jiang(t) for t in meld_tiles),
        all(is_feng(t) for t in meld_tiles),
        n_melds_chi > 0,
    )
    return bool(_patterns(counts, n_wild, n_wild == 0, mf, "self_draw", False))


def _iter_waits(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> Iterator[Tile]:
    counts = _checked_counts(concealed, melds, laizi, 13 - 3 * len(melds))
    if counts[HONGZHONG]:
        return
    held = counts.copy()
    for m in melds:
        for t in m.all_tiles():
            held[t] += 1
    mf = _MeldFacts.of(melds)
    for t in _WILD_CANDIDATES:
        if held[t] >= COPIES:
            continue  # all four are already in this hand: no fifth to draw
        counts[t] += 1
        verdict = _best(counts, laizi, mf, "discard", False, Fraction(2))
        counts[t] -= 1
        if verdict.valid:
            yield t


def waits(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> list[Tile]:
    """Tiles that would complete the hand under §8.1 items 2-5 (开口, the minimum and the ways of
    winning ignored; §8.5). Never 红中, nor a tile whose four copies this hand already holds."""
    return list(_iter_waits(concealed, melds, laizi))


def is_ready(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> bool:
    """听牌 (§8.5): some tile would complete the hand."""
    return next(_iter_waits(concealed, melds, laizi), None) is not None
