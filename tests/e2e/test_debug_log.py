"""At ``MAHJONG_LOG_LEVEL=DEBUG`` the log is verbose and still keeps every secret: the real bot process plays a
whole hand for four people, and no line carries a private button (a button per concealed tile), a private
caption (a player's tiles and waits), the hand's seed, or the bot token."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from sandbox import FakeTelegram
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


def test_a_whole_hand_at_debug_logs_no_hidden_tile_seed_or_token(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
    group = tg.add_group("牌友群", members=users)
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED=str(SEED), MAHJONG_LOG_LEVEL="DEBUG") as bot:
        users[0].say(group, "/newgame")
        for u in users[1:]:
            u.say(group, "/join")
        tg.wait_for_message(group.id, lambda m: "Dan" in (m.text or "") and "开局" in str(m.reply_markup), timeout=20)
        users[0].say(group, "/begin")
        players = Players(tg, group, users, allow_hu=_rob_only)
        players.play_until(lambda: any("抢杠" in t for t in group_texts(tg, group)), timeout=120)
        log = bot.log()
    buttons, texts = _private_secrets(tg, {u.id for u in users})
    with sqlite3.connect(db) as conn:
        seeds = [str(row[0]) for row in conn.execute("SELECT seed FROM hands")]
    assert len(buttons) > 50 and len(texts) > 20 and seeds  # the hand's secrets were there to leak
    assert "Calling Bot API endpoint `sendPhoto`" in log and "DEBUG" in log  # the log is the verbose one
    assert [b for b in buttons if b in log] == []
    assert [t for t in texts if len(t) > 8 and t in log] == []
    assert [s for s in seeds if s in log] == []
    assert tg.token not in log and tg.token.split(":")[1] not in log
