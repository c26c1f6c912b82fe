"""A settlement is all or nothing: a writer SIGKILLed inside close() leaves the hand wholly open or wholly closed.

The writer is a real second process (tests/storage/worker.py) killed by its own trace (Database.open(trace=…))
just before the K-th statement of the closing transaction runs; the test then reopens the database and checks every
table. On SQLite for a spread of K; on PostgreSQL for a few.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from game.titles import START_SKILL
from storage import Database, Period
from tests.postgres import empty
from tests.storage.conftest import seat_match
from tests.storage.worker import CLOSE_PAYMENTS

WORKER = Path(__file__).with_name("worker.py")


def run_worker(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(WORKER), *map(str, args)], capture_output=True, text=True, timeout=60, check=False
    )


async def prepared(path: Path | str) -> int:
    """A database with a league-night match whose hand is in play; returns the hand id."""
    db = await Database.open(path)
    try:
        league = await db.leagues.create(-100, "Friday", [4], "20:00", "Asia/Shanghai", "kaikoufan", night_hands=8)
        night = await db.leagues.schedule_next(league.id, db.now())
        match = await seat_match(db, (1, 2, 3, None), league_night_id=night.id)
        hand = await db.hands.start(match.id, seed=3, dealer=0)
        for seq in range(5):
            await db.hands.append_action(hand.id, seq, {"s": seq % 4, "k": "discard"})
        return hand.id
    finally:
        await db.close()


async def outcome(path: Path | str, hand_id: int) -> str:
    """'closed' or 'open', after checking every part of the settlement agrees."""
    db = await Database.open(path)
    try:
        hand = await db.hands.get(hand_id)
        settled = await db.fetchall("SELECT points FROM settlements WHERE hand_id = ? ORDER BY seat", (hand_id,))
        players = [await db.players.require(pid) for pid in (1, 2, 3)]
        match = await db.matches.get(hand.match_id)
        standings = await db.fetchall("SELECT period, player_id, points, hands FROM standings ORDER BY 1, 2")
        league_board = await db.standings.leaderboard(-100, Period.league_season(1, 1))
        assert await db.hands.actions(hand_id) == [{"s": s % 4, "k": "discard"} for s in range(5)]
        if hand.status == "playing":
            assert settled == [] and standings == [] and league_board == []
            assert [p.skill for p in players] == [START_SKILL] * 3 and all(p.hands == 0 for p in players)
            assert match.totals == (0, 0, 0, 0)
            assert [r.hand.id for r in await db.hands.unfinished()] == [hand_id]
            return "open"
        assert hand.status == "done" and hand.summary == {"by": "worker"}
        assert [r["points"] for r in settled] == list(CLOSE_PAYMENTS)
        assert [p.skill for p in players] == [START_SKILL + x for x in CLOSE_PAYMENTS[:3]]
        assert all(p.hands == 1 for p in players)
        assert match.totals == CLOSE_PAYMENTS
        assert len(standings) == 15  # 3 players × (all time, week, month, quarter, league season)
        assert [e.points for e in league_board] == sorted(CLOSE_PAYMENTS[:3], reverse=True)
        assert await db.hands.unfinished() == []
        return "closed"
    finally:
        await db.close()


async def test_kill_inside_the_closing_transaction_is_all_or_nothing(tmp_path: Path) -> None:
    template = tmp_path / "template.sqlite3"
    hand_id = await prepared(template)

    traced = tmp_path / "traced.sqlite3"
    shutil.copy(template, traced)
    result = run_worker("trace", traced, hand_id)
    assert result.returncode == 0, result.stderr
    statements = json.loads(result.stdout)
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert await outcome(traced, hand_id) == "closed"

    # Kill before statement K for a spread of K through the transaction, COMMIT (the last) included.
    kill_points = sorted({1, 2, *range(3, len(statements), 4), len(statements) - 1, len(statements)})
    for k in kill_points:
        crashed = tmp_path / f"killed-at-{k}.sqlite3"
        shutil.copy(template, crashed)
        result = run_worker("kill", crashed, hand_id, k)
        assert result.returncode == -signal.SIGKILL, (k, result.stderr)
        assert await outcome(crashed, hand_id) == "open", f"killed before statement {k}: {statements[k - 1]}"
        # The open hand can still be settled after the crash.
        db = await Database.open(crashed)
        await db.hands.close(hand_id, CLOSE_PAYMENTS, winner=0, summary={"by": "worker"})
        await db.close()
        assert await outcome(crashed, hand_id) == "closed"

    crashed = tmp_path / "killed-after.sqlite3"
    shutil.copy(template, crashed)
    result = run_worker("kill", crashed, hand_id, "after")
    assert result.returncode == -signal.SIGKILL, result.stderr
    assert await outcome(crashed, hand_id) == "closed"


async def test_a_settlement_on_postgresql_is_all_or_nothing_too(postgres_url: str) -> None:
    """The same on PostgreSQL, where the server rolls back what a killed connection left open: killed in the
    middle of the transaction, just before COMMIT, and right after close() returned."""
    hand_id = await prepared(postgres_url)
    result = run_worker("trace", postgres_url, hand_id)
    assert result.returncode == 0, result.stderr
    statements = json.loads(result.stdout)
    assert statements[0].startswith("BEGIN; SELECT pg_advisory_xact_lock") and statements[-1] == "COMMIT"
    assert await outcome(postgres_url, hand_id) == "closed"
    for k in (len(statements) // 2, len(statements), "after"):
        await empty(postgres_url)
        assert await prepared(postgres_url) == hand_id
        result = run_worker("kill", postgres_url, hand_id, k)
        assert result.returncode == -signal.SIGKILL, (k, result.stderr)
        assert await outcome(postgres_url, hand_id) == ("closed" if k == "after" else "open"), k
