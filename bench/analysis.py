"""How fast game.analysis checks wins and finds waits, beside the PyPI ``mahjong`` library's agari check.

Run: ``.venv/bin/python bench/analysis.py``. A fixed, seeded corpus of 14-tile hands with 0-4 赖子
(half random draws from a shuffled wall, half built as four sets + a pair with some tiles then turned
into 赖子), the same hands for both libraries, converted to count vectors before any timing:

- ``win_checks_per_s``: ``is_win`` with the 赖子 as wildcards (the soft split also covers every hard
  shape, since a wildcard may stand for itself);
- ``mahjong_agari_per_s``: ``mahjong.agari.Agari.is_agari`` on the same hands, 赖子 as natural tiles;
- ``waits_per_s``: ``waits`` on the corpus hands less their last tile (13 tiles, no melds);
- ``random_hands_per_s``: whole hands of ``game.table.Hand`` played by random legal actions.

Each figure is the best of several interleaved timed passes after a warm-up pass (see ``rates``).
The last line is one JSON object with the figures.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

from mahjong.agari import Agari

from game.analysis import is_win, waits
from game.rules import Rules
from game.table import Hand
from game.tiles import HONGZHONG, NUM_KINDS, Tile, all_tiles, to_counts

CORPUS_SIZE = 4000
SEED = 20261129


def _random_hand(rng: random.Random) -> tuple[list[Tile], Tile]:
    laizi = rng.randrange(HONGZHONG)
    wall = all_tiles()
    rng.shuffle(wall)
    return wall[:14], laizi


def _winning_hand(rng: random.Random) -> tuple[list[Tile], Tile]:
    """Four sets + a 2-5-8 pair (no 红中), then 0-4 of its tiles (as the copies left allow) become 赖子."""
    laizi = rng.randrange(HONGZHONG)
    left = [4] * NUM_KINDS
    tiles: list[Tile] = []
    while len(tiles) < 14:
        t = rng.randrange(HONGZHONG)
        if len(tiles) == 12:
            group = [rng.choice((1, 4, 7)) + 9 * rng.randrange(3)] * 2  # a 2-5-8 pair: a 屁胡 at least
        elif t < 27 and t % 9 <= 6 and rng.random() < 0.6:
            group = [t, t + 1, t + 2]
        else:
            group = [t] * 3
        if all(left[u] >= group.count(u) for u in group):
            for u in group:
                left[u] -= 1
            tiles += group
    for _ in range(rng.choice((0, 1, 1, 2, 2, 3, 4))):
        i = rng.randrange(14)
        if left[laizi] and tiles[i] != laizi:
            left[tiles[i]] += 1
            left[laizi] -= 1
            tiles[i] = laizi
    rng.shuffle(tiles)
    return tiles, laizi


def corpus() -> list[tuple[list[Tile], Tile]]:
    rng = random.Random(SEED)
    return [_random_hand(rng) if i % 2 else _winning_hand(rng) for i in range(CORPUS_SIZE)]


def rates(works: list[Callable[[], object]], count: int, rounds: int = 12) -> list[float]:
    """Items per second of each of ``works`` (each handles ``count`` items): one warm-up call each, then
    ``rounds`` interleaved timed calls, and the best round of each — on a shared machine, interleaving
    gives both sides the same conditions and the best round is the least disturbed one."""
    best = [float("inf")] * len(works)
    for work in works:
        work()
    for _ in range(rounds):
        for i, work in enumerate(works):
            start = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - start)
    return [count / b for b in best]


def play_random_hand(seed: int) -> None:
    rng = random.Random(seed)
    hand = Hand(Rules(), seed, dealer=seed % 4)
    while not hand.finished:
        seat = hand.waiting_on()[0]
        hand.apply(rng.choice(hand.legal_actions(seat)))


def _win_checks(hands: list[tuple[list[int], int]]) -> tuple[float, float]:
    """Win checks per second, ours (赖子 wild) and the riichi library's (赖子 natural), side by side."""
    ours: list[tuple[tuple[int, ...], int]] = []
    theirs: list[tuple[int, ...]] = []  # both sides get tuples of 34 counts
    for tiles, laizi in hands:
        natural = to_counts(tiles)
        theirs.append(tuple(natural))
        n_wild = natural[laizi]
        natural[laizi] = 0
        ours.append((tuple(natural), n_wild))

    wins_ours = sum(is_win(c, w) for c, w in ours)
    wins_theirs = sum(Agari.is_agari(c) for c in theirs)
    print(f"corpus: {len(hands)} hands; wins, 赖子 wild: {wins_ours}; mahjong agari, 赖子 natural: {wins_theirs}")

    def check_ours() -> None:
        for c, w in ours:
            is_win(c, w)

    def check_theirs() -> None:
        for c in theirs:
            Agari.is_agari(c)

    win_rate, agari_rate = rates([check_ours, check_theirs], len(hands))
    print(f"is_win (wildcard-aware):  {win_rate:12,.0f} hands/s")
    print(f"mahjong Agari.is_agari:   {agari_rate:12,.0f} hands/s")
    print(f"ratio ours/theirs:        {win_rate / agari_rate:12.2f}")
    return win_rate, agari_rate


def _waits_and_hands(hands: list[tuple[list[int], int]]) -> tuple[float, float]:
    """Wait searches per second (13 tiles) and random-agent hands per second."""
    thirteen = [(tiles[:-1], laizi) for tiles, laizi in hands[:1000]]
    ready = sum(bool(waits(t, [], lz)) for t, lz in thirteen)

    def find_waits() -> None:
        for tiles, laizi in thirteen:
            waits(tiles, [], laizi)

    (waits_rate,) = rates([find_waits], len(thirteen), rounds=4)
    print(f"waits (13 tiles):         {waits_rate:12,.0f} hands/s ({ready} of {len(thirteen)} ready)")

    seeds = range(150)

    def play_hands() -> None:
        for seed in seeds:
            play_random_hand(seed)

    (hands_rate,) = rates([play_hands], len(seeds), rounds=3)
    print(f"random-agent hands:       {hands_rate:12,.1f} hands/s (game.table.Hand, seeds 0-{len(seeds) - 1})")
    return waits_rate, hands_rate


def main() -> None:
    hands = corpus()
    win_rate, agari_rate = _win_checks(hands)
    waits_rate, hands_rate = _waits_and_hands(hands)
    print(
        json.dumps(
            {
                "win_checks_per_s": round(win_rate),
                "mahjong_agari_per_s": round(agari_rate),
                "ratio_vs_mahjong": round(win_rate / agari_rate, 2),
                "waits_per_s": round(waits_rate),
                "random_hands_per_s": round(hands_rate, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
