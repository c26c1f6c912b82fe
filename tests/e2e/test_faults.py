"""Telegram misbehaving never breaks a table: the real bot process plays a whole hand while the loopback Bot API
server answers some of its writes with 429 (flood control), 500, or a dropped connection, before and during
play. The hand still reaches its end, every action is stored once and in order, and nothing crashes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import Chat, FaultKind
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, Players, group_texts
from tests.e2e.test_full_game import SEED, _rob_only


def _break_writes(tg: FakeTelegram, group: Chat, users: list[SimUser]) -> None:
    for user in users:
        tg.fail_next("editMessageMedia", FaultKind.RETRY_AFTER, times=2, chat_id=user.id, retry_after=1)
        tg.fail_next("editMessageMedia", FaultKind.SERVER_ERROR, chat_id=user.id)
        tg.fail_next("sendPhoto", FaultKind.DROP_CONNECTION, chat_id=user.id)
    tg.fail_next("editMessageMedia", FaultKind.DROP_CONNECTION, chat_id=group.id)
    tg.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=group.id, retry_after=1)


def test_a_hand_survives_flood_control_server_errors_and_dropped_connections(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
    group = tg.add_group("牌友群", members=users)
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED=str(SEED)) as bot:
        users[0].say(group, "/newgame")
        for u in users[1:]:
            u.say(group, "/join")
        tg.wait_for_message(group.id, lambda m: "Dan" in (m.text or "") and "开局" in str(m.reply_markup), timeout=15)
        _break_writes(tg, group, users)  # the deal's pictures meet them
        users[0].say(group, "/begin")
        players = Players(tg, group, users, allow_hu=_rob_only)
        players.play_until(lambda: len(players.presses) >= 20, timeout=60)
        _break_writes(tg, group, users)  # and so do pictures in the middle of the hand
        players.play_until(lambda: any("抢杠" in t for t in group_texts(tg, group)), timeout=90)
        failed = [c for c in tg.calls() if c.status != 200]
        assert len(failed) >= 10  # the faults were really met
        assert {c.status for c in failed} >= {429, 500}
        assert "Traceback" not in bot.log()
    with sqlite3.connect(db) as conn:
        first = conn.execute("SELECT id, status FROM hands ORDER BY id LIMIT 1").fetchone()
        seqs = [row[0] for row in conn.execute("SELECT seq FROM actions WHERE hand_id = ? ORDER BY seq", (first[0],))]
    # The first hand (the one the faults met) is settled, with its 53 actions stored once each, in order.
    assert first[1] == "done"
    assert seqs == list(range(53))
