"""The real bot process under stress: foreign, stale and repeated presses change nothing; a player who lets the
turn timer run out is played by the automatic player (托管) until "I'm back"; only the creator stops the table.
(SIGKILL and a restart: test_restart.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.callbacks import PlayButton
from sandbox import FakeTelegram
from sandbox.records import Button, Message
from tests.e2e.players import BotProcess, Players, game_buttons, open_table


def _stored_actions(db: Path) -> list[tuple[int, int, str]]:
    with sqlite3.connect(db) as conn:
        return list(conn.execute("SELECT hand_id, seq, action FROM actions ORDER BY hand_id, seq"))


def _hand_status(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("SELECT status FROM hands ORDER BY id")]


def _answer(tg: FakeTelegram, query_id: str) -> str | None:
    return tg.wait_for_callback_answer(query_id, timeout=10).text


def test_foreign_stale_and_repeated_presses_then_timeout_into_tuoguan(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    """The path of a press through the real process (the core's own cases: tests/bot/test_core.py; a flight:
    test_core and test_hardening; pacing: test_pacing and test_restart)."""
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("托管群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED="7", MAHJONG_TURN_SECONDS="2", MAHJONG_CLAIM_SECONDS="2") as bot:
        open_table(tg, group, [alice, bob])  # Alice deals (东), Bob 南, two automatic players
        hand = alice.wait_for_private_message(lambda m: bool(game_buttons(m, group)), timeout=15)
        discard = next(b for b in game_buttons(hand, group) if PlayButton.decode(b.callback_data).code.startswith("d"))
        # Bob forges a press of Alice's button on a message of his own: refused, nothing stored.
        bob_message = bob.private_messages()[-1]
        forged = tg.press_button(bob, bob_message, Button(text="x", callback_data=discard.callback_data))
        assert _answer(tg, forged) == "这不是你的按钮。"
        assert _stored_actions(db) == []
        # Alice presses, then presses the same button again on the same snapshot: the second is stale.
        first = alice.press(hand, discard.callback_data or "")
        assert _answer(tg, first) is None
        again = alice.press(hand, discard.callback_data or "")
        assert _answer(tg, again) == "这个按钮已经过期了。"
        assert len([a for a in _stored_actions(db) if '"s": 0' in a[2] or '"s":0' in a[2]]) == 1
        # Now Alice stops answering: her next turn times out and the automatic player takes over (托管).
        players = Players(tg, group, [alice, bob], idle=[alice])
        back_message: list[Message] = []

        def alice_played_for() -> bool:
            back_message[:] = [m for m in alice.private_messages() if any(b.text == "我回来了" for b in m.buttons)]
            return bool(back_message)

        players.play_until(alice_played_for, timeout=40)
        assert "托管" in (back_message[-1].caption or back_message[-1].text or "")
        tg.wait_for_message(group.id, lambda m: "超时" in (m.text or "") and "Alice" in (m.text or ""), timeout=15)
        # The hand goes on without her: the automatic player discards for her.
        stored = len(_stored_actions(db))
        players.play_until(lambda: len(_stored_actions(db)) > stored + 8, timeout=30)
        assert _answer(tg, alice.press(back_message[-1], "我回来了")) == "欢迎回来!"
        players = Players(tg, group, [alice, bob])  # she plays again: her buttons come back
        alice.wait_for_private_message(
            lambda m: any(not b.text.startswith("我回来了") for b in game_buttons(m, group)), timeout=40
        )
        # Only the table's creator (or an admin) can stop it; the summary goes to the group.
        bob.say(group, "/stop")
        tg.wait_for_message(group.id, lambda m: "只有开桌的人" in (m.text or ""), timeout=15)
        alice.say(group, "/stop")
        tg.wait_for_message(group.id, lambda m: "牌局结束" in (m.text or ""), timeout=15)
        with sqlite3.connect(db) as conn:
            assert [row[0] for row in conn.execute("SELECT status FROM matches")] in (["abandoned"], ["done"])
        assert "playing" not in _hand_status(db)
        assert "Traceback" not in bot.log()
