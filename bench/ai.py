"""Tournament for the automatic player (game.ai): ``normal`` against a baseline and against ``easy``,
``hard`` (game.search, 200 ms a decision unless ``--hard-ms``) against ``normal``.

    .venv/bin/python bench/ai.py                               # 2,000 hands per match-up, 3,000 for hard
    .venv/bin/python bench/ai.py --hands 400 --hard-hands 40   # shorter
    .venv/bin/python bench/ai.py --first-wall 20000            # other walls: an independent run to pool with

    .venv/bin/python bench/ai.py --duplicate --hard-hands 2000     # hard vs 3 × normal only
    .venv/bin/python bench/ai.py --duplicate --hard-hands 0 --learned-hands 2000   # the network alone
    .venv/bin/python bench/ai.py --duplicate --hard-hands 0 --valued-hands 2000    # the value player
    .venv/bin/python bench/ai.py --duplicate --hard-hands 400 --breakdown          # where hard's points come from
    .venv/bin/python bench/ai.py --duplicate --hard-hands 800 --hard-worlds 16     # load-free: for paired runs

Duplicate seating: every wall (hand seed) is played four times with the player under test rotated through
the four seats and the three opponents in the others, so the luck of the deal cancels out. Points per hand
are averaged per wall first; the 95% interval is mean ± 1.96 × the standard error over walls. For `hard` the
JSON also gives these as ``hard_vs_normal_dup`` and ``hard_vs_normal_dup_ci95`` (``learned_…`` for the
network alone), and beside them ``hard_vs_normal_single_ci95``: the interval the same hands would give were
each an independent hand (plain sampling), so the two can be compared.

The baseline (``baseline_choose``): 胡 whenever offered; 红中杠 whenever offered (a 红中 blocks every win); 赖子杠 when
holding two or more 赖子 (a 屁胡 allows one); no other gang; discards at random among the tiles whose discard leaves the
smallest ``game.shanten.distance``, never a 红中 or 赖子 while another tile is left; on a discard it passes unless its
hand is still closed and a 碰/吃 does not worsen that distance (it must open to win).

Reports win rate, points per hand with the interval, 放冲 (deal-in) rate and decision times of the player
under test, and its points by how each hand ended (``OUTCOMES``: its own wins, its deal-ins, the others' wins,
drawn hands) as a share of hands and points a hand (``<key>_by_outcome``). ``--breakdown`` also plays ``normal``
in the same seats of the same walls (``normal_vs_normal_…``; 0 points on every wall), so that each outcome's
figure can be set against what ``normal`` made of the same hands. The last line is one JSON object (win and
deal-in rates are those of ``normal`` against the baseline and ``easy``). Walls are spread over
``--processes`` worker processes, the hard match-up's first since they take longest.

``--hard-worlds N`` has ``hard`` search exactly N worlds a decision instead of as many as its time budget
allows: its play then depends on neither the machine nor its load, so two versions of the code run on the
same walls make a paired comparison (the difference of their per-wall figures), far less noisy than either.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from dataclasses import dataclass
from multiprocessing import Pool

from game.actions import Action
from game.automatic import choose
from game.policy import choose_learned
from game.rules import Rules
from game.search import DEFAULT_BUDGET_MS, choose_hard, claim_distance
from game.shanten import distance
from game.table import Hand
from game.tiles import HONGZHONG, to_counts
from game.value import choose_valued
from game.view import SeatView

# (player under test, its three opponents, JSON key prefix)
MATCHUPS = (
    ("normal", "baseline", "vs_baseline"),
    ("normal", "easy", "vs_easy"),
    ("hard", "normal", "vs_normal"),
    # the network alone (game.policy): discards by the network, the rest as normal; --learned-hands
    ("learned", "normal", "learned_vs_normal"),
    # the value network (game.value): normal's best three discards judged by their value; --valued-hands
    ("valued", "normal", "valued_vs_normal"),
    # normal in the tested player's seats on its walls, the reference of --breakdown
    ("normal", "normal", "normal_vs_normal"),
)
# How a hand ended for the player under test, in the order they are reported.
OUTCOMES = ("won_self_drawn", "won_on_discard", "dealt_in", "others_self_drawn", "others_on_discard", "drawn")


def _own(view: SeatView) -> list[int]:
    return to_counts([*view.hand, *([view.drawn] if view.drawn is not None else [])])


def baseline_choose(view: SeatView, seed: int) -> Action:
    """The bench's reference player (see the module docstring)."""
    assert view.seat is not None
    legal = view.legal
    by_kind = {a.kind: a for a in legal}
    if "hu" in by_kind:
        return by_kind["hu"]
    if view.phase != "turn" and view.phase != "claim":
        return by_kind["pass"]
    counts = _own(view)
    melds = view.melds[view.seat]
    if view.phase == "claim":
        if any(m.opens for m in melds):
            return by_kind["pass"]
        now = distance(counts, view.laizi, melds)
        for a in legal:
            if a.kind in ("peng", "chi") and claim_distance(view, a, counts) <= now:
                return a
        return by_kind["pass"]
    if "hongzhong_gang" in by_kind:
        return by_kind["hongzhong_gang"]
    if "laizi_gang" in by_kind and counts[view.laizi] >= 2:
        return by_kind["laizi_gang"]
    # 红中 and 赖子 only when nothing else is left: the baseline never throws them by choice (RULES.md §4)
    discards = [a for a in legal if a.kind == "discard" and a.tile not in (HONGZHONG, view.laizi)]
    discards = discards or [a for a in legal if a.kind == "discard"]
    scored = []
    for a in discards:
        assert a.tile is not None
        counts[a.tile] -= 1
        scored.append((distance(counts, view.laizi, melds), a))
        counts[a.tile] += 1
    least = min(d for d, _ in scored)
    rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}")
    return rng.choice([a for d, a in scored if d == least])


