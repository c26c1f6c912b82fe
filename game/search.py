"""The ``hard`` player: determinized search over the worlds this seat cannot tell apart.

    action = choose_hard(view, seed, budget_ms=200)      # what choose(view, "hard", seed) calls
    costs = deal_in_costs(view, sample_worlds(view, 32, seed))        # what each discard risks, per tile
    points = evaluate(view, candidates, sample_worlds(view, 16, seed))   # what game.review uses

A *world* is one way the unseen tiles (the other concealed hands, their 暗杠, the wall) could lie, drawn from
what the view leaves unseen; no 红中 goes into another hand, since every level gangs it at once. Other players
keep good tiles, so a hand is not a uniform draw: each is the best (``game.shanten.distance``) of its size out
of a few more random tiles, one more per two discards or melds it has made — the distance this gives matches
that of ``normal`` players' real hands at each stage (P(ready) within a few points). A hand that would 胡 on
its own last discard or on a tile it let pass since is drawn again: it would have won.

``hard`` plays ``normal``'s judgement less the danger it cannot see: on its turn, with an open seat at the
table (only open hands may 胡), every discard is tried in each world on the real ``Hand`` machine
(``Hand.from_view``, ``Hand.discard_win``): whoever would 胡 on it by §5 order, and what the seat would pay by
the table's own settlement (caps, 金顶, 承包, the discarder's ×2). A discard's worth loses ``_DEAL_IN_SHARE`` of
its mean payment — the part not dealing in saves, since the winner may still win off another seat; the share
was chosen by measurement (bench/RESULTS.md). The best ``_FINALISTS`` discards so ranked are then judged again
one draw later (``game.ai.drawn_worths``: over every unseen tile, the best the hand can do with it), which sees
which hand keeps more ways forward than ``normal``'s one-step chance does; a gang stays on ``normal``'s scale.
On a claim it takes a 碰 or 吃 that brings its hand closer to a win (``game.shanten.distance`` after its best
discard; ``normal``'s order among several): only an open hand can 胡, and ``normal``, weighing the doubled
losses of an open hand, passes on 38% of such claims, nearly all with its hand still closed; taking them, the
search wins more often and its deal-in guard keeps the extra risk down (bench/RESULTS.md, issue 43's third
round). Other claims (冲杠, or a claim no closer) and gangs are ``normal``'s: rolled out with the fast policy
below, they measured −10 and −18 points a hand (wide intervals), and even in the true world only +6 ± 26.
It sees only the view: the same view, seed and sample count always give the same action; with no sample count
it takes worlds until the time budget (or ``_RISK_WORLDS``) runs out.

The review (``game.review``) rolls candidates out to the end of the hand in the same sampled worlds (a paired
comparison), every seat following the fast policy: it reads the hand's live counts (no SeatView), measures a
discard against two plans only (屁胡 and the nearest richer plan, ``game.shanten.missing_of``), gangs 红中 and
a second 赖子 at once, takes every 暗杠/蓄杠, and claims when that brings the hand closer (or keeps the distance
of a hand still closed, which must open to win). A rollout from mid-hand costs a few ms.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Final

from game.actions import Action
from game.ai import drawn_worths, forced_action, ranked, unseen_counts, weighed_discards
from game.analysis import analyse_win
from game.melds import Meld
from game.shanten import PI_HU, distance, missing_of, natural_counts, plans
from game.table import Hand
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile, from_counts, to_counts
from game.view import SeatView

DEFAULT_BUDGET_MS: Final = 200.0
_MIN_WORLDS: Final = 2  # worlds every search takes, whatever the budget
# Of a deal-in's payment, the part that not dealing in saves: the winner may still win off someone else.
_DEAL_IN_SHARE: Final = 0.35
_RISK_WORLDS: Final = 48  # the most a discard needs: a 5% chance of dealing in shows in two or three
_RISK_BUDGET: Final = 0.5  # the share of the time budget the deal-in worlds may take
_FINALISTS: Final = 4  # the best discards by normal's worth less their danger, looked at one draw later
_TRIES: Final = 4  # draws of an opponent's hand, at most, for one that no passed tile completes
_Target = tuple[str, int | None]  # a plan (name, suit) a rollout player steers for


@dataclass(frozen=True)
class World:
    """The hidden part of the table in one sample: every concealed hand, others' 暗杠 kinds, the wall."""

    hands: tuple[tuple[Tile, ...], ...]
    hidden_gangs: tuple[Tile, ...]
    wall: tuple[Tile, ...]


