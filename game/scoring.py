"""Settlement of a won hand (RULES.md §9): multipliers, minimum, caps, 金顶/光明顶, liability, breakdown.

``settle`` judges the hand with ``game.analysis.analyse_win`` and then pays it; ``settle_win`` pays a
verdict already made. Amounts are exact ``Fraction``s until each loser's amount is rounded half up.

>>> from game.rules import Rules
>>> from game.melds import Meld
>>> from game.patterns import WinAnalysis
>>> seats = [SeatMelds(), SeatMelds((Meld("chi", (0, 1, 2), 0),)), SeatMelds(), SeatMelds()]
>>> s = settle_win(Rules(min_payment=0), 0, 1, "discard", 2, seats, WinAnalysis(None, ("pi_hu",), False, 1))
>>> s.payments  # F(1) = open 2 × hard 2 = 4; seat 2 discarder 8, seat 0 dealer 8, seat 3 4
(-8, 20, -8, -4)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, Final, Literal

from game.analysis import analyse_win
from game.melds import SELF_DRAWN, Meld, WinHow
from game.patterns import PATTERNS, WinAnalysis, big_count
from game.rules import Rules
from game.tiles import HONOR_CN, HONOR_EN, Tile

CapKind = Literal["none", "capped", "golden"]

# §9's fixed multipliers: the 开口 doubling and each kind of gang.
OPEN_FACTOR: Final = 2
GANG_FACTORS: Final[dict[str, int]] = {
    "chong_gang": 2,
    "xu_gang": 2,
    "an_gang": 4,
    "hongzhong_gang": 2,
    "laizi_gang": 4,  # the default; a table's ``laizi_gang_factor`` sets it
    "hongzhong_thrown": 2,  # a 红中 discarded counts as a 红中杠 (§4)
    "laizi_thrown": 2,  # 丢赖子: a 赖子 discarded (§4), not the ×4 of a 赖子杠
}
# 杠进杠出 (§6, qiang_gang_pay gang_kai): the robbed seat is scored as a soft 杠上开花 屁胡, one big pattern.
GANG_KAI_BASE: Final = 10

# (中文, English) labels, from the glossary of RULES.md §13.
FACTOR_NAMES: Final[dict[str, tuple[str, str]]] = {
    "open": ("开口", "open"),
    "open_per_meld": ("口口翻", "per-meld doubling"),
    "chong_gang": ("冲杠", "kong on a discard"),
    "xu_gang": ("蓄杠", "added kong"),
    "an_gang": ("暗杠", "concealed kong"),
    "hongzhong_gang": ("红中杠", "red-dragon kong"),
    "laizi_gang": ("赖子杠", "wildcard kong"),
    "hongzhong_thrown": ("打红中", "thrown red dragon"),
    "laizi_thrown": ("丢赖子", "thrown wildcard"),
    "hard": ("硬胡", "hard win"),
    "self_draw": ("自摸", "self-draw"),
    "self_draw_big": ("自摸(大胡)", "self-draw (big win)"),
    "discarder": ("放冲", "deal-in"),
    "robbed": ("被抢杠", "robbed kong"),
    "dealer": ("庄家", "dealer"),
    "dealer_won": ("庄家胡", "dealer won"),
}
REASON_NAMES: Final[dict[str, tuple[str, str]]] = {
    "not_open": ("未开口", "the hand is not open"),
    "holds_hongzhong": ("手中有红中", "holds a red dragon"),
    "not_a_win": ("不成胡", "not a winning hand"),
    "two_laizi_small_win": ("屁胡不能有两个赖子", "a plain win may not hold two wildcards"),
    "below_minimum": ("不够起胡分", "below the minimum payment"),
}


@dataclass(frozen=True)
class SeatMelds:
    """What scoring needs of each seat."""

    melds: tuple[Meld, ...] = ()  # in the order they were made
    hongzhong_gangs: int = 0
    laizi_gangs: int = 0
    ready: bool = True  # was this seat ready when it discarded (全求人 liability)
    laizi_thrown: int = 0  # 丢赖子 (§4)
    hongzhong_thrown: int = 0  # how many of ``hongzhong_gangs`` were thrown 红中 (§4): named apart, same ×2

    @property
    def opened(self) -> bool:
        return any(m.opens for m in self.melds)


@dataclass(frozen=True)
class Factor:
    """One multiplier, applied ``count`` times: ``kind`` names it (a key of FACTOR_NAMES)."""

    kind: str
    times: Fraction
    count: int = 1

    @property
    def value(self) -> Fraction:
        return self.times**self.count

    def label(self, lang: int) -> str:
        name = FACTOR_NAMES[self.kind][lang]
        counted = name if self.count == 1 else f"{name}({self.count})" if lang == 0 else f"{name} ({self.count})"
        return f"{counted} ×{_num(self.value)}"


@dataclass(frozen=True)
class SeatScore:
    """One seat's share of the settlement, kept in pieces so a picture can show each of them."""

    seat: int
    factors: tuple[Factor, ...]  # F(p): opening and gangs
    extras: tuple[Factor, ...]  # the winner's (硬胡, 自摸) or a loser's (放冲/被抢杠, 庄家)
    raw: Fraction  # a loser's raw payment (base × winner's multiplier × own multiplier); 0 for the winner
    owed: int  # a loser's amount after rounding, caps and 金顶 (before liability); 0 for the winner or no win
    cap: str | None  # None, or which limit set ``owed``: "cap", "golden" or "bright"

    @property
    def f(self) -> Fraction:
        return _product(self.factors)

    @property
    def multiplier(self) -> Fraction:
        return self.f * _product(self.extras)


