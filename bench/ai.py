"""Tournament for the automatic player (game.ai): ``normal`` against a baseline and against ``easy``.

    .venv/bin/python bench/ai.py              # 2,000 hands per match-up (500 walls × 4 seatings)
    .venv/bin/python bench/ai.py --hands 400  # shorter

Duplicate seating: every wall (hand seed) is played four times with the player under test rotated through
the four seats and the three opponents in the others, so the luck of the deal cancels out. Points per hand
are averaged per wall first; the 95% interval is mean ± 1.96 × the standard error over walls.

The baseline (``baseline_choose``): 胡 whenever offered; 红中杠 whenever offered (a 红中 blocks every win);
赖子杠 when holding two or more 赖子 (a 屁胡 allows one); no other gang; discards at random among the tiles
whose discard leaves the smallest ``game.shanten.distance``; on a discard it passes unless its hand is
still closed and a 碰/吃 does not worsen that distance (it must open to win).

Reports win rate, points per hand with the interval, 放冲 (deal-in) rate and decision time of ``normal``;
the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import time
from multiprocessing import Pool

from game.actions import Action
from game.ai import choose
from game.melds import Meld
from game.rules import Rules
from game.shanten import distance
from game.table import Hand
from game.tiles import HONGZHONG, to_counts
from game.view import SeatView

OPPONENTS = ("baseline", "easy")


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
            if a.kind in ("peng", "chi") and _after_claim(view, a, counts) <= now:
                return a
        return by_kind["pass"]
    if "hongzhong_gang" in by_kind:
        return by_kind["hongzhong_gang"]
    if "laizi_gang" in by_kind and counts[view.laizi] >= 2:
        return by_kind["laizi_gang"]
    discards = [a for a in legal if a.kind == "discard"]
    scored = []
    for a in discards:
        assert a.tile is not None
        counts[a.tile] -= 1
        scored.append((distance(counts, view.laizi, melds), a))
        counts[a.tile] += 1
    least = min(d for d, _ in scored)
    rng = random.Random(f"{seed}:{view.seat}:{view.wall_remaining}")
    return rng.choice([a for d, a in scored if d == least])


def _after_claim(view: SeatView, claim: Action, counts: list[int]) -> int:
    """Distance after the claim and the best discard."""
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
        meld = Meld("chi", run, view.turn)
    melds = (*view.melds[view.seat], meld)
    best = 99
    for t in range(len(c)):
        if c[t] and t not in (HONGZHONG, view.laizi):
            c[t] -= 1
            best = min(best, distance(c, view.laizi, melds))
            c[t] += 1
    return best


def play(wall: int, hero_seat: int, opponent: str) -> tuple[int, bool, bool, list[float]]:
    """One hand: (hero's points, hero won, hero dealt in, hero's decision times in ms)."""
    hand = Hand(Rules(), seed=wall, dealer=0)
    times: list[float] = []
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        if seat == hero_seat:
            t0 = time.perf_counter()
            action = choose(view, "normal", seed=wall)
            times.append((time.perf_counter() - t0) * 1000)
        elif opponent == "baseline":
            action = baseline_choose(view, seed=wall)
        else:
            action = choose(view, "easy", seed=wall)
        hand.apply(action)
    r = hand.result
    if r is None:
        return 0, False, False, times
    dealt_in = r.from_seat == hero_seat and r.how in ("discard", "rob_gang")
    return r.payments[hero_seat], r.winner == hero_seat, dealt_in, times


def play_wall(job: tuple[int, str]) -> tuple[str, int, list[tuple[int, bool, bool]], list[float]]:
    wall, opponent = job
    hands = []
    times: list[float] = []
    for seat in range(4):
        points, won, dealt_in, t = play(wall, seat, opponent)
        hands.append((points, won, dealt_in))
        times.extend(t)
    return opponent, wall, hands, times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="hands per match-up (a multiple of 4)")
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    walls = max(1, args.hands // 4)
    jobs = [(10_000 + w, opp) for opp in OPPONENTS for w in range(walls)]
    start = time.perf_counter()
    with Pool(args.processes) as pool:
        done = pool.map(play_wall, jobs, chunksize=8)
    elapsed = time.perf_counter() - start

    summary: dict[str, object] = {"hands": walls * 4}
    all_times: list[float] = []
    won = dealt = total = 0
    for opp in OPPONENTS:
        rows = [d for d in done if d[0] == opp]
        per_wall = [sum(p for p, _, _ in hands) / 4 for _, _, hands, _ in rows]
        mean = statistics.fmean(per_wall)
        half = 1.96 * statistics.stdev(per_wall) / math.sqrt(len(per_wall)) if len(per_wall) > 1 else float("inf")
        opp_won = sum(w for _, _, hands, _ in rows for _, w, _ in hands)
        opp_dealt = sum(d for _, _, hands, _ in rows for _, _, d in hands)
        n = len(rows) * 4
        won, dealt, total = won + opp_won, dealt + opp_dealt, total + n
        for _, _, _, t in rows:
            all_times.extend(t)
        print(
            f"normal vs 3×{opp}: {n} hands, points/hand {mean:+.2f} (95% CI {mean - half:+.2f} … {mean + half:+.2f}),"
            f" win rate {opp_won / n:.1%}, deal-in rate {opp_dealt / n:.1%}"
        )
        key = "vs_baseline" if opp == "baseline" else "vs_easy"
        summary[f"{key}_points_per_hand"] = round(mean, 2)
        summary[f"{key}_ci95"] = [round(mean - half, 2), round(mean + half, 2)]
    all_times.sort()
    p95 = all_times[int(0.95 * (len(all_times) - 1))]
    print(f"normal decisions: {len(all_times)}, median {statistics.median(all_times):.2f} ms, p95 {p95:.2f} ms")
    print(f"elapsed {elapsed:.0f} s on {args.processes} processes")
    summary["win_rate"] = round(won / total, 4)
    summary["deal_in_rate"] = round(dealt / total, 4)
    summary["decision_ms_p95"] = round(p95, 2)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
