"""Telegram misbehaving never breaks a table: the real bot process plays a whole hand while the loopback Bot API
server answers some of its writes with 429 (flood control), 500, or a dropped connection, before and during
play. The hand still reaches its end, every action is stored once and in order, and nothing crashes.

It plays at ``MAHJONG_LOG_LEVEL=DEBUG``: the log is verbose, its faults included, and still keeps every secret —
no line carries a private button (a button per concealed tile), a private caption (a player's tiles and
waits), the hand's seed, or the bot token."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import Chat, FaultKind
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, Players, group_texts
from tests.e2e.test_full_game import SEED, _rob_only


def _private_secrets(tg: FakeTelegram, users: set[int]) -> tuple[set[str], set[str]]:
    """(callback data of every button, every caption or text) the bot sent to the players' private chats."""
    buttons, texts = set(), set()
    for call in tg.calls():
        if call.chat_id not in users:
            continue
        media = call.params.get("media")
        shown = json.loads(media) if isinstance(media, str) else media or {}
        for text in (call.params.get("caption"), call.params.get("text"), shown.get("caption")):
            if text:
                texts.add(str(text))
        markup = call.params.get("reply_markup")
        rows = (json.loads(markup) if isinstance(markup, str) else markup or {}).get("inline_keyboard", [])
        buttons |= {b["callback_data"] for row in rows for b in row if "callback_data" in b}
    return buttons, texts


def _break_writes(tg: FakeTelegram, group: Chat, users: list[SimUser]) -> None:
    for user in users:
        tg.fail_next("editMessageMedia", FaultKind.RETRY_AFTER, times=2, chat_id=user.id, retry_after=1)
        tg.fail_next("editMessageMedia", FaultKind.SERVER_ERROR, chat_id=user.id)
        tg.fail_next("sendPhoto", FaultKind.DROP_CONNECTION, chat_id=user.id)
    tg.fail_next("editMessageMedia", FaultKind.DROP_CONNECTION, chat_id=group.id)
    tg.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=group.id, retry_after=1)


def test_a_hand_survives_flood_control_server_errors_and_dropped_connections_and_its_debug_log_keeps_secrets(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
    group = tg.add_group("牌友群", members=users)
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED=str(SEED), MAHJONG_LOG_LEVEL="DEBUG") as bot:
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
        log = bot.log()
    with sqlite3.connect(db) as conn:
        first = conn.execute("SELECT id, status FROM hands ORDER BY id LIMIT 1").fetchone()
        seqs = [row[0] for row in conn.execute("SELECT seq FROM actions WHERE hand_id = ? ORDER BY seq", (first[0],))]
    # The first hand (the one the faults met) is settled, with its 53 actions stored once each, in order.
    assert first[1] == "done"
    assert seqs == list(range(53))
    buttons, texts = _private_secrets(tg, {u.id for u in users})
    with sqlite3.connect(db) as conn:
        seeds = [str(row[0]) for row in conn.execute("SELECT seed FROM hands")]
    assert len(buttons) > 50 and len(texts) > 20 and seeds  # the hand's secrets were there to leak
    assert "Calling Bot API endpoint `sendPhoto`" in log and "DEBUG" in log  # the log is the verbose one
    assert [b for b in buttons if b in log] == []
    assert [t for t in texts if len(t) > 8 and t in log] == []
    assert [s for s in seeds if s in log] == []
    assert tg.token not in log and tg.token.split(":")[1] not in log
