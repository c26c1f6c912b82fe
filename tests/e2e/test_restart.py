"""The real bot process killed and started again: SIGKILL in the middle of a hand and a restart resume the hand
from the stored actions, with every player's message re-sent; SIGKILL between two hands and a restart take the
match up again (a module of its own beside test_robustness: each goes to a test worker of its own)."""

from __future__ import annotations

import time
from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import Chat, Message
from sandbox.users import SimUser
from tests.e2e.players import PRODUCTION, BotProcess, Players, game_buttons, open_table
from tests.e2e.test_robustness import _hand_status, _stored_actions


def _hand_messages(user: SimUser, group: Chat) -> list[Message]:
    return [m for m in user.private_messages() if m.photo is not None]


def test_sigkill_mid_hand_and_between_hands_resumes(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
    group = tg.add_group("重启群", members=users)
    db = tmp_path / "db.sqlite3"
    bot = BotProcess(tg, db, MAHJONG_SEED="852", **PRODUCTION).start()
    try:
        open_table(tg, group, users)
        players = Players(tg, group, users, allow_hu=lambda caption: "抢杠" in caption)
        players.play_until(lambda: len(_stored_actions(db)) >= 20, timeout=40)
        bot.kill()
        before = _stored_actions(db)
        assert len(before) >= 20 and _hand_status(db) == ["playing"]
        messages_before = {u.id: len(_hand_messages(u, group)) for u in users}
        time.sleep(0.5)
        bot.start()
        tg.wait_for_message(group.id, lambda m: "重启" in (m.text or ""), timeout=20)
        spectators_before = len([m for m in tg.messages(group.id) if m.photo is not None])
        # Play goes on from the messages sent before the restart, edited in place: nobody gets a second one, and
        # each player has exactly one message with the table's buttons.
        players = Players(tg, group, users, allow_hu=lambda caption: "抢杠" in caption)
        players.play_until(lambda: len(_stored_actions(db)) >= len(before) + 6, timeout=40)
        for u in users:
            assert len(_hand_messages(u, group)) == messages_before[u.id], u.first_name
            assert len([m for m in u.private_messages() if game_buttons(m, group)]) <= 1, u.first_name
        # The group's picture too: edited in place (at a group's real pace it may not have been sent yet before
        # the kill, and is then sent once at most: the count of group pictures never drops).
        assert len([m for m in tg.messages(group.id) if m.photo is not None]) <= max(spectators_before, 1)
        players.play_until(lambda: _hand_status(db)[:1] == ["done"], timeout=60)
        after = _stored_actions(db)
        assert after[: len(before)] == before  # nothing lost, nothing rewritten
        # The same hand as without the crash: seed 852 ends in a 抢杠 (see test_full_game), as its result says.
        tg.wait_for_message(group.id, lambda m: "抢杠" in (m.caption or ""), timeout=15)
        # Killed again between two hands: the match goes on, the players' Ready starts the next hand.
        bot.kill()
        assert _hand_status(db) == ["done"]
        bot.start()
        tg.wait_for_message(group.id, lambda m: "下一局" in (m.text or "") and "重启" in (m.text or ""), timeout=20)
        players = Players(tg, group, users, allow_hu=lambda caption: "抢杠" in caption)
        players.play_until(
            lambda: _hand_status(db) == ["done", "playing"] and len(_stored_actions(db)) > len(after), timeout=30
        )
        assert tg.max_writes_per_minute(group.id) <= 20
    finally:
        bot.stop()
    assert "Traceback" not in bot.log()
