"""Bench: does the bot's memory level off over a long night? The real bot process (``python -m bot``) against the
fake Bot API on loopback plays ``BENCH_HANDS`` hands (default 2,000) at ``TABLES`` tables at once, each one person
(who never presses: after their first timeout 托管 plays for them) and three automatic players at ``normal``; a
table whose match ends (8 hands) is opened again. The bot's RSS is read every 100 hands settled.

``growth_mb_per_100_hands`` is the least-squares slope of RSS against hands over the last 1,000 hands (the
first ones warm up caches, fonts and the allocator); under 1 MB per 100 hands is what issue 29 asks.

    .venv/bin/python bench/memory.py            # last line: {"hands": 2000, "growth_mb_per_100_hands": ..., ...}
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox import FakeTelegram  # noqa: E402
from tests.e2e.players import CommandBotProcess  # noqa: E402

TABLES = 20
HANDS = int(os.environ.get("BENCH_HANDS", "2000"))
SAMPLE_EVERY = 100  # hands settled between two readings of the RSS
LAST = 1000  # the hands the growth is measured over (the last ones)
FAST = {
    "MAHJONG_CLAIM_SECONDS": "0.2",
    "MAHJONG_TURN_SECONDS": "0.2",  # the person times out at once; 托管 plays for them from then on
    "MAHJONG_BOT_DELAY": "0",
    "MAHJONG_NEXT_HAND_SECONDS": "0.5",
    "MAHJONG_LOG_LEVEL": "WARNING",
}


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of y against x."""
    n = len(points)
    mx, my = sum(x for x, _ in points) / n, sum(y for _, y in points) / n
    return sum((x - mx) * (y - my) for x, y in points) / sum((x - mx) ** 2 for x, _ in points)


def main() -> None:
    samples: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as work, FakeTelegram() as tg:
        people = [tg.add_user(f"P{i}") for i in range(TABLES)]
        groups = [tg.add_group(f"t{i}", members=[p]) for i, p in enumerate(people)]
        db = Path(work) / "memory.sqlite3"
        with CommandBotProcess(tg, db, **FAST) as bot:
            assert bot.proc is not None
            people[0].say(people[0].id, "/help")  # answered once the bot has started (its schema made)
            tg.wait_until(lambda: people[0].private_messages(), timeout=60, what="the bot started")
            opened: dict[int, float] = {}  # group → when /newgame was last sent
            start = time.monotonic()
            while not samples or samples[-1][0] < HANDS:
                with sqlite3.connect(db) as conn:
                    running = {r[0] for r in conn.execute("SELECT chat_id FROM matches WHERE status = 'running'")}
                    done = int(conn.execute("SELECT COUNT(*) FROM hands WHERE status = 'done'").fetchone()[0])
                for person, group in zip(people, groups, strict=True):
                    since = opened.get(group.id)
                    if group.id in running:
                        opened.pop(group.id, None)
                    elif since is None or time.monotonic() - since > 10:  # open (again), then begin
                        person.say(group, "/newgame")
                        opened[group.id] = time.monotonic()
                    elif time.monotonic() - since > 1:
                        person.say(group, "/begin")
                if done >= len(samples) * SAMPLE_EVERY:
                    samples.append((done, rss_mb(bot.proc.pid)))
                    print(f"{done} hands, {time.monotonic() - start:.0f} s: RSS {samples[-1][1]:.1f} MB", flush=True)
                time.sleep(1)
    last = [(h, r) for h, r in samples if h >= samples[-1][0] - LAST]
    print(
        json.dumps(
            {
                "hands": samples[-1][0],
                "tables": TABLES,
                "rss_first_mb": round(samples[0][1], 1),
                "rss_at_1000_mb": round(next(r for h, r in samples if h >= samples[-1][0] - LAST), 1),
                "rss_last_mb": round(samples[-1][1], 1),
                "growth_mb_per_100_hands": round(slope(last) * 100, 2),
                "seconds": round(time.monotonic() - start),
            }
        )
    )


if __name__ == "__main__":
    main()