@dataclass(frozen=True)
class Breakdown:
    """The settlement in words, one line per step, in both languages (same lines, same order)."""

    zh: tuple[str, ...]
    en: tuple[str, ...]

    def to_json(self) -> dict[str, list[str]]:
        return {"zh": list(self.zh), "en": list(self.en)}


@dataclass(frozen=True)
class Settlement:
    valid: bool
    reason: str | None
    patterns: tuple[str, ...]
    soft: bool
    base: int
    payments: tuple[int, int, int, int]  # zero-sum; all 0 when invalid
    liable: int | None
    cap: CapKind
    winner: int
    how: WinHow
    from_seat: int | None
    seats: tuple[SeatScore, ...]  # all four, by seat
    liable_rule: str | None  # why ``liable`` pays: "rob_gang", "quan_qiu_ren" or the 一色 pattern id
    breakdown: Breakdown
    gang_kai: bool = False  # a 抢杠 paid 杠进杠出 (§6): ``seats`` score the robbed seat's 杠上开花 instead

    @property
    def scorer(self) -> int:
        """The seat whose multiplier sets the amounts: the winner, or under 杠进杠出 the robbed seat."""
        return self.from_seat if self.gang_kai and self.from_seat is not None else self.winner

    def to_json(self) -> dict[str, Any]:
        """Exactly the output object of RULES.md §11."""
        return {
            "valid": self.valid,
            "reason": self.reason,
            "patterns": list(self.patterns),
            "soft": self.soft,
            "base": self.base,
            "payments": list(self.payments),
            "liable": self.liable,
            "cap": self.cap,
            "breakdown": self.breakdown.to_json(),
        }


def settle(
    rules: Rules,
    dealer: int,
    laizi: Tile,
    winner: int,
    how: WinHow,
    from_seat: int | None,
    win_tile: Tile,
    concealed: Sequence[Tile],
    seats: Sequence[SeatMelds],
) -> Settlement:
    """Judge the winner's hand (§8) and settle it (§9). ``concealed`` is before ``win_tile``."""
    analysis = analyse_win(concealed, win_tile, seats[winner].melds, laizi, how, rules.hard_factor)
    if how == "rob_gang" and rules.qiang_gang_pay == "gang_kai" and from_seat is not None and analysis.valid:
        return settle_gang_kai(rules, dealer, winner, from_seat, win_tile, seats, analysis)
    return settle_win(rules, dealer, winner, how, from_seat, seats, analysis)


