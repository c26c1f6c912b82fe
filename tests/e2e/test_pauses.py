"""A group paused by flood control (a 429 "retry after") is not a group without members: the real bot process
cannot ask Telegram who is in it while the pause lasts, and says so ("try again in a moment"), never "only
members" or "admins only"; once the pause is over the same requests go through."""

from __future__ import annotations

from pathlib import Path

from bot.i18n import t
from tests.e2e.players import BotProcess
from tests.fake_telegram import FakeTelegram
from tests.fake_telegram.records import FaultKind

PAUSE = 12  # seconds of the group's "retry after"


def test_checks_during_a_429_pause_ask_to_try_again_never_refuse(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob", language_code="en")
    group = tg.add_group("牌友群", members=[alice, bob], admins=[alice])
    with BotProcess(tg, tmp_path / "db.sqlite3") as bot:
        tg.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=group.id, retry_after=PAUSE)
        alice.say(group, "/newgame")  # its lobby meets the 429: the group is paused
        tg.wait_until(lambda: tg.calls("sendMessage", chat_id=group.id), timeout=15, what="the lobby refused")
        # Bob, a member, opens the Join link: asked to try again, not told only members may join.
        bob.start(f"join_{group.id}")
        later = t("check_later", "en")
        bob.wait_for_private_message(lambda m: m.text == later, timeout=10)
        assert not [m for m in bob.private_messages() if t("join_not_member", "en", group="牌友群") == m.text]
        # Alice, an admin, asks for /settings: her answer (in the group, after the pause) asks her to try again.
        alice.say(group, "/settings")
        tg.wait_for_message(group.id, lambda m: m.text == t("check_later", "zh"), timeout=PAUSE + 15)
        assert not [m for m in tg.messages(group.id) if m.text == t("settings_admins_only", "zh")]
        # The pause over, the same requests go through.
        bob.start(f"join_{group.id}")
        tg.wait_for_message(group.id, lambda m: "Bob" in (m.text or "") and "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/settings")
        tg.wait_for_message(group.id, lambda m: "本群设置" in (m.text or ""), timeout=15)
        assert "Traceback" not in bot.log() and " ERROR " not in bot.log()
