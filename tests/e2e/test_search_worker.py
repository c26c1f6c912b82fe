"""A dead search worker never stops a ``hard`` table: the real bot process plays a whole hand at the hard level
(chosen in the /settings menu) while its search worker is killed with SIGKILL again and again (as the kernel's
OOM killer would); the pool is replaced, the decisions it could not make are played at ``normal`` at once, and
the hand reaches its end."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path

from sandbox import FakeTelegram
from tests.e2e.players import BotProcess, Players
from tests.e2e.test_commands_table import _press_and_wait


def search_workers(pid: int) -> list[int]:
    """The bot process's spawned pool workers (not multiprocessing's resource tracker)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    workers = []
    for child in map(int, children):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except FileNotFoundError:
            continue
        if b"spawn_main" in command:
            workers.append(child)
    return workers


def test_a_hard_table_plays_on_while_its_search_worker_is_killed(tmp_path: Path) -> None:
    with FakeTelegram() as tg:
        alice = tg.add_user("Alice", language_code="en")
        group = tg.add_group("Hard table", members=[alice], admins=[alice])
        db = tmp_path / "db.sqlite3"
        with BotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_GROUP_INTERVAL="1") as bot:
            assert bot.proc is not None
            alice.say(group, "/settings")
            menu = tg.wait_for_message(group.id, lambda m: "本群设置" in (m.text or ""), timeout=15)
            menu = _press_and_wait(tg, alice, menu, "st1|p|auto_level")
            _press_and_wait(tg, alice, menu, "st1|s|auto_level|hard")
            alice.say(group, "/newgame")
            tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
            alice.say(group, "/begin")
            players, killed = Players(tg, group, [alice]), set()

            def killing() -> bool:
                for worker in search_workers(bot.proc.pid):  # type: ignore[union-attr]
                    if len(killed) < 3 and worker not in killed:
                        os.kill(worker, signal.SIGKILL)
                        killed.add(worker)
                return any("第 1 局结果" in (m.caption or "") for m in tg.messages(group.id))

            started = time.monotonic()
            players.play_until(killing, timeout=120)
            log = bot.log()
            assert bot.stop() == 0
            stop_log = bot.log()[len(log) :]
    assert len(killed) == 3  # three workers, each killed while the hand went on
    assert log.count("a search process died") >= 3
    assert "a timed step failed" not in log and "Traceback" not in log and "BrokenProcessPool" not in log
    assert "ERROR" not in stop_log  # an orderly stop logs nothing per table
    assert time.monotonic() - started < 120
    with sqlite3.connect(db) as conn:
        first = "(SELECT MIN(id) FROM hands)"
        ended = conn.execute(f"SELECT ended_at IS NOT NULL FROM hands WHERE id = {first}").fetchone()
        moves = conn.execute(f"SELECT COUNT(*) FROM actions WHERE hand_id = {first}").fetchone()[0]
        seats = conn.execute(f"SELECT player_id IS NULL, auto_level FROM hand_seats WHERE hand_id = {first}").fetchall()
    assert ended == (1,) and moves > 20
    # The level chosen in /settings is the automatic seats' (their decisions come from the search's process).
    assert sorted(seats) == [(0, None), (1, "hard"), (1, "hard"), (1, "hard")]
