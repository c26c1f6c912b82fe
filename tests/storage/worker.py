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


async def main(argv: list[str]) -> None:
    mode, target = argv[0], argv[1]  # a SQLite file or a PostgreSQL URL
    db = await Database.open(target)
    if mode == "trace":
        seen: list[str] = []
        await db.set_trace(seen.append)
        await db.hands.close(int(argv[2]), CLOSE_PAYMENTS, winner=0, summary={"by": "worker"})
        await db.set_trace(None)
        print(json.dumps(seen))
    elif mode == "kill":
        hand_id, at = int(argv[2]), argv[3]
        if at != "after":
            count = 0

            def kill_at(_sql: str) -> None:
                nonlocal count
                count += 1
                if count == int(at):
                    die()

            await db.set_trace(kill_at)
        await db.hands.close(hand_id, CLOSE_PAYMENTS, winner=0, summary={"by": "worker"})
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
