"""Value data for the learned player: cheap self-play hands of ``normal`` at every seat, and their outcomes.

    .venv/bin/python scripts/make_value_data.py --out build/value --first-seed 0 --hands 2000 --minutes 30

Per discard a seat chooses on its turn (two or more weighed discards), the features (``game.features``) of the
position just after it (``after_discard``: what the seat sees once its tile is in the river), and the hand's
outcome for that seat: its points, whether it won, whether it dealt in. A value network learns from these the
points a position is worth to its seat when ``normal`` plays on (scripts/train_value.py). To see positions
``normal`` itself would not reach, a seat plays one of ``normal``'s best three discards at random in
``--explore`` of its turns (seeded by the hand). A decision costs a few ms, against the search's ~0.3 s.

Written in chunks of ``--chunk`` hands (``value_<first seed>.npz``: ``x`` float16, ``points``, ``won``,
``dealt_in``, ``seed`` per row), so a stopped run goes on where it stopped: chunks already there are skipped.
A seed gives the same hand and rows on any machine.
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

import numpy as np

from game.ai import forced_action, ranked, weighed_discards
from game.features import after_discard, features
from game.rules import Rules
from game.table import Hand


def play_hand(seed: int, explore: float) -> tuple[list[np.ndarray], list[int], list[int], list[bool], list[bool]]:
    """One self-play hand: (after-discard features, seat, points, won, dealt in) per recorded decision."""
    hand = Hand(Rules(), seed=seed, dealer=seed % 4)
    rng = random.Random(f"value:{seed}")
    xs: list[np.ndarray] = []
    seats: list[int] = []
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        action = forced_action(view)
        if action is None:
            best = ranked(view, "normal", seed)
            action = best[0][1]
            weighed = weighed_discards(view) if view.phase == "turn" else []
            if action.kind == "discard" and len(weighed) >= 2:
                options = [a for _, a in best if a.kind == "discard" and a.tile in weighed][:3]
                if rng.random() < explore:
                    action = rng.choice(options)
                assert action.tile is not None
                xs.append(features(after_discard(view, action.tile)).astype(np.float16))
                seats.append(seat)
        hand.apply(action)
    r = hand.result
    pay = list(r.payments) if r is not None else [0, 0, 0, 0]
    won = [r is not None and r.winner == s for s in seats]
    dealt = [r is not None and r.from_seat == s and r.how in ("discard", "rob_gang") for s in seats]
    return xs, seats, [pay[s] for s in seats], won, dealt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="a directory for the chunks")
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=50)
    parser.add_argument("--explore", type=float, default=0.15)
    parser.add_argument("--minutes", type=float, default=None, help="stop starting chunks after this long")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    for first in range(args.first_seed, args.first_seed + args.hands, args.chunk):
        path = args.out / f"value_{first}.npz"
        if path.exists():
            continue
        if args.minutes is not None and time.monotonic() - start > args.minutes * 60:
            break
        xs: list[np.ndarray] = []
        cols: dict[str, list[int | bool]] = {"points": [], "won": [], "dealt_in": [], "seed": []}
        for seed in range(first, min(first + args.chunk, args.first_seed + args.hands)):
            x, _, points, won, dealt = play_hand(seed, args.explore)
            xs += x
            cols["points"] += points
            cols["won"] += won
            cols["dealt_in"] += dealt
            cols["seed"] += [seed] * len(x)
        tmp = path.with_suffix(".tmp.npz")
        arrays = {k: np.asarray(v) for k, v in cols.items()}
        np.savez_compressed(
            tmp,
            x=np.stack(xs),
            points=arrays["points"],
            won=arrays["won"],
            dealt_in=arrays["dealt_in"],
            seed=arrays["seed"],
        )
        tmp.rename(path)
        print(f"{path.name}: {len(xs)} rows, {time.monotonic() - start:.0f} s", flush=True)


if __name__ == "__main__":
    main()