def seat_factors(rules: Rules, seat: SeatMelds) -> tuple[Factor, ...]:
    """F(p) of §9 as its pieces: the opening doubling, then each kind of gang."""
    opening = sum(1 for m in seat.melds if m.opens)  # a 蓄杠 is one meld: it counts once, as its peng
    out: list[Factor] = []
    if opening:
        if rules.per_meld_opening:
            out.append(Factor("open_per_meld", Fraction(OPEN_FACTOR), opening))
        else:
            out.append(Factor("open", Fraction(OPEN_FACTOR)))
    counts = {kind: sum(1 for m in seat.melds if m.kind == kind) for kind in ("chong_gang", "xu_gang", "an_gang")}
    counts["hongzhong_gang"] = seat.hongzhong_gangs - seat.hongzhong_thrown
    counts["hongzhong_thrown"] = seat.hongzhong_thrown
    counts["laizi_gang"] = seat.laizi_gangs
    counts["laizi_thrown"] = seat.laizi_thrown
    times = {**GANG_FACTORS, "laizi_gang": rules.laizi_gang_factor}
    out.extend(Factor(kind, Fraction(times[kind]), n) for kind, n in counts.items() if n)
    return tuple(out)


def seat_multiplier(rules: Rules, seat: SeatMelds) -> Fraction:
    """F(p) of §9 as one number."""
    return _product(seat_factors(rules, seat))


def _winner_extras(rules: Rules, how: WinHow, analysis: WinAnalysis) -> tuple[Factor, ...]:
    extras: list[Factor] = []
    if analysis.valid and not analysis.soft:
        extras.append(Factor("hard", rules.hard_factor))
    if how in SELF_DRAWN:
        small = analysis.small
        extras.append(
            Factor("self_draw", rules.self_draw_small) if small else Factor("self_draw_big", rules.self_draw_big)
        )
    return tuple(extras)


def _loser_extras(
    rules: Rules, seat: int, dealer: int, winner: int, how: WinHow, from_seat: int | None, small: bool
) -> tuple[Factor, ...]:
    mine: list[Factor] = []
    if seat == from_seat and how in ("discard", "rob_gang"):
        mine.append(Factor("discarder" if how == "discard" else "robbed", rules.discarder_factor))
    if small and dealer == winner:
        mine.append(Factor("dealer_won", rules.dealer_factor))
    elif small and seat == dealer:
        mine.append(Factor("dealer", rules.dealer_factor))
    return tuple(mine)


def _capped(
    rules: Rules, raw: dict[int, Fraction], losers: Sequence[int], seats: Sequence[SeatMelds]
) -> tuple[dict[int, int], dict[int, str | None], CapKind]:
    """What each loser owes after rounding, the cap and 金顶/光明顶; which limit each met; the table's cap."""
    owed = {seat: 0 for seat in range(4)}
    limit: dict[int, str | None] = {seat: None for seat in range(4)}
    cap: CapKind = "none"
    for seat in losers:
        owed[seat] = min(_round_half_up(raw[seat]), rules.cap)
        if owed[seat] == rules.cap:
            limit[seat], cap = "cap", "capped"
    if all(limit[s] for s in losers):
        cap = "golden"
        for seat in losers:
            # 光明顶: a loser who never opened pays bright_cap instead of the 金顶.
            bright = None if seats[seat].opened else rules.bright_cap
            owed[seat] = rules.golden_cap if bright is None else bright
            limit[seat] = "golden" if bright is None else "bright"
    return owed, limit, cap