def sample_worlds(view: SeatView, n: int, seed: int) -> list[World]:
    """``n`` worlds consistent with ``view``, the same ones for the same view and seed."""
    rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}:{view.hand}:{view.drawn}:{view.rivers}")
    return [_sample(view, rng) for _ in range(n)]


def _sample(view: SeatView, rng: random.Random) -> World:
    assert view.seat is not None
    pool = unseen_counts(view)
    gangs: list[Tile] = []
    for s, ms in enumerate(view.melds):
        for m in ms:
            if s != view.seat and m.tiles == (HIDDEN,):
                kind = rng.choice([t for t in range(HONGZHONG) if pool[t] >= 4 and t != view.laizi])
                pool[kind] -= 4
                gangs.append(kind)
    plain = [t for t in range(HONGZHONG) for _ in range(pool[t])]
    rng.shuffle(plain)
    kinds = iter(gangs)
    hands: list[tuple[Tile, ...]] = []
    for s in range(4):
        if s == view.seat:
            hands.append((*view.hand, *([view.drawn] if view.drawn is not None else [])))
            continue
        size = view.hand_sizes[s]
        melds = [Meld("an_gang", (next(kinds),)) if m.tiles == (HIDDEN,) else m for m in view.melds[s]]
        passed = _passed(view, s)
        # A player keeps the best of what it drew: its hand is the best ``size`` of a few more random tiles ...
        drawn = min(len(plain), size + (len(view.rivers[s]) + len(melds)) // 2)
        for attempt in range(_TRIES):
            if attempt:
                rng.shuffle(plain)
            kept, dropped = _keep(plain[:drawn], size, view.laizi, melds)
            # ... and one that a tile of ``passed`` completes would have won already: draw it again.
            if not any(
                analyse_win(kept, t, melds, view.laizi, "discard", view.rules.hard_factor).valid for t in passed
            ):
                break
        hands.append(kept)
        plain = dropped + plain[drawn:]
    wall = plain + [HONGZHONG] * pool[HONGZHONG]
    rng.shuffle(wall)
    if len(wall) < view.wall_remaining:
        raise ValueError("the view shows more tiles than there are")
    # A hand-made view (tests) may leave tiles unaccounted for: they stay out of play.
    return World(tuple(hands), tuple(gangs), tuple(wall[: view.wall_remaining]))


def _passed(view: SeatView, s: int) -> list[Tile]:
    """On this seat's turn, tiles that cannot complete open seat ``s``'s hand: its own last discard (holding it,
    it had no 胡) and the last of each river since (it could have claimed each and did not 胡)."""
    if view.phase != "turn" or view.turn != view.seat or not any(m.opens for m in view.melds[s]):
        return []
    assert view.seat is not None
    since = ((s + i) % 4 for i in range((view.seat - s) % 4))
    return [view.rivers[x][-1] for x in since if view.rivers[x] and view.rivers[x][-1] not in (HONGZHONG, view.laizi)]


def _keep(tiles: list[Tile], size: int, laizi: Tile, melds: Sequence[Meld]) -> tuple[tuple[Tile, ...], list[Tile]]:
    """(``size`` of ``tiles``, the rest): drop tiles, in their order, that leave the hand no further from a win."""
    counts = to_counts(tiles)
    sets = 4 - len(melds)
    nearest = plans(counts, laizi, melds)
    target = min(p.missing for p in nearest)
    # Dropping a tile never brings a plan closer: only the plans at ``target`` can stay there.
    kept_plans = [(p.name, p.suit) for p in nearest if p.missing == target]
    dropped: list[Tile] = []
    for t in tiles:
        if len(tiles) - len(dropped) == size:
            break
        counts[t] -= 1
        nat, wild = natural_counts(counts, laizi)
        still = [p for p in kept_plans if missing_of(nat, wild, sets, *p) <= target]
        if still:
            kept_plans = still
            dropped.append(t)
        else:
            counts[t] += 1
    for t in reversed(tiles):  # every tile left is of use: drop the last ones
        if len(tiles) - len(dropped) == size:
            break
        if counts[t]:
            counts[t] -= 1
            dropped.append(t)
    return tuple(from_counts(counts)), dropped


def rollout(view: SeatView, world: World, action: Action) -> int:
    """The seat's points when it plays ``action`` in ``world`` and every seat then plays the fast policy."""
    assert view.seat is not None
    hand = Hand.from_view(view, world.hands, world.hidden_gangs, world.wall)
    hand.apply(action)
    while not hand.finished:
        hand.apply(fast_action(hand, hand.waiting_on()[0]))
    return hand.result.payments[view.seat] if hand.result is not None else 0


def deal_in_costs(view: SeatView, worlds: Iterable[World]) -> dict[Tile, float]:
    """Per tile this seat may discard now, the mean over ``worlds`` of what it pays a seat that 胡 on it."""
    assert view.seat is not None
    tiles, order = _deal_in_setup(view)
    paid = dict.fromkeys(tiles, 0.0)
    n = 0
    for w in worlds:
        hand = Hand.from_view(view, w.hands, w.hidden_gangs, w.wall)
        for t in tiles:
            st = next((st for s in order if (st := hand.discard_win(s, view.seat, t)) is not None), None)
            paid[t] -= st.payments[view.seat] if st is not None else 0
        n += 1
    return {t: p / max(1, n) for t, p in paid.items()}


def _deal_in_setup(view: SeatView) -> tuple[list[Tile], list[int]]:
    """The tiles this seat may discard, and the open seats that could 胡 on them in §5 order (one winner)."""
    assert view.seat is not None
    tiles = sorted({a.tile for a in view.legal if a.kind == "discard" and a.tile is not None})
    first = view.dealer if view.rules.multi_win_order == "dealer" else (view.seat + 1) % 4
    seats = ((first + k) % 4 for k in range(4))
    return tiles, [s for s in seats if s != view.seat and any(m.opens for m in view.melds[s])]


def evaluate(view: SeatView, candidates: Sequence[Action], worlds: Sequence[World]) -> list[list[int]]:
    """Per candidate, the seat's points in each world (paired: the same worlds for every candidate)."""
    return [[rollout(view, w, a) for w in worlds] for a in candidates]


def paired_gain(better: Sequence[int], base: Sequence[int]) -> tuple[float, float]:
    """Mean of ``better − base`` over the worlds, and its standard error."""
    diffs = [b - a for a, b in zip(base, better, strict=True)]
    mean = sum(diffs) / len(diffs)
    if len(diffs) < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean, math.sqrt(var / len(diffs))


def discard_values(view: SeatView, seed: int = 0, samples: int = _RISK_WORLDS) -> dict[Tile, float]:
    """Per tile this seat may weigh discarding now (a throw ``game.ai`` holds back is left out), the search's
    value of the discard on one scale: its worth one draw later (``drawn_worths``) less the deal-in share of
    its mean payment over ``samples`` worlds — how ``choose_hard`` judges its finalists, for every discard.
    The learned player's network is taught these (scripts/make_teacher_data.py)."""
    tiles = weighed_discards(view)
    costs = deal_in_costs(view, sample_worlds(view, samples, seed)) if all(_deal_in_setup(view)) else {}
    drawn = drawn_worths(view, tiles)
    return {t: drawn[t] - _DEAL_IN_SHARE * costs.get(t, 0.0) for t in tiles}


def choose_hard(
    view: SeatView, seed: int = 0, budget_ms: float = DEFAULT_BUDGET_MS, samples: int | None = None
) -> Action:
    """The ``hard`` action: ``samples`` worlds if given (deterministic), else as many as ``budget_ms`` allows."""
    forced = forced_action(view)
    if forced is not None:
        return forced
    start = time.perf_counter()
    best_first = ranked(view, "normal", seed)
    if view.phase == "claim":
        return _closer_claim(view, [a for _, a in best_first]) or best_first[0][1]
    if view.phase != "turn":
        return best_first[0][1]
    costs: dict[Tile, float] = {}
    if all(_deal_in_setup(view)):  # someone open could 胡 on a discard
        rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}:{view.hand}:{view.drawn}:{view.rivers}")
        worlds = _worlds(view, rng, start, budget_ms * _RISK_BUDGET, samples, _RISK_WORLDS)
        costs = deal_in_costs(view, worlds)

    def risk(a: Action) -> float:
        return _DEAL_IN_SHARE * costs.get(a.tile, 0.0) if a.kind == "discard" and a.tile is not None else 0.0

    guarded = sorted(((w - risk(a), a) for w, a in best_first), key=lambda r: r[0], reverse=True)
    finalists = [a for _, a in guarded if a.kind == "discard" and a.tile is not None][:_FINALISTS]
    if len(finalists) < 2:
        return guarded[0][1]
    drawn = drawn_worths(view, [a.tile for a in finalists if a.tile is not None])
    score, pick = max(((drawn[a.tile] - risk(a), a) for a in finalists if a.tile is not None), key=lambda r: r[0])
    top_worth, top = guarded[0]
    return top if top.kind != "discard" and top_worth > score else pick  # a gang, on normal's own scale


