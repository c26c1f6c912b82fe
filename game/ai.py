"""The automatic player: empty seats (机器人) and players who time out (托管).

    action = choose(hand.view(seat), level="normal", seed=table_seed)   # always one of view.legal

Levels (``LEVELS``): ``easy`` plays to the shape only; ``normal`` also counts the tiles it can see, weighs
what each gang or opening multiplies in its own losses, keeps a 屁胡 above the minimum payment, minds 抢杠
before a 蓄杠, and plays defence: no feeding an open 一色 hand (its third meld from your discard makes you
pay for all, 承包) and, late in the wall, no fresh pair tiles to an all-triplets hand. Both always 胡 when
the engine offers it (it offers only legal wins worth the minimum).

How it judges. Every option (a discard, a gang, a claim, passing) leaves a concealed hand one tile short
of complete; its worth is the best, over the plans of ``game.shanten``, of

    payout(plan) × P  −  exposure(own multiplier) × (1 − P),   P = the chance the plan completes in time,

where payout follows §9 (the plan's base, the multipliers of this seat and of each loser, a 屁胡 below
``min_payment`` counting for little), P comes from the tiles still missing and how many useful tiles are
unseen, and exposure is what a larger own multiplier costs when someone else wins. A closed hand cannot
win (§8.1.1), so it counts for less until it opens. A gang's replacement draw is one more draw (and, for a
ready hand, a chance of 杠上开花); a 屁胡 counts one 赖子 only, so a second one is worth more ganged (×4).
``normal`` subtracts from each discard the danger of feeding an opponent whose exposed melds show a big
hand (one suit, all triplets, all 将 or 风 tiles). Throws (RULES.md §4): a 红中 is ganged rather than thrown
while a gang is allowed; a 赖子 is thrown (丢赖子, ×2) only by ``normal`` in defence, far from a win with an
open big hand at the table (``_Seat.held_back``).
The seed only breaks exact ties, so the same view and seed always give the same action.

The payout model reads the table's rules from the view (opening per meld or once, cap, minimum payment).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Final

from game.actions import Action
from game.melds import Meld
from game.rules import Rules
from game.scoring import SeatMelds, seat_multiplier
from game.shanten import (
    FENG_YI_SE,
    JIANG_YI_SE,
    PENG_PENG_HU,
    PI_HU,
    QING_PENG,
    QING_YI_SE,
    Plan,
    distance,
    plans,
    useful_tiles,
)
from game.table import HAIDI_TILES
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile, is_feng, is_jiang, to_counts
from game.view import SeatView

LEVELS: Final = ("easy", "normal")  # the levels this module plays; game.automatic adds the search's

# Useful-tile share assumed for the later steps of a plan (index: tiles still missing), before counting.
_STAGE_SHARE: Final = (1.0, 0.08, 0.2, 0.3, 0.38, 0.42)
# Big plans draw on fewer kinds of tile than a plain hand.
_PLAN_SHARE: Final[dict[str, float]] = {
    PI_HU: 1.0,
    PENG_PENG_HU: 0.45,
    QING_YI_SE: 0.5,
    QING_PENG: 0.3,
    JIANG_YI_SE: 0.6,
    FENG_YI_SE: 0.45,
}
# The draws a plan can count on, as a share of the draws left before the 海底: someone usually wins long
# before the wall runs out (claims add draws, but less than the race takes away).
_HORIZON: Final = 0.65
_CLOSED_FACTOR: Final = 0.5  # a hand that has not opened still needs a claim before it can win
_SMALL_INVALID: Final = 0.15  # a 屁胡 below min_payment: only later gangs would make it count
# Another seat's typical win per unit of both multipliers (屁胡 1 × hard or self-draw 2 × discarder 2) ...
_LOSS_UNIT: Final = 4.0
# ... and each other seat's chance to win over a whole hand.
_OTHER_WIN: Final = 0.22
_ROB_CHANCE: Final = 0.05  # chance that an opponent with two melds or more, late, can rob a 蓄杠
_GANGS: Final = frozenset({"hongzhong_gang", "laizi_gang", "an_gang", "xu_gang", "chong_gang"})
_DANGER_SCALE: Final = 0.2  # deal-ins mostly cost no more than the cap; 承包 is the real risk
_FAR_FROM_WIN: Final = 3  # tiles missing (game.shanten.distance) from which a 丢赖子 may be weighed
_HELD_BACK: Final = 1e6  # a throw not weighed (``_Seat.held_back``) ranks below every other option


def choose(view: SeatView, level: str = "normal", seed: int = 0) -> Action:
    """The action this seat plays now; always one of ``view.legal``."""
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r} (one of {', '.join(LEVELS)})")
    if view.seat is None or not view.legal:
        raise ValueError("this view has no decision to make")
    return forced_action(view) or ranked(view, level, seed)[0][1]


def forced_action(view: SeatView) -> Action | None:
    """The action every level plays without weighing: the only one, 胡 when offered, pass on a rob or 海底."""
    if len(view.legal) == 1:
        return view.legal[0]
    for action in view.legal:
        if action.kind == "hu":
            return action
    if view.phase in ("rob", "haidi"):
        return next(a for a in view.legal if a.kind == "pass")
    return None


def ranked(view: SeatView, level: str = "normal", seed: int = 0) -> list[tuple[float, Action]]:
    """Every legal action with its worth under ``level`` (easy or normal), best first."""
    seat = _Seat(view, level != "easy")
    rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}:{len(view.legal)}:{view.hand}")
    return sorted(((seat.option_worth(a) + rng.random() * 1e-9, a) for a in view.legal), reverse=True)


def drawn_worths(view: SeatView, tiles: Sequence[Tile]) -> dict[Tile, float]:
    """Per tile this seat may discard now: ``normal``'s worth of the hand it leaves, looked at one draw later
    (the mean over the unseen tiles of the best the hand can then do), less its danger — the search's
    sharper sense of which discard keeps the better hand."""
    seat = _Seat(view, True)
    assert view.seat is not None
    out: dict[Tile, float] = {}
    for t in tiles:
        counts, melds, factor = seat._after(Action(view.seat, "discard", t))
        held = _HELD_BACK if seat.held_back(t) else 0.0
        out[t] = seat.worth_after_draw(counts, melds, factor) - seat.danger(t) - held
    return out


def weighed_discards(view: SeatView) -> list[Tile]:
    """The tiles this seat may discard now that ``normal`` weighs (not a throw it holds back), in order."""
    seat = _Seat(view, True)
    tiles = sorted({a.tile for a in view.legal if a.kind == "discard" and a.tile is not None})
    return [t for t in tiles if not seat.held_back(t)]


def factor_of(
    rules: Rules, melds: Sequence[Meld], hongzhong_gangs: int, laizi_gangs: int, laizi_thrown: int = 0
) -> float:
    """A seat's §9 multiplier F, as ``game.scoring`` computes it under the table's rules."""
    seat = SeatMelds(tuple(melds), hongzhong_gangs, laizi_gangs, laizi_thrown=laizi_thrown)
    return float(seat_multiplier(rules, seat))


def unseen_counts(view: SeatView) -> list[int]:
    """Per kind, the tiles this seat has not seen: other seats' concealed tiles, their 暗杠 and the wall."""
    assert view.seat is not None
    seen = to_counts([*view.hand, *([view.drawn] if view.drawn is not None else [])])
    for ms in view.melds:
        for m in ms:
            for t in m.all_tiles():
                if t != HIDDEN:
                    seen[t] += 1
    for river in view.rivers:
        for t in river:
            seen[t] += t != HONGZHONG  # a thrown 红中 is counted with the 红中杠 below
    seen[view.indicator] += 1
    seen[HONGZHONG] += sum(view.hongzhong_gangs)
    seen[view.laizi] += sum(view.laizi_gangs)
    return [max(0, 4 - c) for c in seen]


