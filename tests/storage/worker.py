"""A separate process writing to a test database, for the crash and two-process tests.

python tests/storage/worker.py trace DB HAND          # close HAND, print the statements it ran (JSON list)
python tests/storage/worker.py kill DB HAND K         # close HAND, SIGKILL itself before statement K runs
python tests/storage/worker.py kill DB HAND after     # close HAND, SIGKILL itself right after it returns
python tests/storage/worker.py play DB MATCH HANDS TAG  # play HANDS hands of MATCH (see play_payments)
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

from storage import Database

# The settlement every crash test closes its hand with.
CLOSE_PAYMENTS = (152, -8, -16, -128)
ACTIONS_PER_HAND = 12


def play_payments(tag: int, hand_no: int) -> tuple[int, int, int, int]:
    """The zero-sum payments of hand hand_no played by worker tag (the test recomputes them)."""
    winner = (tag + hand_no) % 4
    return tuple(30 * (hand_no % 3 + 1) if s == winner else -10 * (hand_no % 3 + 1) for s in range(4))  # type: ignore[return-value]


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


class Trace:
    """Database.open's trace: the statements run while ``on``; SIGKILLs the process before the ``kill_at``-th."""

    def __init__(self, kill_at: int | None = None) -> None:
        self.on = False
        self.seen: list[str] = []
        self.kill_at = kill_at

    def __call__(self, sql: str) -> None:
        if self.on:
            self.seen.append(sql)
            if len(self.seen) == self.kill_at:
                die()


async def main(argv: list[str]) -> None:
    mode, target = argv[0], argv[1]  # a SQLite file or a PostgreSQL URL
    trace = Trace(int(argv[3]) if mode == "kill" and argv[3] != "after" else None)
    db = await Database.open(target, trace=trace)
    if mode == "trace":
        trace.on = True
        await db.hands.close(int(argv[2]), CLOSE_PAYMENTS, winner=0, summary={"by": "worker"})
        trace.on = False
        print(json.dumps(trace.seen))
    elif mode == "kill":
        trace.on = True
        await db.hands.close(int(argv[2]), CLOSE_PAYMENTS, winner=0, summary={"by": "worker"})
        die()
    elif mode == "play":
        match_id, hands, tag = int(argv[2]), int(argv[3]), int(argv[4])
        # Start together with the other writer: say ready, wait for the test's go.
        print("ready", flush=True)
        sys.stdin.readline()
        for hand_no in range(hands):
            hand = await db.hands.start(match_id, seed=hand_no, dealer=0)
            for seq in range(ACTIONS_PER_HAND):
                await db.hands.append_action(hand.id, seq, {"s": seq % 4, "k": "discard", "w": tag, "n": seq})
            await db.hands.close(hand.id, play_payments(tag, hand_no), winner=(tag + hand_no) % 4)
    await db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1:]))