def _closer_claim(view: SeatView, in_order: Sequence[Action]) -> Action | None:
    """The first 碰 or 吃 of ``in_order`` that leaves this seat nearer a win than passing does (after its best
    discard); None when none does."""
    assert view.seat is not None
    counts = to_counts(list(view.hand))
    now = distance(counts, view.laizi, view.melds[view.seat])  # passing: the hand as it is
    return next((a for a in in_order if a.kind in ("peng", "chi") and claim_distance(view, a, counts) < now), None)


def claim_distance(view: SeatView, claim: Action, counts: Sequence[int]) -> int:
    """``game.shanten.distance`` of this seat's hand (``counts``, its concealed tiles) after the 碰 or 吃
    ``claim`` and its best discard (never a 红中 or 赖子, which are not thrown to shape a hand)."""
    assert view.seat is not None and claim.tile is not None and view.claimable is not None
    c = list(counts)
    if claim.kind == "peng":
        c[claim.tile] -= 2
        meld = Meld("peng", (claim.tile,), view.turn)
    else:
        run = (claim.tile, claim.tile + 1, claim.tile + 2)
        for t in run:
            if t != view.claimable:
                c[t] -= 1
        meld = Meld("chi", run, view.turn, claimed=view.claimable)
    melds = (*view.melds[view.seat], meld)
    best = 99
    for t in range(len(c)):
        if c[t] and t not in (HONGZHONG, view.laizi):
            c[t] -= 1
            best = min(best, distance(c, view.laizi, melds))
            c[t] += 1
    return best