def _payments(winner: int, owed: dict[int, int], losers: Sequence[int], liable: int | None) -> tuple[int, ...]:
    """Zero-sum payments: the winner gets all that is owed; a liable seat pays it alone."""
    total = sum(owed[s] for s in losers)
    pay = [0, 0, 0, 0]
    pay[winner] = total
    for seat in losers:
        if liable is None:
            pay[seat] = -owed[seat]
        elif seat == liable:
            pay[seat] = -total
    return tuple(pay)


def _raw_payments(
    rules: Rules,
    dealer: int,
    winner: int,
    how: WinHow,
    from_seat: int | None,
    factors: Sequence[tuple[Factor, ...]],
    analysis: WinAnalysis,
) -> tuple[dict[int, tuple[Factor, ...]], dict[int, Fraction]]:
    """Each seat's extra factors and each loser's raw payment: base × F(winner) × extras × F(loser) × extras."""
    winner_extras = _winner_extras(rules, how, analysis)
    winner_mult = _product(factors[winner]) * _product(winner_extras)
    extras: dict[int, tuple[Factor, ...]] = {winner: winner_extras}
    raw: dict[int, Fraction] = {winner: Fraction(0)}
    for seat in (s for s in range(4) if s != winner):
        extras[seat] = _loser_extras(rules, seat, dealer, winner, how, from_seat, analysis.small)
        raw[seat] = analysis.base * winner_mult * _product(factors[seat]) * _product(extras[seat])
    return extras, raw


def settle_win(
    rules: Rules,
    dealer: int,
    winner: int,
    how: WinHow,
    from_seat: int | None,
    seats: Sequence[SeatMelds],
    analysis: WinAnalysis,
) -> Settlement:
    """Pay a verdict (§9): raw payments, the minimum, rounding, caps, 金顶/光明顶 and liability."""
    factors = [seat_factors(rules, s) for s in seats]
    losers = [s for s in range(4) if s != winner]
    extras, raw = _raw_payments(rules, dealer, winner, how, from_seat, factors, analysis)
    reason = analysis.reason
    if reason is None and rules.min_payment and max(raw[s] for s in losers) < rules.min_payment:
        reason = "below_minimum"
    valid = reason is None
    owed: dict[int, int] = {s: 0 for s in range(4)}
    limit: dict[int, str | None] = {s: None for s in range(4)}
    cap: CapKind = "none"
    liable: tuple[int, str] | None = None
    pay: tuple[int, ...] = (0, 0, 0, 0)
    if valid:
        owed, limit, cap = _capped(rules, raw, losers, seats)
        liable = liable_seat(rules, winner, how, from_seat, analysis.patterns, seats)
        pay = _payments(winner, owed, losers, liable[0] if liable else None)
    scores = tuple(
        SeatScore(seat, factors[seat], extras[seat], raw[seat], owed[seat], limit[seat]) for seat in range(4)
    )
    settlement = Settlement(
        valid=valid,
        reason=reason,
        patterns=analysis.patterns,
        soft=analysis.soft,
        base=analysis.base,
        payments=(pay[0], pay[1], pay[2], pay[3]),
        liable=liable[0] if liable else None,
        cap=cap,
        winner=winner,
        how=how,
        from_seat=from_seat,
        seats=scores,
        liable_rule=liable[1] if liable else None,
        breakdown=Breakdown((), ()),
    )
    return _with_breakdown(settlement, rules, dealer)


