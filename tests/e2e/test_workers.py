"""Two bot workers sharing one PostgreSQL (MAHJONG_WORKERS=1, bot.cluster) through the loopback Bot API: tables in
three groups spread over both, the worker that polls and owns two of them SIGKILLed mid-hand; the other takes
over its shards (resuming its two tables) and its polling (Telegram sends the last presses again: each stored
once), every table plays its hand to the end, and every hand is settled once and replays zero-sum."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

from bot.cluster.shards import shard_of
from bot.i18n import t
from bot.table.key import TableKey
from sandbox import FakeTelegram
from sandbox.records import Chat, Message
from storage.copy_to_postgres import check_hands
from tests.e2e.players import BotProcess, Players, on_postgres, pg_query

ACTIONS_OF_CHAT = """SELECT COUNT(*) FROM actions a JOIN hands h ON h.id = a.hand_id JOIN matches m ON m.id = h.match_id
WHERE m.chat_id = $1"""


OWNER = """SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted
AND classid = hashtext('mahjong shard ' || current_schema())::oid AND objid = $1"""


def _lobby_naming(name: str) -> Callable[[Message], bool]:
    return lambda m: name in (m.text or "") and bool(m.buttons)


def _pid(log: str) -> int:
    found = re.search(r"joined the workers \(connection (\d+)\)", log)
    assert found is not None, "the worker did not join"
    return int(found.group(1))


def test_a_killed_worker_s_tables_finish_on_the_other(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str
) -> None:
    tg = fake_telegram
    env = {"MAHJONG_DB": postgres_url, "MAHJONG_WORKERS": "1", "MAHJONG_SEED": "852"}
    first = BotProcess(tg, tmp_path / "first.sqlite3", **env).start()
    second = BotProcess(tg, tmp_path / "second.sqlite3", **env).start()
    try:
        tg.wait_until(
            lambda: "owning 32" in first.log() and "owning 32" in second.log(), timeout=30, what="32 shards each"
        )
        killed, survivor = (first, second) if "this worker polls" in first.log() else (second, first)
        # Groups until the poller owns two tables and the other worker one: the kill takes both away.
        people = [tg.add_user(name) for name in ("Ann", "Bob", "Cat")]
        groups: list[Chat] = []
        owned = {_pid(killed.log()): 2, _pid(survivor.log()): 1}
        while len(groups) < len(people):
            group = tg.add_group(f"牌桌 {len(groups)}", members=[people[len(groups)]])
            pid = pg_query(postgres_url, OWNER, shard_of(TableKey(group.id)))[0]["pid"]
            if owned[pid] > 0:
                owned[pid] -= 1
                groups.append(group)
        tables = [Players(tg, group, [person]) for group, person in zip(groups, people, strict=True)]
        for group, person in zip(groups, people, strict=True):
            person.say(group, "/newgame")
            tg.wait_for_message(group.id, _lobby_naming(person.first_name), timeout=30)
            person.say(group, "/begin")

        def actions(group_id: int) -> int:
            return int(pg_query(postgres_url, ACTIONS_OF_CHAT, group_id)[0][0])

        def play_until(done: Callable[[], bool], timeout: float) -> None:
            end = time.monotonic() + timeout
            while not done():
                assert time.monotonic() < end, "the tables did not get there in time"
                if not sum(t.step() for t in tables):
                    time.sleep(0.02)

        play_until(lambda: all(actions(g.id) >= 8 for g in groups), timeout=60)
        killed.kill()  # mid-hand: two tables and the polling lost with it
        again = [int(u["update_id"]) for u in tg.updates_sent()[-4:]]
        for update_id in again:  # Telegram sends the last presses again (as after a crash before confirming)
            tg.redeliver(update_id)
        before = {g.id: actions(g.id) for g in groups}

        def settled() -> bool:
            return len(pg_query(postgres_url, "SELECT 1 FROM hands WHERE status = 'done'")) >= len(groups)

        play_until(settled, timeout=120)
        people[0].say(groups[0], "/league")  # league nights run in one process only: said plainly
        off = t("league_workers", "zh")
        tg.wait_for_message(groups[0].id, lambda m: m.text == off, timeout=10)
        log = survivor.log()
    finally:
        first.stop()
        second.stop()
    assert all(actions(g.id) > before[g.id] for g in groups)  # every table moved on after the kill
    shards = {shard_of(TableKey(g.id)) for g in groups}
    assert len(shards) == len(groups)
    assert on_postgres(postgres_url, check_hands) >= len(groups)  # every hand replays from its seed, zero-sum
    hands = pg_query(
        postgres_url,
        "SELECT h.id, COUNT(s.*) AS n FROM hands h JOIN settlements s ON s.hand_id = h.id"
        " WHERE h.status = 'done' GROUP BY h.id",
    )
    assert [r["n"] for r in hands] == [4] * len(hands)  # settled once
    inbox = pg_query(postgres_url, "SELECT update_id, done_at FROM inbox WHERE update_id = ANY($1::bigint[])", again)
    assert len(inbox) == len(again) and all(r["done_at"] for r in inbox)  # stored once each, handled
    assert "this worker polls Telegram now" in log  # the survivor took the polling over
    assert re.search(r"shards taken: 32 \(owning 64\); 2 table\(s\) resumed", log)
    assert "Traceback" not in log
