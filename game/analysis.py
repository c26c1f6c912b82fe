"""Win shapes with 赖子 wildcards, the best reading of a winning hand, and waits (RULES.md §8).

Use::

    analyse_win(concealed, win_tile, melds, laizi, how)  # -> WinAnalysis (reason, patterns, soft, base)
    waits(concealed, melds, laizi)                        # -> tiles that would complete the hand (听牌提示)
    is_ready(concealed, melds, laizi)                     # -> bool
    is_win(counts, n_wild)                                # -> bool: the bare shape check (items 2-4)
    may_win(counts, laizi)                                # -> bool: False only when no reading has a shape

>>> from game.melds import Meld
>>> from game.tiles import parse_tile, parse_tiles
>>> chi = Meld("chi", tuple(parse_tiles("345m")), 0)
>>> analyse_win(parse_tiles("234678p345s5m"), parse_tile("5m"), [chi], parse_tile("9s"), "discard")
WinAnalysis(reason=None, patterns=('pi_hu',), soft=False, base=1)
>>> [tile_name(t) for t in waits(parse_tiles("234678p345s5m"), [chi], parse_tile("9s"))]  # 9s: the 赖子
['5m', '9s']

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
it) and make free triplets — W=3 alone is a triplet, W=2 alone a pair (of 2m, say). Each record is
packed into one int with its fields in separate bit ranges (see ``_record``), so a hand's four records
are simply added and its facts read from the sum: a warm check is four dictionary look-ups and a few
integer operations. The tables fill lazily (no start-up cost) and stay small: only the suit count
patterns that actually occur are stored (a few thousand after thousands of hands; capped).
``waits`` re-reads only the group the added tile falls in.

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

from game.melds import WIN_HOWS, Meld, WinHow
from game.patterns import Reading, WinAnalysis, base_of, patterns_of
from game.tiles import COPIES, HONGZHONG, NUM_KINDS, Tile, is_feng, is_jiang, tile_name

_JIANG_RANKS: Final = (1, 4, 7)  # 2, 5 and 8 as rank indices
_HARD_FACTOR: Final = Fraction(2)  # the default; waits only ask whether some reading wins
_WILD_CANDIDATES: Final = tuple(t for t in range(NUM_KINDS) if t != HONGZHONG)
_IS_JIANG: Final = tuple(is_jiang(t) for t in range(NUM_KINDS))
_IS_FENG: Final = tuple(is_feng(t) for t in range(NUM_KINDS))

# A group's record, packed into one int so that a hand's four records are simply summed:
#   bits 0-5   wildcards to make the group sets only
#   bits 6-11  wildcards to make it triplets only
#   bits 12-14 1 if holding the hand's pair here is cheap, for sets (any pair) ...
#   bits 15-17 ... for sets with a 2-5-8 pair ...
#   bits 18-20 ... for triplets
#   bits 21-24 the group's own bit (m 1, p 2, s 4, honors 8) if it holds tiles
#   bits 25-27 1 if it holds a tile that is no 将
#   bit 28     always set, so no record is 0 (falsy); four of them sum below bit 31
#   bits 31-   how many tiles the group holds
# "Cheap" means the pair costs one wildcard less than a set would (delta -1); otherwise it costs two
# more (a pair of wildcards). These are the only two deltas: with n tiles, the sets and pair costs differ
# by 2 mod 3, and a pair plus one wildcard is a triplet, so the pair costs at least one less.
_SETS_MASK: Final = 63
_TRIPS_AT: Final = 6
_CHEAP_PAIR: Final = 7 << 12
_CHEAP_258: Final = 7 << 15
_CHEAP_TRIP_PAIR: Final = 7 << 18
_GROUPS_AT: Final = 21
_NON_JIANG: Final = 7 << 25
_RECORD: Final = 1 << 28
_TILES_AT: Final = 31
_SUITS_MASK: Final = 7  # the m, p, s group bits

# The shape facts of one reading as bits (an int hashes and compares fastest), then the two flags that
# complete a Reading's key within one way of winning.
_STANDARD, _STANDARD_258, _ALL_TRIPLETS, _ONE_SUIT, _ALL_JIANG, _ALL_FENG = (1, 2, 4, 8, 16, 32)
_HARD, _FOUR_OPEN = (64, 128)
_Verdict = tuple[tuple[str, ...], int, bool]  # patterns, base, hard


class AnalysisError(ValueError):
    """A hand that cannot exist: a wrong tile count, an unknown tile, five of a kind."""


# Entries per table (~1.5 MB), cleared when full, so a long-lived bot levels off (bench/memory.py); the lookups that
# pay are the repeated ones within one decision, and a smaller table costs nothing measurable (bench/analysis.py).
_CACHE_LIMIT: Final = 1 << 13
_sets_cache: dict[tuple[int, ...], int] = {}
# The records of m, p, s (the same counts make a different group bit) and of the honors 1z-6z.
_record_caches: Final[tuple[dict[tuple[int, ...], int], ...]] = ({}, {}, {}, {})
_m_records, _p_records, _s_records, _z_records = _record_caches
_patterns_cache: dict[WinHow, dict[int, tuple[tuple[str, ...], int]]] = {how: {} for how in WIN_HOWS}


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
    if len(_sets_cache) >= _CACHE_LIMIT:
        _sets_cache.clear()
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


def _triplets_cost(n: int) -> int:
    """Wildcards that turn n copies of one kind into triplets."""
    return -n % 3


def _record(c: tuple[int, ...], group: int) -> int:
    """The packed record of one group's counts (nine for a suit, six for the honors 1z-6z), cached."""
    trips = sum(_triplets_cost(n) for n in c)
    # The pair is cheap on a kind with one copy (one wildcard joins it) or whose rest after a pair needs
    # fewer wildcards than all of it did.
    cheap_trip_pair = any(n == 1 or (n >= 2 and _triplets_cost(n - 2) < _triplets_cost(n)) for n in c)
    if group < 3:
        sets = _sets_cost(c)
        cheap_pair = _pair_cost(c, range(9)) < sets
        cheap_258 = _pair_cost(c, _JIANG_RANKS) < sets
        non_jiang = any(n for r, n in enumerate(c) if r not in _JIANG_RANKS)
    else:  # honors make no sequences, so sets are triplets; no honor is 将 or makes a 2-5-8 pair
        sets, cheap_pair, cheap_258, non_jiang = trips, cheap_trip_pair, False, any(c)
    rec = (
        _RECORD
        | sets
        | trips << _TRIPS_AT
        | (1 << 12 if cheap_pair else 0)
        | (1 << 15 if cheap_258 else 0)
        | (1 << 18 if cheap_trip_pair else 0)
        | ((1 << group) << _GROUPS_AT if any(c) else 0)
        | (1 << 25 if non_jiang else 0)
        | sum(c) << _TILES_AT
    )
    cache = _record_caches[group]
    if len(cache) >= _CACHE_LIMIT:
        cache.clear()  # a bound for a long-lived process; real play stays far below it
    cache[c] = rec
    return rec