def settle_gang_kai(
    rules: Rules,
    dealer: int,
    winner: int,
    robbed: int,
    tile: Tile,
    seats: Sequence[SeatMelds],
    analysis: WinAnalysis,
) -> Settlement:
    """抢杠 paid 杠进杠出 (§6): the robbed seat pays the winner what its 蓄杠 of ``tile`` would have won had it
    stood, a soft 杠上开花 屁胡 (base 10, its own F with the gang, × self_draw_big, each other seat's F, caps
    as usual). ``analysis`` is the robber's legal win: its patterns are shown, they do not set the amount."""
    melds = tuple(
        Meld("xu_gang", m.tiles, m.from_seat) if m.kind == "peng" and m.tile == tile else m for m in seats[robbed].melds
    )
    grown = dataclasses.replace(seats[robbed], melds=melds)
    factors = [seat_factors(rules, grown if s == robbed else seats[s]) for s in range(4)]
    others = [s for s in range(4) if s != robbed]
    extras: dict[int, tuple[Factor, ...]] = {s: () for s in others}
    extras[robbed] = (Factor("self_draw_big", rules.self_draw_big),)
    unit = GANG_KAI_BASE * _product(factors[robbed]) * rules.self_draw_big
    raw = {robbed: Fraction(0), **{s: unit * _product(factors[s]) for s in others}}
    reason = "below_minimum" if rules.min_payment and max(raw.values()) < rules.min_payment else None
    owed: dict[int, int] = {s: 0 for s in range(4)}
    limit: dict[int, str | None] = {s: None for s in range(4)}
    cap: CapKind = "none"
    pay = [0, 0, 0, 0]
    if reason is None:
        owed, limit, cap = _capped(rules, raw, others, seats)
        pay[winner], pay[robbed] = sum(owed.values()), -sum(owed.values())
    settlement = Settlement(
        valid=reason is None,
        reason=reason,
        patterns=analysis.patterns,
        soft=analysis.soft,
        base=GANG_KAI_BASE,
        payments=(pay[0], pay[1], pay[2], pay[3]),
        liable=robbed if reason is None else None,
        cap=cap,
        winner=winner,
        how="rob_gang",
        from_seat=robbed,
        seats=tuple(SeatScore(s, factors[s], extras[s], raw[s], owed[s], limit[s]) for s in range(4)),
        liable_rule="rob_gang" if reason is None else None,
        breakdown=Breakdown((), ()),
        gang_kai=True,
    )
    return _with_breakdown(settlement, rules, dealer)


def liable_seat(
    rules: Rules,
    winner: int,
    how: WinHow,
    from_seat: int | None,
    patterns: Sequence[str],
    seats: Sequence[SeatMelds],
) -> tuple[int, str] | None:
    """承包 (§9): the seat that pays for all three and the rule that makes it, the first that applies."""
    if how == "rob_gang" and from_seat is not None:
        return from_seat, "rob_gang"
    if "quan_qiu_ren" in patterns and from_seat is not None and not seats[from_seat].ready:
        return from_seat, "quan_qiu_ren"
    yi_se = [p for p in patterns if p in rules.liable_yi_se]
    opening = [m for m in seats[winner].melds if m.opens]
    if yi_se and len(opening) >= 3 and opening[2].from_seat is not None:
        return opening[2].from_seat, yi_se[0]
    return None


def _with_breakdown(s: Settlement, rules: Rules, dealer: int) -> Settlement:
    return dataclasses.replace(
        s, breakdown=Breakdown(tuple(_lines(s, rules, dealer, 0)), tuple(_lines(s, rules, dealer, 1)))
    )


