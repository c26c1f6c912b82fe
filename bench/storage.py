"""Storage benchmark: appending an action, closing a hand, a leaderboard and a player's statistics over
100,000 stored hands.

    .venv/bin/python bench/storage.py

Runs against a real database file in a temporary directory (WAL, synchronous=NORMAL, as the bot runs).
The last line is one JSON object: append_ms_median, append_ms_p99, close_hand_ms_median, leaderboard_ms,
stats_ms (db.stats.player: all time, month and season for the player with the most hands, median).
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

# This file is named storage.py, so its own folder (first on sys.path) would shadow the storage package.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from storage import Database, Period, Seat
from storage.codec import timestamp

APPENDS = 3000
CLOSES = 300
STORED_HANDS = 100_000
CHATS = 10
PLAYERS_PER_CHAT = 40
HANDS_PER_MATCH = 8
LEADERBOARD_RUNS = 50
STATS_RUNS = 30
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


def ms(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered) * 1000, ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000


async def bench_append(db: Database) -> tuple[float, float]:
    await db.players.upsert(1, "Bench")
    match = await db.matches.create(-1, 1, "kaikoufan", [Seat.human(1), Seat.auto(), Seat.auto(), Seat.auto()], 999)
    samples = []
    hand = await db.hands.start(match.id, seed=0, dealer=0)
    seq = 0
    for _ in range(APPENDS):
        if seq == 150:  # a long hand has ~150 actions; then the next hand
            await db.hands.close(hand.id, (0, 0, 0, 0), winner=None)
            hand = await db.hands.start(match.id, seed=0, dealer=0)
            seq = 0
        start = time.perf_counter()
        await db.hands.append_action(hand.id, seq, {"s": seq % 4, "k": "discard", "t": "5m"})
        samples.append(time.perf_counter() - start)
        seq += 1
    await db.hands.abandon(hand.id)
    await db.matches.finish(match.id)
    return ms(samples)


async def bench_close(db: Database) -> float:
    for pid in (2, 3, 4):
        await db.players.upsert(pid, f"Bench {pid}")
    seats = [Seat.human(1), Seat.human(2), Seat.human(3), Seat.human(4)]
    match = await db.matches.create(-2, 2, "kaikoufan", seats, CLOSES)
    rng = random.Random(1)
    samples = []
    for _ in range(CLOSES):
        hand = await db.hands.start(match.id, seed=1, dealer=0)
        winner = rng.randrange(4)
        losses = [rng.randrange(20, 300) for _ in range(4)]
        payments = tuple(sum(losses) - losses[s] if s == winner else -losses[s] for s in range(4))
        start = time.perf_counter()
        await db.hands.close(hand.id, payments, winner, {"patterns": ["pi_hu"], "base": 1})
        samples.append(time.perf_counter() - start)
    return ms(samples)[0]


def _hand_rows(
    rng: random.Random, hand_id: int, match_id: int, n: int, chat_id: int, seated: list[int], started: datetime
) -> tuple[tuple[object, ...], list[tuple[object, ...]]]:
    """One settled hand: its hands row and its four settlement rows (random winner, losses and facts)."""
    ended = timestamp(started + timedelta(minutes=5 * n + 5))
    winner = rng.randrange(4)
    losses = [rng.randrange(20, 300) for _ in range(4)]
    hand = (hand_id, match_id, n + 1, n, 0, '{"preset":"kaikoufan"}', "done", ended, ended, winner,
            '{"patterns":["pi_hu"]}')  # fmt: skip
    feeder = rng.choice([None, (winner + 1) % 4, (winner + 2) % 4])
    rows = []
    for s, pid in enumerate(seated):
        points = sum(losses) - losses[s] if s == winner else -losses[s]
        won = s == winner
        facts = ("discard" if feeder is not None else "self_draw", int(s == feeder), rng.randrange(2),
                 rng.choice((1, 1, 2, 4, 66)) if won else 0, rng.randrange(2) if won else None,
                 rng.choice(("none", "capped", "golden")), int(rng.random() < 0.02))  # fmt: skip
        rows.append((hand_id, s, pid, chat_id, ended, points, int(won), None, None, *facts))
    return hand, rows


async def _insert(db: Database, rows: dict[str, list[tuple[object, ...]]]) -> None:
    async with db.transaction() as tx:
        await tx.executemany(
            "INSERT INTO players (id, display_name, language, skill, title, hands, wins, biggest_win, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows["players"])  # fmt: skip
        await tx.executemany(
            """INSERT INTO matches (id, chat_id, seed, rules, hands_planned, status, started_at, ended_at,
                                    league_night_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            rows["matches"],
        )
        await tx.executemany("INSERT INTO match_seats VALUES (?, ?, ?, ?, ?)", rows["match_seats"])
        await tx.executemany(
            """INSERT INTO hands (id, match_id, hand_no, seed, dealer, rules, status, started_at, ended_at, winner,
                                  summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            rows["hands"],
        )
        await tx.executemany(
            """INSERT INTO settlements (hand_id, seat, player_id, chat_id, ended_at, points, won, skill_before,
                                        skill_after, how, dealt_in, opened, patterns, hard, cap, tuoguan)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            rows["settlements"],
        )