LEARNED = {"learned": choose_learned, "valued": choose_valued}  # the players of a network
HARD_MS = DEFAULT_BUDGET_MS  # set by --hard-ms, in each worker (see _init)
HARD_WORLDS: int | None = None  # set by --hard-worlds: a fixed number of worlds instead of the budget


def _init(hard_ms: float, hard_worlds: int | None) -> None:
    global HARD_MS, HARD_WORLDS
    HARD_MS, HARD_WORLDS = hard_ms, hard_worlds


def play(wall: int, hero_seat: int, hero: str, opponent: str) -> tuple[int, str, list[float]]:
    """One hand: (hero's points, how the hand ended for the hero (``OUTCOMES``), its decision times in ms)."""
    hand = Hand(Rules(), seed=wall, dealer=0)
    times: list[float] = []
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        if seat == hero_seat:
            t0 = time.perf_counter()
            if hero == "hard":
                action = choose_hard(view, wall, HARD_MS, HARD_WORLDS)
            elif hero in LEARNED:
                action = LEARNED[hero](view, wall)
            else:
                action = choose(view, hero, seed=wall)
            times.append((time.perf_counter() - t0) * 1000)
        elif opponent == "baseline":
            action = baseline_choose(view, seed=wall)
        else:
            action = choose(view, opponent, seed=wall)
        hand.apply(action)
    r = hand.result
    if r is None:
        return 0, "drawn", times
    on_discard = r.how in ("discard", "rob_gang")
    if r.winner == hero_seat:
        outcome = "won_on_discard" if on_discard else "won_self_drawn"
    elif on_discard:
        outcome = "dealt_in" if r.from_seat == hero_seat else "others_on_discard"
    else:
        outcome = "others_self_drawn"
    return r.payments[hero_seat], outcome, times


# (match-up, wall, per seating of the player under test: (points, outcome), its decision times)
WallResult = tuple[int, int, list[tuple[int, str]], list[float]]


def play_wall(job: tuple[int, int]) -> WallResult:
    """The four seatings of one wall for match-up number ``job[0]``."""
    matchup, wall = job
    hero, opponent, _ = MATCHUPS[matchup]
    hands = []
    times: list[float] = []
    for seat in range(4):
        points, outcome, t = play(wall, seat, hero, opponent)
        hands.append((points, outcome))
        times.extend(t)
    return matchup, wall, hands, times


def _p95(times: list[float]) -> float:
    times = sorted(times)
    return times[int(0.95 * (len(times) - 1))]


def _interval(values: list[float]) -> tuple[float, float, float]:
    """(mean, low, high): the mean ± 1.96 standard errors."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else float("inf")
    return mean, mean - half, mean + half


@dataclass(frozen=True)
class Figure:
    """The player under test's points a hand, and two 95% intervals for it (rounded to 0.01)."""

    mean: float
    dup_ci95: tuple[float, float]  # over walls: each wall's figure is the mean of its four seatings
    single_ci95: tuple[float, float]  # were each hand independent: what plain sampling of as many hands gives


def duplicate_figure(rows: list[WallResult]) -> Figure:
    """The figure of a match-up from its walls (each played in all four seatings)."""
    per_wall = [sum(p for p, _ in hands) / 4 for _, _, hands, _ in rows]
    mean, low, high = _interval(per_wall)
    _, single_low, single_high = _interval([float(p) for _, _, hands, _ in rows for p, _ in hands])
    return Figure(round(mean, 2), (round(low, 2), round(high, 2)), (round(single_low, 2), round(single_high, 2)))


def by_outcome(rows: list[WallResult]) -> dict[str, tuple[float, float]]:
    """Per outcome: its share of the hands, and the points a hand it brought (summed over its hands / all)."""
    hands = [h for _, _, hs, _ in rows for h in hs]
    return {
        o: (sum(h[1] == o for h in hands) / len(hands), sum(p for p, x in hands if x == o) / len(hands))
        for o in OUTCOMES
    }


