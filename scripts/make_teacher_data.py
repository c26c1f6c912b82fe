"""Teacher data for the learned player: self-play hands with the search (``hard``) at every seat.

    .venv/bin/python scripts/make_teacher_data.py --out build/teacher/a.jsonl --first-seed 0 --hands 200
    .venv/bin/python scripts/make_teacher_data.py --out build/teacher/a.jsonl --first-seed 0 --hands 200 --minutes 30

One JSON line per hand, appended when the hand ends: its seed (the wall; the dealer is ``seed % 4``), the
payments, and per decision of a seat choosing among discards on its turn: the seat, the position's features as
that seat sees it (``game.features``: nothing hidden), the search's value of each discard it weighs
(``game.search.discard_values``) and the tile it played. Every seat plays ``choose_hard`` with a fixed number of
worlds, so a seed gives the same hand and the same data on any machine. Resumable: the seeds already in the file
are skipped, so a run stopped (``--minutes``, or killed) goes on where it stopped when started again.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from game.ai import forced_action
from game.features import features
from game.rules import Rules
from game.search import choose_hard, discard_values
from game.table import Hand
from game.view import SeatView


def decision(view: SeatView, seed: int, samples: int) -> dict[str, Any] | None:
    """The record of one turn's choice among discards (None when there is none to learn from)."""
    if view.phase != "turn" or forced_action(view) is not None:
        return None
    values = discard_values(view, seed, samples)
    if len(values) < 2:
        return None
    assert view.seat is not None
    return {
        "seat": view.seat,
        "x": [round(float(v), 4) for v in features(view)],
        "values": {str(t): round(v, 3) for t, v in values.items()},
    }


def play_hand(seed: int, samples: int) -> dict[str, Any]:
    """One self-play hand and its decisions."""
    hand = Hand(Rules(), seed=seed, dealer=seed % 4)
    decisions: list[dict[str, Any]] = []
    while not hand.finished:
        seat = hand.waiting_on()[0]
        view = hand.view(seat)
        record = decision(view, seed, samples)
        action = choose_hard(view, seed, samples=samples)
        if record is not None:
            record["played"] = action.tile if action.kind == "discard" else action.kind
            decisions.append(record)
        hand.apply(action)
    payments = list(hand.result.payments) if hand.result is not None else [0, 0, 0, 0]
    return {"seed": seed, "samples": samples, "payments": payments, "decisions": decisions}


def done_seeds(path: Path) -> set[int]:
    if not path.exists():
        return set()
    return {json.loads(line)["seed"] for line in path.read_text().splitlines() if line.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--first-seed", type=int, default=0)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--samples", type=int, default=16, help="worlds per decision, for play and values")
    parser.add_argument("--minutes", type=float, default=None, help="stop starting hands after this long")
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    done = done_seeds(args.out)
    start = time.monotonic()
    with args.out.open("a") as out:
        for seed in range(args.first_seed, args.first_seed + args.hands):
            if seed in done:
                continue
            if args.minutes is not None and time.monotonic() - start > args.minutes * 60:
                break
            out.write(json.dumps(play_hand(seed, args.samples)) + "\n")
            out.flush()


if __name__ == "__main__":
    main()