async def fill(db: Database) -> tuple[int, int]:
    """STORED_HANDS settled hands over CHATS chats and a year, inserted in one transaction; returns a league."""
    league = await db.leagues.create(-1000, "Bench League", [4], "20:00", "UTC", "kaikoufan", night_hands=8)
    night = await db.leagues.schedule_night(league.id, NOW - timedelta(days=2))
    rng = random.Random(7)
    created = timestamp(NOW - timedelta(days=400))
    rows: dict[str, list[tuple[object, ...]]] = {k: [] for k in ("players", "matches", "match_seats", "hands",
                                                                   "settlements")}  # fmt: skip
    pools = {}
    for c in range(CHATS):
        pools[c] = list(range(10_000 + c * PLAYERS_PER_CHAT, 10_000 + (c + 1) * PLAYERS_PER_CHAT))
        rows["players"] += [(pid, f"P{pid}", "zh", 2400, "本科生", 0, 0, 0, created) for pid in pools[c]]
    hand_id = 1_000_000
    for m in range(STORED_HANDS // HANDS_PER_MATCH):
        match_id, c = 1_000_000 + m, m % CHATS
        seated = rng.sample(pools[c], 4)
        started = NOW - timedelta(days=365 * (1 - m / (STORED_HANDS // HANDS_PER_MATCH)), hours=1)
        in_league = c == 0 and started > NOW - timedelta(days=30)
        rows["matches"].append(
            (
                match_id,
                -1000 - c,
                m,
                '{"preset":"kaikoufan"}',
                HANDS_PER_MATCH,
                "done",
                timestamp(started),
                timestamp(started),
                night.id if in_league else None,
            )
        )
        rows["match_seats"] += [(match_id, s, pid, None, 0) for s, pid in enumerate(seated)]
        for n in range(HANDS_PER_MATCH):
            hand_id += 1
            hand, settled = _hand_rows(rng, hand_id, match_id, n, -1000 - c, seated, started)
            rows["hands"].append(hand)
            rows["settlements"] += settled
    await _insert(db, rows)
    return league.id, league.season


async def bench_leaderboard(db: Database) -> float:
    start = time.perf_counter()
    league_id, season = await fill(db)
    print(f"stored {STORED_HANDS} hands in {CHATS} chats in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    rows = await db.standings.rebuild()
    print(
        f"standings rebuilt from {4 * STORED_HANDS} settlement rows: {rows} rows in {time.perf_counter() - start:.2f} s"
    )
    worst = 0.0
    for label, period in (
        ("all time", Period.all_time()),
        ("this month", Period.month_of(NOW)),
        ("league season", Period.league_season(league_id, season)),
    ):
        samples = []
        for _ in range(LEADERBOARD_RUNS):
            start = time.perf_counter()
            board = await db.standings.leaderboard(-1000, period, limit=10)
            samples.append(time.perf_counter() - start)
        assert len(board) == 10, (label, len(board))
        median, _ = ms(samples)
        worst = max(worst, median)
        print(f"leaderboard {label} (chat of {STORED_HANDS // CHATS} hands): median {median:.3f} ms")
    # For comparison: the same all-time board summed from the settlement rows instead of the standings table.
    start = time.perf_counter()
    await db.fetchall(
        """SELECT player_id, SUM(points) AS pts FROM settlements WHERE chat_id = ? AND player_id IS NOT NULL
           GROUP BY player_id ORDER BY pts DESC LIMIT 10""",
        (-1000,),
    )
    print(f"(the same board summed from raw settlements: {(time.perf_counter() - start) * 1000:.1f} ms)")
    return worst


async def bench_stats(db: Database) -> float:
    """db.stats.player for the stored player with the most hands, and a per-pattern board."""
    rows = await db.fetchall(
        "SELECT player_id, COUNT(*) AS n FROM settlements WHERE player_id >= 10000 GROUP BY player_id "
        "ORDER BY n DESC LIMIT 1"
    )
    player_id, hands = rows[0]["player_id"], rows[0]["n"]
    samples = []
    for _ in range(STATS_RUNS):
        start = time.perf_counter()
        card = await db.stats.player(player_id, NOW)
        samples.append(time.perf_counter() - start)
    assert card.all_time.hands == hands and card.all_time.wins > 0
    median, _ = ms(samples)
    print(f"player stats (all time, month, season) for a player of {hands} hands: median {median:.3f} ms")
    start = time.perf_counter()
    board = await db.stats.pattern_board(-1000, "qing_yi_se", Period.all_time())
    assert board
    print(f"pattern board (qing_yi_se, all time, chat of {STORED_HANDS // CHATS} hands): "
          f"{(time.perf_counter() - start) * 1000:.3f} ms")  # fmt: skip
    return median


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = await Database.open(Path(tmp) / "bench.sqlite3", clock=lambda: NOW)
        try:
            append_median, append_p99 = await bench_append(db)
            print(f"append action: median {append_median:.3f} ms, p99 {append_p99:.3f} ms ({APPENDS} appends)")
            close_median = await bench_close(db)
            print(f"close hand with settlement: median {close_median:.3f} ms ({CLOSES} hands)")
            leaderboard = await bench_leaderboard(db)
            stats = await bench_stats(db)
        finally:
            await db.close()
    print(
        json.dumps(
            {
                "append_ms_median": round(append_median, 3),
                "append_ms_p99": round(append_p99, 3),
                "close_hand_ms_median": round(close_median, 3),
                "leaderboard_ms": round(leaderboard, 3),
                "stats_ms": round(stats, 3),
            }
        )
    )


if __name__ == "__main__":
    asyncio.run(main())