def _worlds(
    view: SeatView, rng: random.Random, start: float, budget_ms: float, samples: int | None, most: int | None = None
) -> Iterator[World]:
    """Worlds one at a time: ``samples`` of them if given, else while the next one (at the mean cost of
    those so far, the caller's work on them included) still ends within ``budget_ms`` of ``start``."""
    n = 0
    while n < _MIN_WORLDS or (
        n < samples if samples is not None else n < (most or n + 1) and _time_for_one_more(start, n, budget_ms)
    ):
        yield _sample(view, rng)
        n += 1


def _time_for_one_more(start: float, n: int, budget_ms: float) -> bool:
    """Whether another world, at the mean cost of those so far, still ends within the budget."""
    spent = time.perf_counter() - start
    return spent * (n + 1) / n < budget_ms / 1000


# -- the fast rollout policy --------------------------------------------------------------------------------


def fast_action(hand: Hand, seat: int) -> Action:
    """The rollout player's action for ``seat`` (see the module docstring)."""
    legal = hand.legal_actions(seat)
    first: dict[str, Action] = {}
    for a in legal:
        first.setdefault(a.kind, a)
    if "hu" in first:
        return first["hu"]
    if hand.phase == "turn":
        return _fast_turn(hand, seat, legal, first)
    if hand.phase == "claim":
        return _fast_claim(hand, seat, legal)
    return first["pass"]