def _report(m: int, rows: list[WallResult], summary: dict[str, object]) -> tuple[list[float], int, int]:
    """Print match-up ``m``'s line and add its keys to ``summary``; (its hero's decision times, wins, deal-ins)."""
    hero, opp, key = MATCHUPS[m]
    figure = duplicate_figure(rows)
    mean, (low, high) = figure.mean, figure.dup_ci95
    outcomes = by_outcome(rows)
    ends = [o for _, _, hands, _ in rows for _, o in hands]
    won = sum(o in ("won_self_drawn", "won_on_discard") for o in ends)
    dealt = ends.count("dealt_in")
    n = len(ends)
    times = [t for *_, ts in rows for t in ts]
    print(
        f"{hero} vs 3×{opp}: {n} hands, points/hand {mean:+.2f} (95% CI {low:+.2f} … {high:+.2f}),"
        f" win rate {won / n:.1%}, deal-in rate {dealt / n:.1%}; {len(times)} decisions,"
        f" median {statistics.median(times):.2f} ms, p95 {_p95(times):.2f} ms"
    )
    print("  by outcome: " + ", ".join(f"{o} {share:.1%} {points:+.2f}" for o, (share, points) in outcomes.items()))
    summary[f"{key}_points_per_hand"] = mean
    summary[f"{key}_by_outcome"] = {o: [round(share, 4), round(points, 2)] for o, (share, points) in outcomes.items()}
    summary[f"{key}_ci95"] = [low, high]
    if hero != "normal":
        summary[f"{hero}_vs_normal_dup"] = mean
        summary[f"{hero}_vs_normal_dup_ci95"] = [low, high]
        summary[f"{hero}_vs_normal_single_ci95"] = [*figure.single_ci95]
        summary[f"{hero}_decision_ms_p95"] = round(_p95(times), 2)
    return times, won, dealt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per normal match-up (a multiple of 4)")
    parser.add_argument("--hard-hands", type=int, default=3000, help="hands of hard vs normal (a multiple of 4)")
    parser.add_argument("--hard-ms", type=float, default=DEFAULT_BUDGET_MS, help="hard's budget per decision")
    parser.add_argument("--hard-worlds", type=int, help="hard searches this many worlds, whatever the time")
    parser.add_argument("--processes", type=int, default=2)
    # Another run's walls, so that two runs are independent samples and can be pooled (bench/RESULTS.md)
    parser.add_argument("--first-wall", type=int, default=10_000, help="the first wall's seed")
    parser.add_argument("--duplicate", action="store_true", help="hard vs 3 × normal only (no normal match-ups)")
    parser.add_argument("--learned-hands", type=int, default=0, help="hands of the network alone vs normal")
    parser.add_argument("--valued-hands", type=int, default=0, help="hands of the value player vs normal")
    parser.add_argument("--breakdown", action="store_true", help="normal in the same seats, as the reference")
    args = parser.parse_args()
    walls = [0 if args.duplicate else max(1, args.hands // 4)] * 2
    walls += [max(0, n // 4) for n in (args.hard_hands, args.learned_hands, args.valued_hands)]
    walls.append(max(walls[2:]) if args.breakdown else 0)
    jobs = [(m, args.first_wall + w) for m in (2, 3, 4, 0, 1, 5) for w in range(walls[m])]
    start = time.perf_counter()
    with Pool(args.processes, initializer=_init, initargs=(args.hard_ms, args.hard_worlds)) as pool:
        done = pool.map(play_wall, jobs, chunksize=1)
    elapsed = time.perf_counter() - start

    summary: dict[str, object] = {"hands": walls[0] * 4, "hard_hands": walls[2] * 4, "hard_ms": args.hard_ms}
    summary["first_wall"] = args.first_wall
    if args.hard_worlds is not None:
        summary["hard_worlds"] = args.hard_worlds
    won = dealt = 0
    normal_times: list[float] = []
    for m in (m for m in range(len(MATCHUPS)) if walls[m]):
        times, m_won, m_dealt = _report(m, [d for d in done if d[0] == m], summary)
        if m in (0, 1):  # win and deal-in rates are normal's against the baseline and easy
            won, dealt = won + m_won, dealt + m_dealt
            normal_times.extend(times)
    print(f"elapsed {elapsed:.0f} s on {args.processes} processes")
    if normal_times:
        summary["decision_ms_p95"] = round(_p95(normal_times), 2)
        summary["win_rate"] = round(won / (walls[0] * 8), 4)
        summary["deal_in_rate"] = round(dealt / (walls[0] * 8), 4)
    summary["elapsed_s"] = round(elapsed)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
