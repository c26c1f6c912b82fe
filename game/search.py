"""The ``hard`` player: determinized search over the worlds this seat cannot tell apart.

    action = choose_hard(view, seed, budget_ms=200)      # what choose(view, "hard", seed) calls
    points = evaluate(view, candidates, sample_worlds(view, 16, seed))   # also what game.review uses

A *world* is one way the unseen tiles (the other concealed hands, their 暗杠, the wall) could lie, drawn at random
from what the view leaves unseen; no 红中 goes into another hand, since every level gangs it at once. Each candidate
is played in the same worlds (a paired comparison) and the hand is played out to its end by the real ``Hand``
machine (``Hand.from_view``), every seat following the fast policy below; the seat's points are the hand's own
settlement, so caps, 金顶, 承包 and the discarder's ×2 count exactly as at the table. The candidates are ``normal``'s
pick and the other options (below); ``hard`` leaves ``normal``'s pick only for a candidate ahead of it by more
than the noise (``_CONFIDENCE`` paired standard errors), so a few worlds cannot talk it into a blunder; it stops
sampling early once every other candidate clearly trails. It sees only the view: the same view, seed and sample
count always give the same action.

It searches the choices where the stakes are a multiplier: claims (碰, 吃, 冲杠 or pass) and turns that offer a gang,
weighing each of them against ``normal``'s pick; which tile to discard is left to ``normal``: searching those too,
at 200 ms a decision (about ten worlds, a paired standard error near 100 points), measured −9 points per hand
against 3 × ``normal`` (1,000 hands, bench/RESULTS.md): the fast policy's rollouts mislead more than they inform
there.

Speed is this module's one dense part. The rollout policy reads the hand's live counts (no SeatView), measures
a discard against two plans only (屁胡 and the nearest richer plan, ``game.shanten.missing_of``), gangs 红中
and a second 赖子 at once, takes every 暗杠/蓄杠, and claims when that brings the hand closer (or keeps the
distance of a hand still closed, which must open to win). A rollout from mid-hand costs a few ms.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from game.ai import forced_action, ranked, unseen_counts
from game.melds import Meld
from game.shanten import PI_HU, missing_of, natural_counts, plans
from game.table import Action, Hand
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile
from game.view import SeatView

DEFAULT_BUDGET_MS: Final = 200.0
_CANDIDATES: Final = 4  # each costs a rollout per world
_CONFIDENCE: Final = 1.5  # paired standard errors a candidate must lead normal's pick by
_MIN_WORLDS: Final = 2  # a standard error needs two worlds, whatever the budget
# Stop early once every other candidate trails normal's pick by this many standard errors (after a few worlds).
_SETTLE: Final = 1.0
_SETTLE_WORLDS: Final = 6
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
    hands: list[tuple[Tile, ...]] = []
    for s in range(4):
        if s == view.seat:
            hands.append((*view.hand, *([view.drawn] if view.drawn is not None else [])))
        else:
            hands.append(tuple(plain[: view.hand_sizes[s]]))
            del plain[: view.hand_sizes[s]]
    wall = plain + [HONGZHONG] * pool[HONGZHONG]
    rng.shuffle(wall)
    if len(wall) < view.wall_remaining:
        raise ValueError("the view shows more tiles than there are")
    # A hand-made view (tests) may leave tiles unaccounted for: they stay out of play.
    return World(tuple(hands), tuple(gangs), tuple(wall[: view.wall_remaining]))


def rollout(view: SeatView, world: World, action: Action) -> int:
    """The seat's points when it plays ``action`` in ``world`` and every seat then plays the fast policy."""
    assert view.seat is not None
    hand = Hand.from_view(view, world.hands, world.hidden_gangs, world.wall)
    hand.apply(action)
    while not hand.finished:
        hand.apply(fast_action(hand, hand.waiting_on()[0]))
    return hand.result.payments[view.seat] if hand.result is not None else 0


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


def choose_hard(
    view: SeatView, seed: int = 0, budget_ms: float = DEFAULT_BUDGET_MS, samples: int | None = None
) -> Action:
    """The ``hard`` action: ``samples`` worlds if given (deterministic), else as many as ``budget_ms`` allows."""
    forced = forced_action(view)
    if forced is not None:
        return forced
    best_first = ranked(view, "normal", seed)
    if all(a.kind == "discard" for a in view.legal):
        return best_first[0][1]  # a choice of discards only: normal's judgement (see the module docstring)
    top = best_first[0][1]
    # Which tile to discard stays normal's call; the search weighs gangs and claims against it.
    candidates = [top, *(a for _, a in best_first if a.kind != "discard" and a != top)][:_CANDIDATES]
    start = time.perf_counter()
    rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}:{view.hand}:{view.drawn}:{view.rivers}")
    points: list[list[int]] = [[] for _ in candidates]
    n = 0
    while n < _MIN_WORLDS or (n < samples if samples is not None else _time_for_one_more(start, n, budget_ms)):
        world = _sample(view, rng)
        for i, a in enumerate(candidates):
            points[i].append(rollout(view, world, a))
        n += 1
        if n >= _SETTLE_WORLDS and _settled(points):
            break
    return candidates[_pick(points)]


def _time_for_one_more(start: float, n: int, budget_ms: float) -> bool:
    """Whether another world, at the mean cost of those so far, still ends within the budget."""
    spent = time.perf_counter() - start
    return spent * (n + 1) / n < budget_ms / 1000


def _settled(points: list[list[int]]) -> bool:
    """True when no candidate could still beat normal's pick: more worlds would not change the choice."""
    return all(gain + _SETTLE * se < 0 for gain, se in (paired_gain(p, points[0]) for p in points[1:]))


def _pick(points: list[list[int]]) -> int:
    """Index of the candidate to play: the best mean, if it beats candidate 0 (normal's pick) beyond noise."""
    best = max(range(len(points)), key=lambda i: sum(points[i]))
    gain, se = paired_gain(points[best], points[0])
    return best if gain > _CONFIDENCE * se else 0


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