def _fast_turn(hand: Hand, seat: int, legal: list[Action], first: dict[str, Action]) -> Action:
    counts = list(hand.concealed_counts(seat))
    for kind in ("hongzhong_gang", "an_gang", "xu_gang"):
        if kind in first:
            return first[kind]
    if "laizi_gang" in first and counts[hand.laizi] >= 2:
        return first["laizi_gang"]
    melds = hand.seat_melds(seat)
    targets = _targets(counts, hand.laizi, melds)
    discards = [a for a in legal if a.kind == "discard"]
    return min(discards, key=lambda a: _discard_key(counts, a.tile, hand.laizi, len(melds), targets))


def _fast_claim(hand: Hand, seat: int, legal: list[Action]) -> Action:
    counts = list(hand.concealed_counts(seat))
    melds = hand.seat_melds(seat)
    laizi = hand.laizi
    tile = hand.claim_tile
    assert tile is not None
    nat, wild = natural_counts(counts, laizi)
    now = _measure(nat, wild, 4 - len(melds), _targets(counts, laizi, melds))
    closed = not any(m.opens for m in melds)
    for a in sorted(legal, key=lambda a: a.kind != "peng"):  # a peng before a chi
        if a.kind not in ("peng", "chi"):
            continue
        after, meld = _claimed(counts, a, tile)
        new_melds = [*melds, meld]
        targets = _targets(after, laizi, new_melds)
        # default: a claim that leaves only 红中 and 赖子 to discard is never worth it
        best = min((_discard_key(after, t, laizi, len(new_melds), targets)[0] for t in _held(after, laizi)), default=99)
        if best < now or (closed and best <= now):
            return a
    return next(a for a in legal if a.kind == "pass")


def _claimed(counts: list[int], claim: Action, tile: Tile) -> tuple[list[int], Meld]:
    """Concealed counts and the new meld after a 碰 or 吃 of ``tile``."""
    assert claim.tile is not None
    after = list(counts)
    if claim.kind == "peng":
        after[tile] -= 2
        return after, Meld("peng", (tile,))
    run = (claim.tile, claim.tile + 1, claim.tile + 2)
    for x in run:
        if x != tile:
            after[x] -= 1
    return after, Meld("chi", run, claimed=tile)


def _held(counts: Sequence[int], laizi: Tile) -> list[Tile]:
    return [t for t in range(NUM_KINDS) if counts[t] and t != HONGZHONG and t != laizi]


def _targets(counts: Sequence[int], laizi: Tile, melds: Sequence[Meld]) -> list[_Target]:
    """屁胡, and the richest plan at most one tile further (the policy steers for it as if one closer)."""
    ps = plans(counts, laizi, melds)
    pi_hu = next(p for p in ps if p.name == PI_HU)
    rich = [p for p in ps if p.base > 1 and p.missing <= pi_hu.missing + 1]
    out: list[_Target] = [(PI_HU, None)]
    if rich:
        p = min(rich, key=lambda p: (p.missing, -p.base))
        out.append((p.name, p.suit))
    return out


def _measure(nat: list[int], wild: int, sets: int, targets: Sequence[_Target]) -> int:
    best = missing_of(nat, wild, sets, *targets[0])
    for name, suit in targets[1:]:
        best = min(best, missing_of(nat, wild, sets, name, suit) - 1)
    return best


def _discard_key(
    counts: list[int], tile: Tile | None, laizi: Tile, n_melds: int, targets: Sequence[_Target]
) -> tuple[int, int]:
    """(distance after discarding ``tile``, its ties to the rest of the hand): the smallest goes."""
    assert tile is not None
    counts[tile] -= 1
    nat, wild = natural_counts(counts, laizi)
    dist = _measure(nat, wild, 4 - n_melds, targets)
    counts[tile] += 1
    if tile >= 27:
        return dist, counts[tile]
    low = tile - tile % 9
    return dist, sum(counts[x] for x in range(max(low, tile - 2), min(low + 9, tile + 3)))
