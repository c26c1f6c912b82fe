"""Private messages speak the player's own language, the group's messages the group's (the real bot process).

Alice's Telegram is Chinese, Bob's English; Carol's Telegram is English but she chose Chinese with /lang. The
group keeps its default language (Chinese). Each one's private hand message, and /start, come in their own.
"""

from __future__ import annotations

from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, group_texts


def _hand_picture(user: SimUser) -> Message:
    return user.wait_for_private_message(lambda m: m.photo is not None, timeout=20)


def test_private_pictures_and_texts_in_each_players_own_language(tmp_path: Path) -> None:
    with FakeTelegram() as tg:
        alice = tg.add_user("Alice")
        bob = tg.add_user("Bob", language_code="en")
        carol = tg.add_user("Carol", language_code="en-GB")
        group = tg.add_group("牌友群", members=[alice, bob, carol])
        with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED="852") as bot:
            carol.say(carol.id, "/lang zh")
            carol.wait_for_private_message(lambda m: "中文" in (m.text or ""), timeout=15)
            bob.say(bob.id, "/start")
            hello = bob.wait_for_private_message(lambda m: "Hello" in (m.text or ""), timeout=15)
            assert "你好" not in (hello.text or "")
            alice.say(group, "/newgame")
            tg.wait_for_message(group.id, lambda m: "麻将桌" in (m.text or ""), timeout=15)
            for user in (bob, carol):
                user.say(group, "/join")
            tg.wait_until(
                lambda: "Carol" in "\n".join(group_texts(tg, group)),
                timeout=15,
                what=lambda: f"Carol seated; the group shows {group_texts(tg, group)}",
            )
            seated = bob.wait_for_private_message(lambda m: "seated" in (m.text or ""), timeout=15)
            assert "入座" not in (seated.text or "")
            alice.say(group, "/begin")
            pictures = {u.first_name: _hand_picture(u).caption or "" for u in (alice, bob, carol)}
            assert "你是" in pictures["Alice"] and "赖子" in pictures["Alice"]
            assert "you are" in pictures["Bob"] and "wildcard" in pictures["Bob"] and "赖子" not in pictures["Bob"]
            assert "你是" in pictures["Carol"]
            # The group's picture and messages stay in the group's language.
            spectator = tg.wait_for_message(group.id, lambda m: m.photo is not None, timeout=20)
            assert "第 1 局" in (spectator.caption or "")
            assert not any("wildcard" in t or "you are" in t for t in group_texts(tg, group))
            alice.say(group, "/stop")
            tg.wait_for_message(group.id, lambda m: "结束" in (m.text or ""), timeout=15)
            assert "Traceback" not in bot.log()