@cache
def _typical_shares(plan: str, missing: int) -> tuple[float, ...]:
    """Each step's chance a draw of a plan ``missing`` tiles short (few plans, few lengths: computed once each, a
    sixth of a decision's time when it was computed for every plan weighed)."""
    scale = _PLAN_SHARE[plan]
    return tuple(round(_STAGE_SHARE[min(i, len(_STAGE_SHARE) - 1)] * scale, 3) for i in range(missing, 0, -1))


@lru_cache(maxsize=1 << 14)
def _finish_prob(shares: tuple[float, ...], draws: int) -> float:
    """P(all steps done within ``draws`` draws) when step i succeeds on a draw with probability shares[i]."""
    row = [1.0] * (draws + 1)  # zero steps left: done
    for q in reversed(shares):
        nxt = [0.0] * (draws + 1)
        for n in range(1, draws + 1):
            nxt[n] = q * row[n - 1] + (1 - q) * nxt[n - 1]
        row = nxt
    return row[draws]


@dataclass(frozen=True)
class _Threat:
    """What an opponent's exposed melds say about their hand."""

    strength: float  # how likely a fitting discard is taken and leads to their win
    cost: float  # what this seat pays if it feeds the win
    suit: int | None  # 清一色: the suit
    triplets: bool  # 碰碰胡
    jiang: bool
    feng: bool
    river: frozenset[Tile]