def _records(c: tuple[int, ...]) -> list[int]:
    """The m, p, s and honor records of a 34-count tuple (红中 excluded)."""
    return [
        _m_records.get(c[0:9]) or _record(c[0:9], 0),
        _p_records.get(c[9:18]) or _record(c[9:18], 1),
        _s_records.get(c[18:27]) or _record(c[18:27], 2),
        _z_records.get(c[27:33]) or _record(c[27:33], 3),
    ]


@dataclass(frozen=True, slots=True)
class _MeldFacts:
    """What a hand's melds contribute to every reading: their colours, and whether any is a chi."""

    groups: int  # bit 0-3: the melds hold m, p, s, honor tiles
    all_jiang: bool
    all_feng: bool
    has_chi: bool

    @classmethod
    def of(cls, tiles: Sequence[Tile], has_chi: bool) -> _MeldFacts:
        """From one tile per meld kind (``Meld.tiles``) and whether a chi is among them."""
        groups = 0
        all_jiang = all_feng = True
        for t in tiles:
            groups |= 1 << (t // 9)
            all_jiang = all_jiang and _IS_JIANG[t]
            all_feng = all_feng and _IS_FENG[t]
        return cls(groups, all_jiang, all_feng, has_chi)


_NO_MELDS: Final = _MeldFacts.of((), False)


def _melds_facts(melds: Sequence[Meld]) -> _MeldFacts:
    if not melds:
        return _NO_MELDS
    return _MeldFacts.of([t for m in melds for t in m.tiles], any(m.kind == "chi" for m in melds))


def _facts(total: int, n_wild: int, mf: _MeldFacts) -> int:
    """The shape fact bits of a hand whose natural groups' records sum to ``total``, plus ``n_wild``
    wildcards; 0 when no fact holds. The pair goes to a group where it is cheap if there is one."""
    sets = total & _SETS_MASK
    standard = sets + (-1 if total & _CHEAP_PAIR else 2) <= n_wild
    triplets = not mf.has_chi and (total >> _TRIPS_AT & _SETS_MASK) + (-1 if total & _CHEAP_TRIP_PAIR else 2) <= n_wild
    groups = total >> _GROUPS_AT & 15
    all_jiang = mf.all_jiang and not total & _NON_JIANG
    all_feng = mf.all_feng and not groups & _SUITS_MASK
    if not (standard or triplets or all_jiang or all_feng):
        return 0
    return (
        (_STANDARD if standard else 0)
        | (_STANDARD_258 if sets + (-1 if total & _CHEAP_258 else 2) <= n_wild else 0)
        | (_ALL_TRIPLETS if triplets else 0)
        | (_ONE_SUIT if groups | mf.groups in (1, 2, 4) else 0)
        | (_ALL_JIANG if all_jiang else 0)
        | (_ALL_FENG if all_feng else 0)
    )


def _patterns(key: int, how: WinHow) -> tuple[tuple[str, ...], int]:
    """patterns_of (and the base) of the reading with fact bits ``key`` won ``how``; cached, as few
    distinct readings exist."""
    cache = _patterns_cache[how]
    found = cache.get(key)
    if found is None:
        pats = patterns_of(
            Reading(
                hard=bool(key & _HARD),
                standard=bool(key & _STANDARD),
                standard_258=bool(key & _STANDARD_258),
                all_triplets=bool(key & _ALL_TRIPLETS),
                one_suit=bool(key & _ONE_SUIT),
                all_jiang=bool(key & _ALL_JIANG),
                all_feng=bool(key & _ALL_FENG),
                how=how,
                four_open_melds=bool(key & _FOUR_OPEN),
            )
        )
        found = cache[key] = (pats, base_of(pats))
    return found


def _best(
    readings: Sequence[tuple[bool, int, int]],
    mf: _MeldFacts,
    how: WinHow,
    four_open_melds: bool,
    hard_factor: Fraction,
) -> _Verdict | None:
    """The best of the (hard, summed group records, wildcards) readings (§8.4); None when none wins."""
    factor = hard_factor.numerator if hard_factor.denominator == 1 else hard_factor  # int maths when it can
    best: _Verdict | None = None
    best_key: tuple[Fraction | int, bool, int] | None = None
    for hard, total, n_wild in readings:
        facts = _facts(total, n_wild, mf)
        if not facts:
            continue
        pats, base = _patterns(facts | (_HARD if hard else 0) | (_FOUR_OPEN if four_open_melds else 0), how)
        if not pats:
            continue
        key = (base * factor if hard else base, hard, len(pats))
        if best_key is None or key > best_key:
            best_key, best = key, (pats, base, hard)
    return best


def _checked_counts(
    tiles: Sequence[Tile], melds: Sequence[Meld], laizi: Tile, size: int
) -> tuple[list[int], list[int]]:
    """Counts of the concealed ``tiles``, and of every tile the hand holds (melds included); raises
    AnalysisError unless the hand could exist."""
    if len(tiles) != size:
        raise AnalysisError(f"{len(melds)} melds need {size} concealed tiles, got {len(tiles)}")
    if laizi not in _WILD_CANDIDATES:
        raise AnalysisError(f"no 赖子 kind {laizi!r}")
    counts = [0] * NUM_KINDS
    try:
        for t in tiles:
            counts[t] += 1
    except (IndexError, TypeError):
        raise AnalysisError(f"not a tile kind in {list(tiles)!r}") from None
    if tiles and min(tiles) < 0:
        raise AnalysisError(f"not a tile kind in {list(tiles)!r}")
    held = counts.copy()
    for m in melds:
        if m.kind == "chi":
            for t in m.tiles:
                held[t] += 1
        else:
            held[m.tiles[0]] += m.size
    if max(held) > COPIES:
        over = [tile_name(t) for t in range(NUM_KINDS) if held[t] > COPIES]
        raise AnalysisError(f"more than four of {', '.join(over)}")
    return counts, held


def _two_laizi_small(patterns: tuple[str, ...], n_laizi: int) -> bool:
    """§8.1 item 5: a 屁胡 allows at most one 赖子 tile in the hand, whatever it stands for."""
    return patterns == ("pi_hu",) and n_laizi >= 2


def _readings(counts: Sequence[int], laizi: Tile) -> list[tuple[bool, int, int]]:
    """The hard reading, and the soft one when the hand holds 赖子."""
    hard = tuple(counts)
    out = [(True, sum(_records(hard)), 0)]
    n_laizi = hard[laizi]
    if n_laizi:
        soft = list(hard)
        soft[laizi] = 0
        out.append((False, sum(_records(tuple(soft))), n_laizi))
    return out


def analyse_win(
    concealed: Sequence[Tile],
    win_tile: Tile,
    melds: Sequence[Meld],
    laizi: Tile,
    how: WinHow,
    hard_factor: Fraction = _HARD_FACTOR,
) -> WinAnalysis:
    """The verdict on winning with ``win_tile``: §8.1 items 1-5 and the best reading (§8.4).

    ``concealed`` is the hand before the winning tile (13 - 3 × melds tiles). Reasons, first that applies:
    ``not_open``, ``holds_hongzhong``, ``not_a_win``, ``two_laizi_small_win`` (which keeps its patterns).
    """
    counts, _ = _checked_counts([*concealed, win_tile], melds, laizi, 14 - 3 * len(melds))
    if not any(m.opens for m in melds):
        return WinAnalysis("not_open")
    if counts[HONGZHONG]:
        return WinAnalysis("holds_hongzhong")
    four_open = len(melds) == 4 and len(concealed) == 1 and all(m.opens for m in melds)
    best = _best(_readings(counts, laizi), _melds_facts(melds), how, four_open, hard_factor)
    if best is None:
        return WinAnalysis("not_a_win")
    pats, base, hard = best
    return WinAnalysis("two_laizi_small_win" if _two_laizi_small(pats, counts[laizi]) else None, pats, not hard, base)


def may_win(counts: Sequence[int], laizi: Tile) -> bool:
    """A quick necessary condition for a win on the 14 − 3 × melds concealed ``counts`` (34 kinds, the winning
    tile included): some reading has a winning shape, the melds aside (with no melds every colour and 碰碰胡
    fact is at least as easy). False means ``analyse_win`` would say ``not_a_win``; the engine asks this first
    of every open hand on every discard, and most are not wins."""
    return any(_facts(total, n_wild, _NO_MELDS) for _, total, n_wild in _readings(counts, laizi))


def is_win(counts: Sequence[int], n_wild: int, n_melds_chi: int = 0, meld_tiles: Sequence[Tile] = ()) -> bool:
    """Whether natural concealed ``counts`` (34 kinds) plus ``n_wild`` wildcards make a winning shape.

    The bare shape check of §8.1 items 2-4 for this one split (pass the 赖子 in ``counts`` and
    ``n_wild=0`` for the hard reading; as wildcards they may still stand for themselves):
    ``n_melds_chi`` (any chi among the melds) rules out 碰碰胡; ``meld_tiles`` (the melds' ``Meld.tiles``,
    one kind per peng or gang) give their colours for the 一色 patterns.
    """
    c = tuple(counts)
    if len(c) != NUM_KINDS or c[HONGZHONG]:
        return False
    mf = _MeldFacts.of(meld_tiles, n_melds_chi > 0) if meld_tiles or n_melds_chi else _NO_MELDS
    total = sum(_records(c))
    facts = _facts(total, n_wild, mf)
    if not facts or ((total >> _TILES_AT) + n_wild) % 3 != 2:
        return False
    return bool(_patterns(facts, "self_draw")[0])


def _iter_waits(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> Iterator[Tile]:
    """The waits in kind order. Adding a tile changes one group's record in each reading, so the other
    three are looked up once per hand."""
    counts, held = _checked_counts(concealed, melds, laizi, 13 - 3 * len(melds))
    if counts[HONGZHONG]:
        return
    mf = _melds_facts(melds)
    hard = tuple(counts)
    n_laizi = hard[laizi]
    soft_list = list(hard)
    soft_list[laizi] = 0
    soft = tuple(soft_list)
    hard_groups, soft_groups = _records(hard), _records(soft)
    hard_total, soft_total = sum(hard_groups), sum(soft_groups)
    for t in _WILD_CANDIDATES:
        if held[t] >= COPIES:
            continue  # all four are already in this hand: no fifth to draw
        g = t // 9
        lo = 9 * g
        key = list(hard[lo : lo + 9] if g < 3 else hard[27:33])
        key[t - lo] += 1
        group = tuple(key)
        new = _record_caches[g].get(group) or _record(group, g)
        readings = [(True, hard_total - hard_groups[g] + new, 0)]
        if t == laizi:
            readings.append((False, soft_total, n_laizi + 1))
        elif n_laizi:
            if g == laizi // 9:
                key[laizi - lo] = 0
                group = tuple(key)
                new = _record_caches[g].get(group) or _record(group, g)
            readings.append((False, soft_total - soft_groups[g] + new, n_laizi))
        best = _best(readings, mf, "discard", False, _HARD_FACTOR)
        if best is not None and not _two_laizi_small(best[0], n_laizi + (t == laizi)):
            yield t


def waits(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> list[Tile]:
    """Tiles that would complete the hand under §8.1 items 2-5 (开口, the minimum and the ways of
    winning ignored; §8.5). Never 红中, nor a tile whose four copies this hand already holds."""
    return list(_iter_waits(concealed, melds, laizi))


def is_ready(concealed: Sequence[Tile], melds: Sequence[Meld], laizi: Tile) -> bool:
    """听牌 (§8.5): some tile would complete the hand."""
    return next(_iter_waits(concealed, melds, laizi), None) is not None
