"""Quick-match benchmark: 400 people arriving over a minute, queued and matched through the real queue
(storage.quick on a SQLite file, as the bot runs) and the real matchmaker (bot.quick.Matchmaker, one round every
TICK_S); only Telegram is left out: the registry that opens the tables and the outbox that shows the waiting
messages are counters.

    .venv/bin/python bench/match.py [--people 400] [--seconds 60] [--db postgresql://…]

Each person has a rating drawn around the start (some rated, some new) and chooses a wait of 30 s, 1 min or 3 min
(the bot's choices). Their match wait is from joining the queue to being seated. The last line is one JSON object:
people, seated, tables, with_automatic (tables with automatic players), match_wait_p50_s, match_wait_p95_s,
match_wait_max_s, round_ms_p95 (one matchmaker round: read the queue, match, seat, count).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.config import Config
from bot.quick.matchmaker import TICK_S, Matchmaker
from bot.table.key import TableKey
from bot.table.messages import OpenQuick
from bot.table.state import Table
from game.rating import START
from storage import Database
from storage.codec import timestamp

RATED = "INSERT INTO ratings (player_id, mu, sigma, ordinal, matches, updated_at) VALUES (?, ?, ?, ?, ?, ?)"


class Opened:
    """The registry's part: which tables opened, with whom, when."""

    def __init__(self) -> None:
        self.seated: dict[int, float] = {}  # person -> when seated (monotonic)
        self.tables: list[int] = []  # humans per table

    def all(self) -> list[Table]:
        return []

    async def open_quick(self, key: TableKey, title: str, opening: OpenQuick) -> bool:
        now = time.monotonic()
        people = [s.user_id for s in opening.seats if s is not None and s.user_id is not None]
        for pid in people:
            self.seated[pid] = now
        self.tables.append(len(people))
        return True


class Shown:
    """The outbox's part: what would be written."""

    def __init__(self) -> None:
        self.unreachable: set[int] = set()
        self.writes = 0

    def show(self, chat_id: int, slot: str, content: Any, **kw: Any) -> None:
        self.writes += 1

    def forget(self, chat_id: int, slot: str) -> None: ...

    def adopt(self, chat_id: int, slot: str, message_id: int, *, is_photo: bool) -> None: ...


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def run(people: int, seconds: float, target: str | None) -> dict[str, Any]:
    rng = random.Random(42)
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(target or Path(tmp) / "bench.sqlite3")
        config = Config(token="1:bench")
        for pid in range(1, people + 1):
            await db.players.upsert(pid, f"person {pid}")
            if rng.random() < 0.7:  # most have played: ratings spread around the start
                mu = rng.gauss(START.mu, 4.0)
                await db.execute(RATED, (pid, mu, 4.0, mu - 12.0, 10, timestamp(db.now())))
        opened, shown = Opened(), Shown()
        matchmaker = Matchmaker(config, db, opened, shown)  # type: ignore[arg-type]
        arrivals = sorted(rng.uniform(0, seconds) for _ in range(people))
        joined: dict[int, float] = {}
        rounds: list[float] = []
        start = time.monotonic()

        async def arrive() -> None:
            for pid, at in enumerate(arrivals, 1):
                await asyncio.sleep(max(0.0, start + at - time.monotonic()))
                await db.quick.join(pid, rng.choice(("kaikoufan", "koukoufan")), rng.choice(config.quick_waits))
                joined[pid] = time.monotonic()

        async def match() -> None:
            while len(opened.seated) < people:
                began = time.monotonic()
                await matchmaker.round()
                rounds.append((time.monotonic() - began) * 1000)
                await asyncio.sleep(TICK_S)

        await asyncio.gather(arrive(), match())
        await db.close()
    waits = [opened.seated[p] - joined[p] for p in joined]
    return {
        "people": people,
        "seated": len(opened.seated),
        "tables": len(opened.tables),
        "with_automatic": sum(n < 4 for n in opened.tables),
        "match_wait_p50_s": round(statistics.median(waits), 2),
        "match_wait_p95_s": round(quantile(waits, 0.95), 2),
        "match_wait_max_s": round(max(waits), 2),
        "round_ms_p95": round(quantile(rounds, 0.95), 1),
        "waiting_message_writes": shown.writes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: a SQLite file)")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(run(args.people, args.seconds, args.db))))


if __name__ == "__main__":
    main()
