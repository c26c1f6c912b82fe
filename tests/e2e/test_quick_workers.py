"""Quick match with two workers sharing PostgreSQL (MAHJONG_WORKERS=1): one matchmaker, elected through the
database (bot.cluster.election). A person waits; the worker that matches is SIGKILLed; the other takes the
matchmaker's lock, the queue is still there, and once three more queue the four sit at one table on a shard the
surviving worker holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.table.key import QUICK_BASE
from sandbox import FakeTelegram
from tests.e2e.players import pg_query
from tests.e2e.test_quick_match import ENV, queue
from tests.e2e.test_workers import _start_workers, _up, _wait

ELECTED = "this worker matches the quick-match queue now"
SEATED = """SELECT m.chat_id, s.player_id FROM matches m JOIN match_seats s ON s.match_id = m.id
WHERE m.chat_id < $1 AND s.player_id IS NOT NULL"""


def test_the_queue_outlives_the_matchmakers_worker(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tg, url = fake_telegram, postgres_url
    for key, value in ENV.items():
        monkeypatch.setenv(key, value)
    workers = _start_workers(tg, tmp_path, url, 2)
    try:
        _up(workers, url)
        _wait(lambda: any(ELECTED in w.log() for w in workers), 30)
        leader = next(w for w in workers if ELECTED in w.log())
        survivor = next(w for w in workers if w is not leader)
        people = [tg.add_user(f"W{n}") for n in range(4)]
        queue(tg, people[0])
        _wait(lambda: bool(pg_query(url, "SELECT 1 FROM quick_queue WHERE player_id = $1", people[0].id)), 10)
        leader.kill()
        _wait(lambda: ELECTED in survivor.log(), 15)  # the lock went with the killed worker's connection
        for p in people[1:]:
            queue(tg, p)

        def seated() -> bool:
            rows = pg_query(url, SEATED, QUICK_BASE)
            tables = {r["chat_id"] for r in rows if r["player_id"] in {p.id for p in people}}
            return len(tables) == 1 and len(rows) == 4

        _wait(seated, 15)
        assert not pg_query(url, "SELECT 1 FROM quick_queue")
        assert "Traceback" not in survivor.log()
    finally:
        for w in workers:
            if w.proc is not None and w.proc.poll() is None:
                w.stop()