class _Seat:
    """One decision: the view read once, and the worth of each option."""

    def __init__(self, view: SeatView, normal: bool) -> None:
        assert view.seat is not None
        self.view = view
        self.rules = view.rules
        self.normal = normal
        self.me = me = view.seat
        self.laizi = view.laizi
        self.melds: tuple[Meld, ...] = view.melds[me]
        tiles = [*view.hand, *([view.drawn] if view.drawn is not None else [])]
        self.counts = to_counts(tiles)
        self.factor = factor_of(
            view.rules, self.melds, view.hongzhong_gangs[me], view.laizi_gangs[me], view.laizi_thrown[me]
        )
        self.other_factors = [
            (
                s,
                factor_of(
                    view.rules, view.melds[s], view.hongzhong_gangs[s], view.laizi_gangs[s], view.laizi_thrown[s]
                ),
            )
            for s in range(4)
            if s != me
        ]
        # My own draws left (the wall is shared by four; claims add some more).
        self.draws = max(0, (view.wall_remaining - HAIDI_TILES) // 4)
        # 0 in the first few turns, 1 from the middle of the wall on (82 drawable tiles at the deal).
        self.late = min(1.0, max(0.0, (80 - view.wall_remaining) / 40))
        self.unseen = unseen_counts(view) if normal else [4 - c for c in self.counts]
        self.unseen_total = max(1, sum(self.unseen[t] for t in range(NUM_KINDS) if t != HONGZHONG))
        self.threats = self._threats() if normal else []

    # -- what is visible -------------------------------------------------------------------------

    def _threats(self) -> list[_Threat]:
        v = self.view
        out: list[_Threat] = []
        for s, f in self.other_factors:
            ms = v.melds[s]
            if len(ms) < 2:
                continue
            shown = [t for m in ms for t in m.tiles if t != HIDDEN]
            no_chi = all(m.kind != "chi" for m in ms)
            suits = {t // 9 for t in shown}
            suit = next(iter(suits)) if len(suits) == 1 and min(shown, default=27) < 27 else None
            jiang = no_chi and bool(shown) and all(is_jiang(t) for t in shown)
            feng = no_chi and bool(shown) and all(is_feng(t) for t in shown)
            loss = min(self.rules.cap, 40 * f * self.factor)  # a big win: base 10+, their F, my F, ×2 as discarder
            if suit is not None or jiang or feng:
                # 一色 on the table from the start: feeding the third opening meld makes me pay for all (承包).
                strength = 0.2 if len(ms) == 2 else 0.35
                out.append(_Threat(strength, 3 * loss, suit, False, jiang, feng, frozenset(v.rivers[s])))
            elif no_chi:
                strength = self.late * 0.15 * (len(ms) - 1)
                out.append(_Threat(min(1.0, strength), loss, None, True, False, False, frozenset(v.rivers[s])))
        return out

    # -- the worth of a hand one tile short ---------------------------------------------------------

    def payout(self, plan: Plan, counts: Sequence[int], melds: Sequence[Meld], factor: float) -> float:
        """What winning by ``plan`` would collect (§9, default table), before the chance of getting there."""
        f = factor * 2.0 ** counts[HONGZHONG]  # every 红中 still held must be ganged before winning
        if not any(m.opens for m in melds):
            f *= 2  # it has to open to win
        hard = 2.0 if counts[self.laizi] == 0 else 1.0
        total = 0.0
        best_raw = 0.0
        for seat, f_loser in self.other_factors:
            dealer = 2.0 if plan.name == PI_HU and self.view.dealer in (seat, self.me) else 1.0
            raw = plan.base * f * hard * f_loser * dealer
            best_raw = max(best_raw, 2 * raw)  # the discarder (or a self-draw) doubles it
            total += min(self.rules.cap, 1.5 * raw)
        if self.normal and plan.name == PI_HU and best_raw < self.rules.min_payment:
            total *= _SMALL_INVALID
        return total

    def worth(
        self, counts: Sequence[int], melds: Sequence[Meld], factor: float, extra_draws: int = 0, exact: bool = True
    ) -> float:
        """Worth of a concealed hand one tile short of complete (13 − 3 × melds tiles).

        ``exact`` counts the current step's chance from the unseen useful tiles (for the plans that could
        lead); otherwise every step takes the typical share.
        """
        draws = int((self.draws + extra_draws) * _HORIZON)
        rated: list[tuple[float, float, Plan, float]] = []  # (value, chance, plan, payout)
        for plan in plans(counts, self.laizi, melds):
            if plan.missing > draws + 1:
                continue
            pay = self.payout(plan, counts, melds, factor)
            if pay > 0:
                chance = _finish_prob(self._shares(plan, None), draws)
                rated.append((pay * chance, chance, plan, pay))
        best = max(rated, default=(0.0, 0.0), key=lambda r: r[0])[:2]
        if exact and rated:
            rough_best = best[0]
            best = (0.0, 0.0)
            for rough, _, plan, pay in rated:
                if rough * 3 < rough_best:
                    continue
                useful = useful_tiles(counts, self.laizi, melds, plan)
                share = sum(self.unseen[t] for t in useful) / self.unseen_total
                chance = _finish_prob(self._shares(plan, share), draws)
                best = max(best, (pay * chance, chance))
        value, chance = best
        if not any(m.opens for m in melds):
            value *= _CLOSED_FACTOR
            chance *= _CLOSED_FACTOR
        # What a larger multiplier costs is paid only when this seat does not win itself.
        return value - self.exposure(factor) * (1 - chance)

    def worth_after_draw(self, counts: list[int], melds: Sequence[Meld], factor: float) -> float:
        """The mean over the unseen tiles of ``worth`` one draw later: a tile that brings the hand closer is
        kept (or wins), any other goes straight back. ``counts`` is one tile short; it is restored."""
        stay = self.worth(counts, melds, factor, extra_draws=-1)
        total = sum(self.unseen)
        if total == 0:
            return stay
        now = distance(counts, self.laizi, melds)
        opened = any(m.opens for m in melds)
        value = 0.0
        rest = total
        for t in range(NUM_KINDS):
            n = self.unseen[t]
            if n == 0 or t == HONGZHONG:
                continue
            counts[t] += 1
            ps = plans(counts, self.laizi, melds)
            if t == self.laizi or min(p.missing for p in ps) < now:
                value += n * self._best_after(t, counts, melds, factor, ps, now, opened, stay)
                rest -= n
            counts[t] -= 1
        return (value + rest * stay) / total

    def _best_after(
        self,
        drawn: Tile,
        counts: list[int],
        melds: Sequence[Meld],
        factor: float,
        ps: list[Plan],
        now: int,
        opened: bool,
        stay: float,
    ) -> float:
        """What a full hand (``drawn`` just added) is worth: its win, else its best discard that keeps it closer."""
        if opened and not counts[HONGZHONG] and any(p.missing == 0 for p in ps):
            return max(self.payout(p, counts, melds, factor) for p in ps if p.missing == 0)
        best = stay
        for d in range(NUM_KINDS):
            if counts[d] and d not in (HONGZHONG, self.laizi, drawn):
                counts[d] -= 1
                if distance(counts, self.laizi, melds) < now:
                    best = max(best, self.worth(counts, melds, factor, extra_draws=-1))
                counts[d] += 1
        return best

    def _shares(self, plan: Plan, first: float | None) -> tuple[float, ...]:
        steps = _typical_shares(plan.name, plan.missing)
        if first is not None and steps:
            return (round(first, 3), *steps[1:])
        return steps

    def exposure(self, factor: float) -> float:
        """What this seat expects to pay others over the rest of the hand with multiplier ``factor``."""
        if not self.normal:
            return 0.0
        left = max(0, self.view.wall_remaining - HAIDI_TILES) / 68
        return sum(_OTHER_WIN * left * min(self.rules.cap, _LOSS_UNIT * f * factor) for _, f in self.other_factors)

    def danger(self, tile: Tile) -> float:
        """What discarding ``tile`` risks feeding the open big hands around the table."""
        if tile in (HONGZHONG, self.laizi):
            return 0.0  # a thrown 红中 or 赖子 is never claimable (§4)
        total = 0.0
        for th in self.threats:
            fits = (
                (th.suit is not None and tile // 9 == th.suit)
                or (th.jiang and is_jiang(tile))
                or (th.feng and is_feng(tile))
                or (th.triplets and self.unseen[tile] >= 2)
            )
            if not fits:
                continue
            risk = th.strength * min(1.0, self.unseen[tile] / 3 + 0.2)
            if tile in th.river:
                risk *= 0.4
            total += risk * th.cost * _DANGER_SCALE
        return total

    # -- options ------------------------------------------------------------------------------------

    def _after(self, a: Action) -> tuple[list[int], list[Meld], float]:
        """The concealed counts, melds and multiplier this seat would have after ``a``."""
        v = self.view
        counts = list(self.counts)
        melds = list(self.melds)
        hongzhong_gangs, laizi_gangs = v.hongzhong_gangs[self.me], v.laizi_gangs[self.me]
        laizi_thrown = v.laizi_thrown[self.me]
        t = a.tile if a.tile is not None else HONGZHONG
        if a.kind == "discard":
            counts[t] -= 1
            hongzhong_gangs += t == HONGZHONG  # a thrown 红中 counts as a 红中杠, a thrown 赖子 ×2 (§4)
            laizi_thrown += t == self.laizi
        elif a.kind == "hongzhong_gang":
            counts[HONGZHONG] -= 1
            hongzhong_gangs += 1
        elif a.kind == "laizi_gang":
            counts[self.laizi] -= 1
            laizi_gangs += 1
        elif a.kind in ("an_gang", "xu_gang", "chong_gang", "peng", "chi"):
            self._meld_after(a, t, counts, melds)
        return counts, melds, factor_of(self.rules, melds, hongzhong_gangs, laizi_gangs, laizi_thrown)

    def _meld_after(self, a: Action, t: int, counts: list[int], melds: list[Meld]) -> None:
        v = self.view
        if a.kind == "an_gang":
            counts[t] -= 4
            melds.append(Meld("an_gang", (t,)))
        elif a.kind == "xu_gang":
            counts[t] -= 1
            i = next(i for i, m in enumerate(melds) if m.kind == "peng" and m.tile == t)
            melds[i] = Meld("xu_gang", (t,), melds[i].from_seat)
        elif a.kind in ("chong_gang", "peng"):
            counts[t] -= 3 if a.kind == "chong_gang" else 2
            melds.append(Meld(a.kind, (t,), v.turn))
        else:  # chi
            run = (t, t + 1, t + 2)
            for x in run:
                if x != v.claimable:
                    counts[x] -= 1
            melds.append(Meld("chi", run, v.turn, claimed=v.claimable))

    def option_worth(self, a: Action) -> float:
        """Worth of playing ``a``: the hand it leaves (after the best discard, for 碰/吃) less its risks."""
        counts, melds, factor = self._after(a)
        t = a.tile if a.tile is not None else HONGZHONG
        if a.kind in ("peng", "chi"):
            return self._best_discard_worth(counts, melds, factor)
        if a.kind == "discard" and self.held_back(t):
            return self.worth(counts, melds, factor) - _HELD_BACK
        if a.kind not in _GANGS:
            return self.worth(counts, melds, factor) - (self.danger(t) if a.kind == "discard" else 0.0)
        worth = self.worth(counts, melds, factor, extra_draws=1) + self._flower_on_gang(counts, melds, factor)
        return worth - (self._rob_risk() if a.kind == "xu_gang" else 0.0)

    def _flower_on_gang(self, counts: list[int], melds: list[Meld], factor: float) -> float:
        """A ready hand may win on the gang's replacement draw: 杠上开花 adds a big pattern (base 10+)."""
        extra = 0.0
        for plan in plans(counts, self.laizi, melds):
            if plan.missing != 1 or counts[HONGZHONG] or not any(m.opens for m in melds):
                continue
            share = sum(self.unseen[t] for t in useful_tiles(counts, self.laizi, melds, plan)) / self.unseen_total
            flower = dataclasses.replace(plan, base=10 if plan.name == PI_HU else 2 * plan.base)
            gain = self.payout(flower, counts, melds, factor) - self.payout(plan, counts, melds, factor)
            extra = max(extra, share * gain)
        return extra

    def _best_discard_worth(self, counts: list[int], melds: list[Meld], factor: float) -> float:
        best = float("-inf")
        for t in range(NUM_KINDS):
            if counts[t] and t != HONGZHONG and t != self.laizi:
                counts[t] -= 1
                best = max(best, self.worth(counts, melds, factor, exact=False) - self.danger(t))
                counts[t] += 1
        return best

    def held_back(self, tile: Tile) -> bool:
        """Whether a throw of ``tile`` is not even weighed (§4). A 红中 while a 红中杠 is offered: the gang
        counts the same ×2 and draws a tile besides. A 赖子 unless ``normal`` plays defence: far from a win,
        with an open big hand at the table, so a wildcard is never thrown from a hand that could use it."""
        if tile == HONGZHONG:
            return any(a.kind == "hongzhong_gang" for a in self.view.legal)
        if tile != self.laizi:
            return False
        far = distance(self.counts, self.laizi, self.melds) >= _FAR_FROM_WIN
        return not (self.normal and self.threats and far)

    def _rob_risk(self) -> float:
        """抢杠: a robbed 蓄杠 makes its maker pay for all three losers (§6, §9 承包)."""
        if not self.normal:
            return 0.0
        return sum(
            _ROB_CHANCE * self.late * 3 * min(self.rules.cap, 20 * f * self.factor)
            for s, f in self.other_factors
            if len(self.view.melds[s]) >= 2
        )
