"""Concurrent tables lose nothing: many asyncio tasks on one Database, and two processes on one file."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from pathlib import Path

from game.titles import START_SKILL
from storage import Database, Period
from tests.storage.conftest import seat_match
from tests.storage.worker import ACTIONS_PER_HAND, play_payments

WORKER = Path(__file__).with_name("worker.py")
TABLES = 8
HANDS = 4


async def play_table(db: Database, match_id: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Play HANDS hands, yielding between writes so tables interleave; returns the payments."""
    played = []
    for _ in range(HANDS):
        hand = await db.hands.start(match_id, seed=rng.randrange(2**63), dealer=0)
        for seq in range(rng.randrange(5, 25)):
            await db.hands.append_action(hand.id, seq, {"m": match_id, "n": seq})
            await asyncio.sleep(0)
        winner = rng.randrange(4)
        losses = [rng.randrange(20, 300) for _ in range(4)]
        payments = tuple(sum(losses) - losses[s] if s == winner else -losses[s] for s in range(4))
        await db.hands.close(hand.id, payments, winner=winner)
        played.append(payments)
    return played


async def test_many_tables_at_once_lose_nothing(db: Database) -> None:
    # Players sit at several tables (in different chats), so their skill is updated concurrently.
    matches = [
        await seat_match(db, ((t % 5) + 1, (t % 5) + 2, None, (t % 5) + 10), chat_id=-t - 1) for t in range(TABLES)
    ]
    results = await asyncio.gather(*(play_table(db, m.id, random.Random(i)) for i, m in enumerate(matches)))

    expected_skill: dict[int, int] = {}
    for match, payments in zip(matches, results, strict=True):
        stored = await db.matches.get(match.id)
        assert stored.totals == tuple(sum(col) for col in zip(*payments, strict=True))
        for seat, player in enumerate(stored.seats):
            if player.player_id is not None:
                expected_skill[player.player_id] = expected_skill.get(player.player_id, START_SKILL) + sum(
                    p[seat] for p in payments
                )
    for pid, skill in expected_skill.items():
        assert (await db.players.require(pid)).skill == skill
    hands = await db.fetchall("SELECT id FROM hands")
    assert len(hands) == TABLES * HANDS
    for (hand_id,) in hands:
        actions = await db.hands.actions(hand_id)
        assert [a["n"] for a in actions] == list(range(len(actions)))
    before = await db.fetchall("SELECT * FROM standings ORDER BY 1, 2, 3")
    await db.standings.rebuild()
    assert [tuple(r) for r in await db.fetchall("SELECT * FROM standings ORDER BY 1, 2, 3")] == [
        tuple(r) for r in before
    ]


async def test_two_processes_on_one_file_lose_nothing(db_target: str | Path) -> None:
    db = await Database.open(db_target)
    try:
        # The same four players at two tables, in opposite seats: every close updates all of them.
        first = await seat_match(db, (1, 2, 3, 4), chat_id=-1)
        second = await seat_match(db, (4, 3, 2, 1), chat_id=-2)
    finally:
        await db.close()
    hands = 40
    workers = [
        subprocess.Popen(
            [sys.executable, str(WORKER), "play", str(db_target), str(m.id), str(hands), str(tag)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for tag, m in enumerate((first, second))
    ]
    for w in workers:  # both have opened the file before either writes
        assert w.stdout is not None and w.stdout.readline() == "ready\n"
    for w in workers:
        assert w.stdin is not None
        w.stdin.write("go\n")
        w.stdin.flush()
    for w in workers:
        _, err = w.communicate(timeout=60)
        assert w.returncode == 0, err

    db = await Database.open(db_target)
    try:
        expected = dict.fromkeys((1, 2, 3, 4), START_SKILL)
        for tag, match in enumerate((first, second)):
            stored = await db.matches.get(match.id)
            payments = [play_payments(tag, n) for n in range(hands)]
            assert stored.totals == tuple(sum(col) for col in zip(*payments, strict=True))
            for seat, player in enumerate(stored.seats):
                assert player.player_id is not None
                expected[player.player_id] += sum(p[seat] for p in payments)
        assert {pid: (await db.players.require(pid)).skill for pid in expected} == expected
        assert {pid: (await db.players.require(pid)).hands for pid in expected} == dict.fromkeys(expected, 2 * hands)
        counts = await db.fetchall("SELECT hand_id, COUNT(*), MAX(seq) FROM actions GROUP BY hand_id")
        assert len(counts) == 2 * hands
        assert all(tuple(c)[1:] == (ACTIONS_PER_HAND, ACTIONS_PER_HAND - 1) for c in counts)
        board = await db.standings.leaderboard(-1, Period.all_time())
        assert sum(e.points for e in board) == 0 and all(e.hands == hands for e in board)
    finally:
        await db.close()