def _lines(s: Settlement, rules: Rules, dealer: int, lang: int) -> list[str]:
    """The breakdown in one language (0 = 中文, 1 = English)."""
    zh = lang == 0
    out: list[str] = []
    names = " · ".join(PATTERNS[p].zh if zh else PATTERNS[p].en for p in s.patterns)
    if s.patterns:
        n_big = big_count(s.patterns)
        if n_big:
            names += f" ({n_big}个大胡)" if zh else f" ({n_big} big pattern{'s' if n_big > 1 else ''})"
        softness = ("软胡", "soft win") if s.soft else ("硬胡", "hard win")
        head = f"{names} · {softness[lang]}"
        if s.gang_kai:
            robbed = _seat_word(s.scorer, zh)
            out.append(head)
            out.append(
                f"杠进杠出: {robbed} 按蓄杠杠上开花计 — 底分 {s.base}"
                if zh
                else f"Kong in, kong out: {robbed} pays as if its added kong had won — base {s.base}"
            )
        else:
            out.append(f"{head} — 底分 {s.base}" if zh else f"{head} — base {s.base}")
    if s.reason in (None, "below_minimum"):
        for score in s.seats:
            out.append(_seat_line(s, score, dealer, zh))
    if s.reason is not None:
        why = REASON_NAMES[s.reason][lang]
        if s.reason == "below_minimum":
            why += f" {rules.min_payment}"
        out.append(f"不成胡: {why}" if zh else f"No win: {why}")
    if s.cap == "golden":
        golden = rules.golden_cap
        out.append(f"三家封顶 → 金顶 {golden}" if zh else f"All three at the cap → golden cap {golden}")
    if s.liable is not None and s.liable_rule is not None:
        out.append(_liability_line(s, zh))
    pays = " · ".join(
        f"{_seat_word(i, zh)} {p:+d}" if p else f"{_seat_word(i, zh)} 0" for i, p in enumerate(s.payments)
    )
    out.append(f"结算: {pays}" if zh else f"Payments: {pays}")
    return out


def _seat_word(seat: int, zh: bool) -> str:
    """A seat by its wind (seats 0-3 of the calculator's JSON are 东南西北): ``东``, ``East``."""
    return HONOR_CN[seat] if zh else HONOR_EN[seat]


def _seat_line(s: Settlement, score: SeatScore, dealer: int, zh: bool) -> str:
    lang = 0 if zh else 1
    parts = [f.label(lang) for f in (*score.factors, *score.extras)]
    factors = " · ".join(parts) if parts else ("无翻" if zh else "no doubling")
    if len(parts) > 1:
        factors += f" = ×{_num(score.multiplier)}"
    who = _seat_word(score.seat, zh)
    if score.seat == dealer:
        who += "(庄)" if zh else " (dealer)"
    if score.seat == s.scorer:
        return (
            f"{who} {('杠上开花' if s.gang_kai else '胡') if zh else ('kong win' if s.gang_kai else 'wins')}: {factors}"
        )
    winner_mult = s.seats[s.scorer].multiplier
    line = f"{who}: {factors} → {s.base} × {_num(winner_mult)} × {_num(score.multiplier)} = {_num(score.raw)}"
    if not s.valid:
        return line
    rounded = _round_half_up(score.raw)
    if rounded != score.raw:
        line += f", 四舍五入 {rounded}" if zh else f", rounded {rounded}"
    if score.cap is not None:
        word = {"cap": ("封顶", "cap"), "golden": ("金顶", "golden cap"), "bright": ("光明顶", "bright cap")}[score.cap]
        line += f" → {word[lang]} {score.owed}"
    return line


def _liability_line(s: Settlement, zh: bool) -> str:
    seat = _seat_word(s.liable or 0, zh)
    total = s.payments[s.winner]
    rule = s.liable_rule or ""
    if rule == "rob_gang":
        why = ("被抢杠者包", "the robbed player pays")
    elif rule == "quan_qiu_ren":
        why = ("全求人, 放冲者未听牌", "all from others, the discarder was not ready")
    else:
        pattern = PATTERNS[rule]
        why = (f"{pattern.zh}, 放出第三口", f"{pattern.en}, fed the third opening meld")
    if zh:
        return f"承包: {seat} 付三家共 {total} ({why[0]})"
    return f"Liability: {seat} pays all three, {total} ({why[1]})"


def _product(factors: Sequence[Factor]) -> Fraction:
    out = Fraction(1)
    for f in factors:
        out *= f.value
    return out


def _round_half_up(x: Fraction) -> int:
    """Nearest whole number, halves upwards (amounts are never negative)."""
    return int((x + Fraction(1, 2)) // 1)


def _num(x: Fraction) -> str:
    """1, 1.5, 22.5 — or 10/3 when no exact decimal exists."""
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d != 1:
        return f"{x.numerator}/{x.denominator}"
    return str(Decimal(x.numerator) / x.denominator)
